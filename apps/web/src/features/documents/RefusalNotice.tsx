"use client";

import { Notice } from "@clinsign/ui";
import { useI18n } from "../../i18n/I18nProvider";
import { describeApiError, readApiError } from "../../trpc/errors";

/**
 * A refused document change as an alert, or nothing when there is none. Invalid input shows the
 * API's own message (it names what is wrong with the document, which no generic text can).
 */
export function RefusalNotice({ error }: { error: unknown }) {
  const { t } = useI18n();
  if (!error) return null;
  const apiError = readApiError(error);
  return (
    <Notice tone="danger" role="alert">
      {apiError.code === "BAD_REQUEST" ? apiError.message : describeApiError(apiError, t)}
    </Notice>
  );
}
