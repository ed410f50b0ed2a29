/** A date and time in the reader's locale and time zone, e.g. "21 Nov 2025, 14:05". */
export function formatDateTime(iso: string, locale: string): string {
  return new Intl.DateTimeFormat(locale, { dateStyle: "medium", timeStyle: "short" }).format(new Date(iso));
}
