"use client";

import { useMemo } from "react";
import { format } from "../../i18n";
import { useI18n } from "../../i18n/I18nProvider";
import { formatDateTime, timeZoneLabel } from "../../lib/dates";
import { useSession } from "./SessionContext";

export interface ClinicTime {
  /** The organization's time zone (IANA name, from Settings). */
  timeZone: string;
  /** "21 Nov 2025, 14:05" on the clinic's clock. */
  dateTime(iso: string): string;
  /** "21 Nov 2025, 14:05 CET": the same with the zone's short name, for a detail's facts. */
  dateTimeWithZone(iso: string): string;
  /** "Times in the clinic's time zone: Central European Time (Europe/Berlin)", for a list. */
  note: string;
}

/**
 * Dates and times in the console: on the clinic's clock (Settings → time zone), never the
 * reader's, so a list and a detail page say the same time for the same moment (issue 31: lists
 * used the browser's zone, detail pages the clinic's). Lists say which zone in `note`.
 */
export function useClinicTime(): ClinicTime {
  const { t, locale } = useI18n();
  const { timeZone } = useSession().organization;
  return useMemo(
    () => ({
      timeZone,
      dateTime: (iso: string) => formatDateTime(iso, locale, timeZone),
      dateTimeWithZone: (iso: string) => formatDateTime(iso, locale, timeZone, true),
      note: format(t.clinicTime.note, { zone: timeZoneLabel(timeZone, locale) }),
    }),
    [t, locale, timeZone],
  );
}
