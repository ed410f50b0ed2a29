// The subpath, not the package's index: the patient pages format dates too, and the index would
// bring every schema into their first load (e2e page-weight.spec.ts).
import { wallClockAt } from "@clinsign/contracts/wall-clock";

/**
 * A date and time in the reader's locale, e.g. "21 Nov 2025, 14:05": on the reader's clock, or
 * on `timeZone`'s (the clinic's) when given, with the zone's short name when `showZone` is set.
 */
export function formatDateTime(iso: string, locale: string, timeZone?: string, showZone = false): string {
  if (!showZone)
    return new Intl.DateTimeFormat(locale, {
      dateStyle: "medium",
      timeStyle: "short",
      ...(timeZone && { timeZone }),
    }).format(new Date(iso));
  return new Intl.DateTimeFormat(locale, {
    year: "numeric",
    month: "short",
    day: "numeric",
    hour: "2-digit",
    minute: "2-digit",
    timeZoneName: "short",
    ...(timeZone && { timeZone }),
  }).format(new Date(iso));
}

/**
 * A time zone as people read it: its generic name in the reader's language and its IANA name,
 * e.g. "Mitteleuropäische Zeit (Europe/Berlin)"; the IANA name alone where the language has no
 * name for it but an offset (UTC).
 */
export function timeZoneLabel(timeZone: string, locale: string): string {
  const name = new Intl.DateTimeFormat(locale, { timeZone, timeZoneName: "longGeneric" })
    .formatToParts(new Date())
    .find((part) => part.type === "timeZoneName")?.value;
  // "GMT+00:00" for UTC says less than the IANA name.
  return name && name !== timeZone && !/^(GMT|UTC)/.test(name) ? `${name} (${timeZone})` : timeZone;
}

/** What a clock in `timeZone` shows at `date`, as numbers. */
function wallClock(date: Date, timeZone: string) {
  const shown = wallClockAt(date, timeZone);
  return {
    year: Number(shown.year),
    month: Number(shown.month),
    day: Number(shown.day),
    hour: Number(shown.hour),
    minute: Number(shown.minute),
    second: Number(shown.second),
  };
}

/** The calendar day (YYYY-MM-DD, a date input's value) of an instant on `timeZone`'s clock. */
export function dayIn(iso: string, timeZone: string): string {
  const { year, month, day } = wallClock(new Date(iso), timeZone);
  const pad = (n: number) => String(n).padStart(2, "0");
  return `${year}-${pad(month)}-${pad(day)}`;
}

/** Today plus `days` on `timeZone`'s clock, as a date input's value. */
export function dayFromNowIn(days: number, timeZone: string, now = new Date()): string {
  const [year, month, day] = dayIn(now.toISOString(), timeZone).split("-").map(Number);
  return new Date(Date.UTC(year!, month! - 1, day! + days)).toISOString().slice(0, 10);
}

/**
 * An expiry chosen as a day: the instant at which `timeZone`'s clock shows `day` (YYYY-MM-DD) at
 * 23:59:59, as ISO, so "expires on the 31st" keeps a link open through the 31st on the clinic's
 * clock whatever the reader's computer says. Undefined for anything that is not such a day. Two
 * corrections find the zone's offset on that evening (clocks change at night, not at 23:59).
 */
export function endOfDayIn(day: string, timeZone: string): string | undefined {
  const match = /^(\d{4})-(\d{2})-(\d{2})$/.exec(day);
  if (!match) return undefined;
  const wanted = Date.UTC(Number(match[1]), Number(match[2]) - 1, Number(match[3]), 23, 59, 59);
  if (Number.isNaN(wanted) || dayIn(new Date(wanted).toISOString(), "UTC") !== day) return undefined;
  let instant = wanted;
  for (let i = 0; i < 2; i++) {
    const shown = wallClock(new Date(instant), timeZone);
    instant += wanted - Date.UTC(shown.year, shown.month - 1, shown.day, shown.hour, shown.minute, shown.second);
  }
  return new Date(instant).toISOString();
}
