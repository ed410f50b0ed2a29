import { act, cleanup, fireEvent, render, renderHook, screen } from "@testing-library/react";
import { afterEach, describe, expect, it, vi } from "vitest";
import { StaffListCard } from "./StaffListCard";
import { keysetPaging, useStaffList, type KeysetPage, type KeysetQuery } from "./useStaffList";

afterEach(cleanup);

type Row = { id: string };

/** An infinite query as TanStack Query reports it, with spies for paging and retry. */
function query(overrides: Partial<KeysetQuery<KeysetPage<Row>>> = {}): KeysetQuery<KeysetPage<Row>> {
  return {
    data: undefined,
    isPending: false,
    isFetching: false,
    isFetchingNextPage: false,
    hasNextPage: false,
    error: null,
    refetch: vi.fn(),
    fetchNextPage: vi.fn(),
    ...overrides,
  };
}

const pages = (...ids: string[][]) => ({
  pages: ids.map((page, index) => ({
    items: page.map((id) => ({ id })),
    nextCursor: index < ids.length - 1 ? `cursor-${index}` : null,
  })),
});

describe("keysetPaging", () => {
  it("asks for the page after a page's cursor, and for none after the last", () => {
    expect(keysetPaging.getNextPageParam({ nextCursor: "abc" })).toBe("abc");
    expect(keysetPaging.getNextPageParam({ nextCursor: null })).toBeUndefined();
    expect(keysetPaging.getNextPageParam({})).toBeUndefined();
  });
});

describe("useStaffList", () => {
  it("shows the loading state until the first page is there", () => {
    const { result } = renderHook(() => useStaffList(query({ isPending: true })));
    expect(result.current.state).toBe("loading");
    expect(result.current.rows).toEqual([]);
  });

  it("puts the pages' rows one after the other", () => {
    const { result } = renderHook(() => useStaffList(query({ data: pages(["a", "b"], ["c"]), hasNextPage: true })));
    expect(result.current.state).toBe("ready");
    expect(result.current.rows.map((row) => row.id)).toEqual(["a", "b", "c"]);
    expect(result.current.hasMore).toBe(true);
  });

  it("is empty when the first page has no rows, and failed when the query failed", () => {
    expect(renderHook(() => useStaffList(query({ data: pages([]) }))).result.current.state).toBe("empty");
    expect(
      renderHook(() => useStaffList(query({ data: pages(["a"]), error: new Error("boom") }))).result.current.state,
    ).toBe("failed");
  });

  it("loads the next page only when there is one and it is not already on its way", () => {
    const more = query({ data: pages(["a"]), hasNextPage: true });
    renderHook(() => useStaffList(more)).result.current.loadMore();
    expect(more.fetchNextPage).toHaveBeenCalledTimes(1);

    const busy = query({ data: pages(["a"]), hasNextPage: true, isFetchingNextPage: true });
    renderHook(() => useStaffList(busy)).result.current.loadMore();
    const last = query({ data: pages(["a"]), hasNextPage: false });
    renderHook(() => useStaffList(last)).result.current.loadMore();
    expect(busy.fetchNextPage).not.toHaveBeenCalled();
    expect(last.fetchNextPage).not.toHaveBeenCalled();
  });

  it("keeps the same rows while the pages do not change", () => {
    const q = query({ data: pages(["a"]) });
    const { result, rerender } = renderHook(() => useStaffList(q));
    const first = result.current.rows;
    rerender();
    expect(result.current.rows).toBe(first);
  });
});

describe("StaffListCard", () => {
  const labels = { loading: "Loading", shown: (count: number) => `${count} shown`, loadMore: "Load more" };
  const props = {
    title: "Documents",
    caption: "Documents",
    columns: [{ key: "id", header: "Id", render: (row: Row) => row.id }],
    rowKey: (row: Row) => row.id,
    empty: <p>Nothing yet</p>,
    failed: <p>Could not load</p>,
    labels,
  };

  function Card({ q }: { q: KeysetQuery<KeysetPage<Row>> }) {
    return <StaffListCard {...props} list={useStaffList(q)} />;
  }

  it("shows each state's face", () => {
    const { rerender } = render(<Card q={query({ isPending: true })} />);
    expect(screen.getByRole("status", { name: "Loading" })).toBeTruthy();
    rerender(<Card q={query({ data: pages([]) })} />);
    expect(screen.getByText("Nothing yet")).toBeTruthy();
    rerender(<Card q={query({ error: new Error("boom") })} />);
    expect(screen.getByText("Could not load")).toBeTruthy();
  });

  it("shows the rows, how many, and 'Load more' that asks for the next page", async () => {
    const q = query({ data: pages(["a", "b"], ["c"]), hasNextPage: true });
    render(<Card q={q} />);
    expect(screen.getByRole("heading", { name: "Documents" })).toBeTruthy();
    expect(screen.getAllByRole("row")).toHaveLength(4);
    expect(screen.getByText("3 shown")).toBeTruthy();
    await act(async () => fireEvent.click(screen.getByRole("button", { name: "Load more" })));
    expect(q.fetchNextPage).toHaveBeenCalledTimes(1);
  });

  it("has no 'Load more' on the last page", () => {
    render(<Card q={query({ data: pages(["a"]) })} />);
    expect(screen.queryByRole("button", { name: "Load more" })).toBeNull();
  });
});
