import { consumeRateLimit, refundRateLimit, resetRateLimit, type RateLimitRule } from "../../rate-limit";
import { IdentityStore } from "./identity-store";

/**
 * The counters of the staff sign-in steps (per IP, per e-mail address, per account): they are kept
 * before any organization is known, so on the process's handle, not a scope's.
 */

/** Counts one attempt (429 past the rule's limit). */
export function countSignInAttempt(store: IdentityStore, rule: RateLimitRule): Promise<void> {
  return consumeRateLimit(IdentityStore.handle(store), rule);
}

/** Clears a counter after the step succeeded. */
export function clearSignInAttempts(store: IdentityStore, key: string): Promise<void> {
  return resetRateLimit(IdentityStore.handle(store), key);
}

/** Takes back one counted attempt after it succeeded (a shared counter other callers also count on). */
export function refundSignInAttempt(store: IdentityStore, key: string): Promise<void> {
  return refundRateLimit(IdentityStore.handle(store), key);
}
