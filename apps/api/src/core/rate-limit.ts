import { OrgScope, rateLimits, rowsOf, sql, type Executor, type SQL } from "@clinsign/db";
import { AppError } from "./errors";

export interface RateLimitRule {
  /** Distinct counter name, e.g. `login:email:a@b.c`. */
  key: string;
  limit: number;
  windowSeconds: number;
}

/**
 * Counts one attempt against a fixed window kept in the database (shared by every API
 * process) and throws 429 `rate_limited` once the window's limit is exceeded. The counters are
 * keyed across organizations (addresses, e-mails, credentials), so a tenant caller passes its scope.
 */
export async function consumeRateLimit(db: OrgScope | Executor, rule: RateLimitRule): Promise<void> {
  const handle = db instanceof OrgScope ? OrgScope.unscoped(db) : db;
  const result = await handle.execute(countAttempt(sql`select ${rule.key}::text`, rule.windowSeconds));
  const [row] = rowsOf<WindowCount>(result);
  if (row) assertWithinLimit(row, rule.limit);
}

/** A counter's state after one attempt: `countAttempt`'s row. */
export interface WindowCount {
  count: number;
  /** Whole seconds until the window ends (at least 1). */
  retry_after_seconds: number;
}

/**
 * The statement (or CTE body) that counts one attempt for each key `keys` selects, one row per
 * key: `count` in the current window and `retry_after_seconds`. For callers that count in the
 * same statement as their own work (e.g. authenticating an embed session and counting its call).
 */
export function countAttempt(keys: SQL, windowSeconds: number): SQL {
  return sql`insert into ${rateLimits} (key, count, reset_at)
    select k.key, 1, now() + make_interval(secs => ${windowSeconds}) from (${keys}) as k(key)
    on conflict (key) do update set
      count = case when ${rateLimits.resetAt} <= now() then 1 else ${rateLimits.count} + 1 end,
      reset_at = case when ${rateLimits.resetAt} <= now() then excluded.reset_at else ${rateLimits.resetAt} end
    returning count, greatest(1, ceil(extract(epoch from reset_at - now())))::int as retry_after_seconds`;
}

/** Throws 429 `rate_limited` once the window's count is past `limit`. */
export function assertWithinLimit(counted: WindowCount, limit: number): void {
  if (counted.count > limit) {
    throw new AppError("rate_limited", "too many attempts; try again later", {
      retryAfterSeconds: Number(counted.retry_after_seconds),
    });
  }
}

/**
 * Takes one attempt back from a counter's current window: for limits that should count failures
 * only but must be checked before the work (a password hash) is done.
 */
export async function refundRateLimit(db: Executor, key: string): Promise<void> {
  await db.execute(
    sql`update ${rateLimits} set count = greatest(${rateLimits.count} - 1, 0) where key = ${key} and reset_at > now()`,
  );
}

/** Clears a counter, e.g. after a successful login. */
export async function resetRateLimit(db: OrgScope | Executor, key: string): Promise<void> {
  const handle = db instanceof OrgScope ? OrgScope.unscoped(db) : db;
  await handle.execute(sql`delete from ${rateLimits} where key = ${key}`);
}

/**
 * Deletes counters whose window has ended (a new attempt starts a fresh one anyway). Without it
 * every address, e-mail and phone number ever tried would stay a row.
 */
export async function pruneRateLimits(db: Executor): Promise<number> {
  const result = await db.execute(sql`delete from ${rateLimits} where reset_at <= now() returning key`);
  return rowsOf(result).length;
}
