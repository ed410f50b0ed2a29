import type { Services } from "../../context";
import { consumeRateLimit, refundRateLimit, resetRateLimit, type RateLimitRule } from "../../rate-limit";

/**
 * The counters of the staff sign-in steps (per IP, per e-mail address, per account): they are kept
 * before any organization is known, so on the process's handle, not a scope's.
 */

/** Counts one attempt (429 past the rule's limit). */
export function countSignInAttempt(services: Services, rule: RateLimitRule): Promise<void> {
  return consumeRateLimit(services.db, rule);
}

/** Clears a counter after the step succeeded. */
export function clearSignInAttempts(services: Services, key: string): Promise<void> {
  return resetRateLimit(services.db, key);
}

/** Takes back one counted attempt after it succeeded (a shared counter other callers also count on). */
export function refundSignInAttempt(services: Services, key: string): Promise<void> {
  return refundRateLimit(services.db, key);
}
