import { rateLimits, rowsOf, sql, type Executor } from "@clinsign/db";
import { AppError } from "./errors";

export interface RateLimitRule {
  /** Distinct counter name, e.g. `login:email:a@b.c`. */
  key: string;
  limit: number;
  windowSeconds: number;
}

/**
 * Counts one attempt against a fixed window kept in the database (shared by every API
 * process) and throws 429 `rate_limited` once the window's limit is exceeded.
 */
export async function consumeRateLimit(db: Executor, rule: RateLimitRule): Promise<void> {
  const result = await db.execute(sql`
    insert into ${rateLimits} (key, count, reset_at)
    values (${rule.key}, 1, now() + make_interval(secs => ${rule.windowSeconds}))
    on conflict (key) do update set
      count = case when ${rateLimits.resetAt} <= now() then 1 else ${rateLimits.count} + 1 end,
      reset_at = case when ${rateLimits.resetAt} <= now() then excluded.reset_at else ${rateLimits.resetAt} end
    returning count, reset_at`);
  const [row] = rowsOf<{ count: number; reset_at: string | Date }>(result);
  if (row && row.count > rule.limit) {
    const retryAfterSeconds = Math.max(1, Math.ceil((new Date(row.reset_at).getTime() - Date.now()) / 1000));
    throw new AppError("rate_limited", "too many attempts; try again later", { retryAfterSeconds });
  }
}

/** Clears a counter, e.g. after a successful login. */
export async function resetRateLimit(db: Executor, key: string): Promise<void> {
  await db.execute(sql`delete from ${rateLimits} where key = ${key}`);
}

/**
 * Deletes counters whose window has ended (a new attempt starts a fresh one anyway). Without it
 * every address, e-mail and phone number ever tried would stay a row.
 */
export async function pruneRateLimits(db: Executor): Promise<number> {
  const result = await db.execute(sql`delete from ${rateLimits} where reset_at <= now() returning key`);
  return rowsOf(result).length;
}
