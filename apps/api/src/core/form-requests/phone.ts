import { isSupportedCountry, parsePhoneNumberFromString, type CountryCode } from "libphonenumber-js/max";

/** The organization's phone country as libphonenumber knows it; DE when the stored value is not one. */
export function phoneCountryOf(code: string | null | undefined): CountryCode {
  const upper = (code ?? "").toUpperCase();
  return isSupportedCountry(upper) ? upper : "DE";
}

/**
 * A mobile number, normalised to E.164; null when it is not a valid mobile number. International
 * (+49…, 0049…) or national ("0170 7654321", read as a number of `country`, the organization's
 * phone country). `max` metadata is needed to tell mobile from fixed-line numbers.
 */
export function normaliseMobile(raw: string, country: string): string | null {
  const parsed = parsePhoneNumberFromString(raw.trim().replace(/^00/, "+"), phoneCountryOf(country));
  if (!parsed || !parsed.isValid()) return null;
  const type = parsed.getType();
  if (type !== "MOBILE" && type !== "FIXED_LINE_OR_MOBILE") return null;
  return parsed.number;
}

/** Any valid number the recipient types on the SMS form (national format of `country` allowed), as E.164. */
export function normaliseEntered(raw: string, country: string): string | null {
  const parsed = parsePhoneNumberFromString(raw.trim().replace(/^00/, "+"), phoneCountryOf(country));
  return parsed?.isValid() ? parsed.number : null;
}
