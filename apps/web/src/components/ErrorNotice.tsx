"use client";

import { Notice } from "@clinsign/ui";
import { useI18n } from "../i18n/I18nProvider";
import { describeApiError, readApiError } from "../trpc/errors";
import { errorOnAField } from "../trpc/field-errors";

/**
 * A failed call's error as an alert in the reader's language, or nothing when there is none. With
 * `fields` (a form's input keys), an error an input already shows reads "check the fields" here.
 */
export function ErrorNotice({ error, fields }: { error: unknown; fields?: readonly string[] }) {
  const { t } = useI18n();
  if (!error) return null;
  const apiError = readApiError(error);
  return (
    <Notice tone="danger" role="alert">
      {fields && errorOnAField(apiError, fields, t) ? t.validation.checkFields : describeApiError(apiError, t)}
    </Notice>
  );
}
