"use client";

import type { FieldMarks } from "@clinsign/ui";
import { useMemo } from "react";
import { useI18n } from "../i18n/I18nProvider";

/**
 * How a console form marks its required fields: a red "*" after the label, read as "required"
 * (the patient forms' own word), through Field's `marks`. Issue 31: "Institution ID" was required
 * and not marked, while the optional fields beside it said "(optional)".
 */
export function useFieldMarks(): { marks: FieldMarks; note: string } {
  const { t } = useI18n();
  return useMemo(() => ({ marks: { required: t.forms.requiredMark }, note: t.fieldMarks.requiredNote }), [t]);
}
