import { describe, expect, it } from "vitest";
import { nextSaveDelayMs } from "./useDraftAutosave";

/** An error as the tRPC client and the patient pages' own client report it. */
const apiError = (code: string, details: Record<string, unknown> = {}) =>
  Object.assign(new Error(code), { data: { code, details } });

describe("autosave after a failed save", () => {
  it("waits out a rate limit (429) instead of stopping, at least as long as Retry-After says", () => {
    expect(nextSaveDelayMs(apiError("TOO_MANY_REQUESTS", { retryAfterSeconds: 42 }), 0)).toBe(42_000);
    expect(nextSaveDelayMs(apiError("TOO_MANY_REQUESTS", { retryAfterSeconds: 1 }), 3)).toBe(15_000);
    expect(nextSaveDelayMs(apiError("TOO_MANY_REQUESTS"), 0)).toBe(2_000);
  });

  it("stops on any other 4xx, and backs off on server errors and lost connections", () => {
    expect(nextSaveDelayMs(apiError("UNAUTHORIZED"), 0)).toBeNull();
    expect(nextSaveDelayMs(apiError("BAD_REQUEST"), 0)).toBeNull();
    expect(nextSaveDelayMs(apiError("INTERNAL_SERVER_ERROR"), 1)).toBe(4_000);
    expect(nextSaveDelayMs(new TypeError("fetch failed"), 9)).toBe(30_000);
  });
});
