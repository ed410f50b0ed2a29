import { isIPv4, isIPv6 } from "node:net";
import { and, eq, gt, OrgScope, rateLimits, rowsOf, sql, type Executor, type SQL } from "@clinsign/db";
import { AppError } from "./errors";

/**
 * The address a per-address limit counts: an IPv4 address as it is (an IPv4-mapped IPv6 address
 * as its IPv4 form), an IPv6 address as its /64, the smallest block one subscriber is given: one
 * host can use every address of its /64, so counting single IPv6 addresses would count nothing.
 */
export function addressKey(ip: string | null): string {
  if (!ip) return "unknown";
  if (isIPv4(ip)) return ip;
  if (!isIPv6(ip)) return "unknown";
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(ip);
  if (mapped) return mapped[1]!;
  const [head = "", tail = ""] = ip.split("::");
  const headGroups = head ? head.split(":") : [];
  const tailGroups = tail ? tail.split(":") : [];
  // An embedded IPv4 tail is two groups; the /64 never reaches it, only the count matters.
  const tailCount = tailGroups.reduce((n, group) => n + (group.includes(".") ? 2 : 1), 0);
  const groups = ip.includes("::")
    ? [...headGroups, ...Array<string>(8 - headGroups.length - tailCount).fill("0"), ...tailGroups]
    : headGroups;
  return `${groups
    .slice(0, 4)
    .map((group) => parseInt(group, 16).toString(16))
    .join(":")}::/64`;
}

const inFlight = new Map<string, number>();

/**
 * Holds one of `max` concurrent slots for `key` in this process, or throws 429 `rate_limited`;
 * call the returned function when the work ends. For work that is itself per process (a worker
 * thread), where a shared counter would outlive a crashed process.
 */
export function claimConcurrent(key: string, max: number): () => void {
  const held = inFlight.get(key) ?? 0;
  if (held >= max)
    throw new AppError("rate_limited", "another request from your address is still running; try again when it ends", {
      retryAfterSeconds: 1,
    });
  inFlight.set(key, held + 1);
  let released = false;
  return () => {
    if (released) return;
    released = true;
    const left = (inFlight.get(key) ?? 1) - 1;
    if (left > 0) inFlight.set(key, left);
    else inFlight.delete(key);
  };
}

export interface RateLimitRule {
  /** Distinct counter name, e.g. `login:email:a@b.c`. */
  key: string;
  limit: number;
  windowSeconds: number;
  /** How much this attempt counts (1 unless the counter measures an amount, e.g. kibibytes stored). */
  amount?: number;
  /** The 429 (or other refusal) past the limit; a generic "too many attempts" 429 by default. */
  refusal?: (retryAfterSeconds: number) => AppError;
}

/**
 * Counts one attempt against a fixed window kept in the database (shared by every API
 * process) and throws 429 `rate_limited` once the window's limit is exceeded. The counters are
 * keyed across organizations (addresses, e-mails, credentials), so a tenant caller passes its scope
 * (inside a transaction, the count is taken back if it rolls back).
 */
export async function consumeRateLimit(db: OrgScope | Executor, rule: RateLimitRule): Promise<void> {
  const handle = db instanceof OrgScope ? OrgScope.unscoped(db) : db;
  const result = await handle.execute(countAttempt(sql`select ${rule.key}::text`, rule.windowSeconds, rule.amount));
  const [row] = rowsOf<WindowCount>(result);
  if (!row) return;
  if (rule.refusal && row.count > rule.limit) throw rule.refusal(Number(row.retry_after_seconds));
  assertWithinLimit(row, rule.limit);
}

/** What a counter has counted in its current window (0 when none is running), without counting. */
export async function countSoFar(
  db: OrgScope | Executor,
  key: string,
): Promise<{ count: number; retryAfterSeconds: number }> {
  const handle = db instanceof OrgScope ? OrgScope.unscoped(db) : db;
  const [row] = await handle
    .select({
      count: rateLimits.count,
      retryAfterSeconds: sql<number>`greatest(1, ceil(extract(epoch from ${rateLimits.resetAt} - now())))::int`,
    })
    .from(rateLimits)
    .where(and(eq(rateLimits.key, key), gt(rateLimits.resetAt, sql`now()`)));
  return row
    ? { count: Number(row.count), retryAfterSeconds: Number(row.retryAfterSeconds) }
    : { count: 0, retryAfterSeconds: 0 };
}

/** A counter's state after one attempt: `countAttempt`'s row. */
export interface WindowCount {
  count: number;
  /** Whole seconds until the window ends (at least 1). */
  retry_after_seconds: number;
}

/**
 * The statement (or CTE body) that counts one attempt (of `amount`) for each key `keys` selects,
 * one row per key: `count` in the current window and `retry_after_seconds`. For callers that count in the
 * same statement as their own work (e.g. authenticating an embed session and counting its call).
 */
export function countAttempt(keys: SQL, windowSeconds: number, amount = 1): SQL {
  return sql`insert into ${rateLimits} (key, count, reset_at)
    select k.key, ${amount}::int, now() + make_interval(secs => ${windowSeconds}) from (${keys}) as k(key)
    on conflict (key) do update set
      count = case when ${rateLimits.resetAt} <= now() then excluded.count else ${rateLimits.count} + excluded.count end,
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
