import { useMemo } from "react";

/** One page of a keyset-paged list, as every staff list procedure returns it. */
export interface KeysetPage<Item> {
  items: readonly Item[];
  nextCursor?: string | null;
}

/** What useStaffList reads of a cursor-paged (infinite) query, e.g. TanStack Query's useInfiniteQuery. */
export interface KeysetQuery<Page> {
  data?: { pages: readonly Page[] } | undefined;
  isPending: boolean;
  isFetching: boolean;
  isFetchingNextPage: boolean;
  hasNextPage: boolean;
  error: unknown;
  refetch(): unknown;
  fetchNextPage(): unknown;
}

/** The next page's cursor of a keyset page: pass as the infinite query's options (`getNextPageParam`). */
export const keysetPaging = {
  getNextPageParam: (page: { nextCursor?: string | null }) => page.nextCursor ?? undefined,
};

/** Which of its four faces a staff list shows. */
export type StaffListState = "loading" | "failed" | "empty" | "ready";

export interface StaffList<Item> {
  /** Every loaded page's items, in order. */
  rows: readonly Item[];
  state: StaffListState;
  hasMore: boolean;
  loadingMore: boolean;
  /** Asks for the next page, unless there is none or it is already on its way. */
  loadMore(): void;
  /** The query itself, for the failure's message and its retry. */
  query: KeysetQuery<KeysetPage<Item>>;
}

/**
 * The one list contract of the staff console: the rows of a keyset-paged query, which state to
 * show (loading, failed, empty, the rows) and "load more". Filters and search stay in the query's
 * input (the URL, see the web app's useUrlFilters), so a new filter starts again from the first page.
 */
export function useStaffList<Item>(query: KeysetQuery<KeysetPage<Item>>): StaffList<Item> {
  const pages = query.data?.pages;
  const rows = useMemo(() => pages?.flatMap((page) => page.items) ?? [], [pages]);
  const state: StaffListState = query.isPending
    ? "loading"
    : query.error
      ? "failed"
      : rows.length === 0
        ? "empty"
        : "ready";
  return {
    rows,
    state,
    hasMore: query.hasNextPage,
    loadingMore: query.isFetchingNextPage,
    loadMore() {
      if (query.hasNextPage && !query.isFetchingNextPage) void query.fetchNextPage();
    },
    query,
  };
}
