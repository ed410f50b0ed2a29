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
