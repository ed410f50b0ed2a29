"use client";

import { Button, Notice } from "@clinsign/ui";
import { useI18n } from "../i18n/I18nProvider";
import { describeApiError, readApiError } from "../trpc/errors";

/** What LoadFailed reads of the query that failed. */
export interface RetryableQuery {
  error: unknown;
  isFetching: boolean;
  refetch(): unknown;
}

/** A query that could not load: what went wrong, in the reader's language, and a retry button. */
export function LoadFailed({ query, className = "cs-stack" }: { query: RetryableQuery; className?: string }) {
  const { t } = useI18n();
  return (
    <div className={className}>
      <Notice tone="danger" role="alert" title={t.errors.loadFailed}>
        {describeApiError(readApiError(query.error), t)}
      </Notice>
      <div>
        <Button onClick={() => query.refetch()} busy={query.isFetching}>
          {t.common.retry}
        </Button>
      </div>
    </div>
  );
}
