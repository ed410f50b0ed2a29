"use client";

import { Button } from "@clinsign/ui";
import styles from "./lists.module.css";

/** Below a cursor-paged list: how many rows are shown, and "Load more" while the list has more. */
export function ListPager({
  shown,
  hasMore,
  loading,
  onMore,
  labels,
}: {
  shown: string;
  hasMore: boolean;
  loading: boolean;
  onMore(): void;
  labels: { loadMore: string };
}) {
  return (
    <div className={styles.pager}>
      <span className="cs-hint" role="status">
        {shown}
      </span>
      {hasMore ? (
        <Button onClick={onMore} busy={loading}>
          {labels.loadMore}
        </Button>
      ) : null}
    </div>
  );
}
