"use client";

import { Card, Skeleton } from "@clinsign/ui";
import type { ReactNode } from "react";
import { useI18n } from "../i18n/I18nProvider";
import { LoadFailed, type RetryableQuery } from "./LoadFailed";

/** What QueryState reads of a TanStack query (its `isPending`, `data`, `error`, and the retry). */
export interface LoadingQuery<T> extends RetryableQuery {
  isPending: boolean;
  data: T | undefined;
}

/**
 * A query's screens in one place: loading (a skeleton of `lines` lines, in a card of its own
 * when `card`), failed (what went wrong and Retry), and loaded (`children` with the data).
 */
export function QueryState<T>({
  query,
  lines = 3,
  card = false,
  children,
}: {
  query: LoadingQuery<T>;
  lines?: number;
  card?: boolean;
  children(data: T): ReactNode;
}) {
  const { t } = useI18n();
  if (query.isPending) {
    const skeleton = <Skeleton label={t.common.loading} lines={lines} />;
    return card ? <Card>{skeleton}</Card> : skeleton;
  }
  if (query.error || query.data === undefined) return <LoadFailed query={query} />;
  return children(query.data);
}
