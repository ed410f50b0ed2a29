import { format, type Dictionary } from "../../i18n";
import { retryAfterMinutes, type ApiError } from "../../trpc/errors";

/** Too many attempts, in words: with the minutes to wait where the server said how long. */
export function rateLimitedText(apiError: ApiError, t: Dictionary): string {
  const minutes = retryAfterMinutes(apiError);
  return minutes ? format(t.login.rateLimitedMinutes, { minutes }) : t.login.rateLimited;
}
