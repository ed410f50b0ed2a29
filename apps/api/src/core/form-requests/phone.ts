import { parsePhoneNumberFromString } from "libphonenumber-js/max";

/**
 * A mobile number in international format (+49…, or 0049…), normalised to E.164; null when it
 * is not a valid mobile number. `max` metadata is needed to tell mobile from fixed-line numbers.
 */
export function normaliseMobile(raw: string): string | null {
  const trimmed = raw.trim().replace(/^00/, "+");
  if (!trimmed.startsWith("+")) return null;
  const parsed = parsePhoneNumberFromString(trimmed);
  if (!parsed || !parsed.isValid()) return null;
  const type = parsed.getType();
  if (type !== "MOBILE" && type !== "FIXED_LINE_OR_MOBILE") return null;
  return parsed.number;
}

/** Any valid number the recipient types on the portal (national German format allowed), as E.164. */
export function normaliseEntered(raw: string): string | null {
  const parsed = parsePhoneNumberFromString(raw.trim().replace(/^00/, "+"), "DE");
  return parsed?.isValid() ? parsed.number : null;
}
