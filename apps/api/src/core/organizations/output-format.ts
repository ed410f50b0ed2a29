import { wallClockAt, type OrganizationLocale } from "@clinsign/contracts";
import { parsePhoneNumberFromString, type CountryCode } from "libphonenumber-js/max";
import type { OrgContext } from "../context";

/**
 * How the clinic's outputs are written (CSV exports, the submission detail): in the
 * organization's language and time zone, with its own phone numbers in national format. Staff
 * read these, and so do the spreadsheets they open them in.
 */
export interface OutputFormat {
  locale: OrganizationLocale;
  timeZone: string;
  phoneCountry: string;
}

/** English and the UTC clock: what an output says when nobody chose otherwise (tests, tools). */
export const NEUTRAL_OUTPUT: OutputFormat = { locale: "en", timeZone: "UTC", phoneCountry: "DE" };

export async function loadOutputFormat(ctx: OrgContext): Promise<OutputFormat> {
  const { locale, timeZone, phoneCountry } = await ctx.scope.organization();
  return { locale, timeZone, phoneCountry };
}

const TEXTS = {
  de: { yes: "ja", no: "nein", signature: "[Unterschrift]" },
  en: { yes: "yes", no: "no", signature: "[signature image]" },
} satisfies Record<OrganizationLocale, Record<string, string>>;

export const outputTexts = (format: OutputFormat) => TEXTS[format.locale];

/**
 * A moment as a spreadsheet in that language reads it as a date and time: `01.03.2024 14:05:09`
 * in German, `2024-03-01 14:05:09` in English, on the clinic's wall clock.
 */
export function outputDateTime(date: Date, format: OutputFormat): string {
  const p = wallClockAt(date, format.timeZone);
  const time = `${p.hour}:${p.minute}:${p.second}`;
  return format.locale === "de" ? `${p.day}.${p.month}.${p.year} ${time}` : `${p.year}-${p.month}-${p.day} ${time}`;
}

const CALENDAR_DATE = /^(\d{4})-(\d{2})-(\d{2})$/;

/** A calendar date answer (`2024-03-01`, no time zone of its own): `01.03.2024` in German. */
export function outputDate(value: string, format: OutputFormat): string {
  const match = CALENDAR_DATE.exec(value);
  if (!match) return value;
  return format.locale === "de" ? `${match[3]}.${match[2]}.${match[1]}` : value;
}

/** A phone number of the clinic's own country in national format (`0170 1234567`), others as `+43 660 1234567`. */
export function outputPhone(value: string, format: OutputFormat): string {
  const parsed = parsePhoneNumberFromString(value, format.phoneCountry as CountryCode);
  if (!parsed?.isValid()) return value;
  return parsed.country === format.phoneCountry ? parsed.formatNational() : parsed.formatInternational();
}
