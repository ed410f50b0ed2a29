"use client";

import { Card, EmptyState, Skeleton, type IconName } from "@clinsign/ui";
import type { ReactNode } from "react";
import { LoadFailed } from "./LoadFailed";
import { PageHeader } from "./PageHeader";
import { useI18n } from "../i18n/I18nProvider";
import { readApiError } from "../trpc/errors";

/** What DetailStates reads of the page's query. */
export interface DetailQuery {
  isPending: boolean;
  isFetching: boolean;
  error: unknown;
  refetch(): unknown;
}

/**
 * The loading and failure screens of a staff detail page (a submission, a signature request, a
 * document): a skeleton while it loads; "not found" for an unknown or foreign id; otherwise the
 * error with a retry. Null once the data is there.
 */
export function DetailStates({
  query,
  back,
  title,
  icon,
  notFound,
}: {
  query: DetailQuery;
  back: ReactNode;
  title: string;
  icon: IconName;
  notFound: { title: string; body?: string };
}): ReactNode {
  const { t } = useI18n();
  if (query.isPending)
    return (
      <>
        {back}
        <PageHeader title={title} />
        <Card>
          <Skeleton label={t.common.loading} lines={6} />
        </Card>
      </>
    );
  if (!query.error) return null;
  const error = readApiError(query.error);
  return (
    <>
      {back}
      {error.code === "NOT_FOUND" || error.code === "BAD_REQUEST" ? (
        <EmptyState level={1} icon={icon} title={notFound.title} description={notFound.body} />
      ) : (
        <LoadFailed query={query} />
      )}
    </>
  );
}

/** Whether a failed detail query is worth asking again: not for an unknown id. */
export const retryDetail = (count: number, error: unknown) =>
  !["NOT_FOUND", "BAD_REQUEST"].includes(readApiError(error).code ?? "") && count < 2;
