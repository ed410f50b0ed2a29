import type { ReactNode } from "react";
import { Button } from "../Button";
import { Card, type CardProps } from "../Card";
import { Skeleton } from "../Skeleton";
import { Table, type TableColumn } from "../Table";
import type { StaffList } from "./useStaffList";

export interface StaffListLabels {
  loading: string;
  /** "12 shown": below the table, a polite status. */
  shown(count: number): string;
  loadMore: string;
}

export interface StaffListBodyProps<Row> {
  list: StaffList<Row>;
  caption: string;
  columns: ReadonlyArray<TableColumn<Row>>;
  rowKey(row: Row): string;
  rowMuted?(row: Row): boolean;
  /** What an empty list says (filtered or not: the caller knows). */
  empty: ReactNode;
  /** What a failed list says, with its retry. */
  failed: ReactNode;
  labels: StaffListLabels;
  skeletonLines?: number;
}

/** A staff list's body: loading, failed, empty, or the table with how many are shown and "Load more". */
export function StaffListBody<Row>({
  list,
  caption,
  columns,
  rowKey,
  rowMuted,
  empty,
  failed,
  labels,
  skeletonLines = 4,
}: StaffListBodyProps<Row>) {
  switch (list.state) {
    case "loading":
      return (
        <div className="cs-card__body">
          <Skeleton label={labels.loading} lines={skeletonLines} />
        </div>
      );
    case "failed":
      return <>{failed}</>;
    case "empty":
      return <>{empty}</>;
    case "ready":
      return (
        <>
          <div className="cs-list__table">
            <Table caption={caption} columns={columns} rows={list.rows} rowKey={rowKey} rowMuted={rowMuted} />
          </div>
          <div className="cs-list__pager">
            <span className="cs-hint" role="status">
              {labels.shown(list.rows.length)}
            </span>
            {list.hasMore ? (
              <Button onClick={list.loadMore} busy={list.loadingMore}>
                {labels.loadMore}
              </Button>
            ) : null}
          </div>
        </>
      );
  }
}

export interface StaffListCardProps<Row>
  extends Omit<StaffListBodyProps<Row>, "caption">, Pick<CardProps, "description" | "actions" | "className"> {
  title?: string;
  /** The table's caption for screen readers; the card's title when left out. */
  caption?: string;
  /** Inside the card above the list: a search box, a status line. */
  toolbar?: ReactNode;
}

/** The card of a staff list page: its title and actions, an optional toolbar, and the list's body. */
export function StaffListCard<Row>({
  title,
  description,
  actions,
  className,
  toolbar,
  caption = title ?? "",
  ...body
}: StaffListCardProps<Row>) {
  return (
    <Card title={title} description={description} actions={actions} className={className} flush>
      {toolbar}
      <StaffListBody caption={caption} {...body} />
    </Card>
  );
}
