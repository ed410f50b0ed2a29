import type { ListPage, ListSort } from "@clinsign/contracts";
import {
  asc,
  desc,
  sql,
  type Column,
  type PgColumn,
  type ProjectionRow,
  type SelectedFields,
  type SQL,
  type TenantQuery,
} from "@clinsign/db";
import { AppError } from "../errors";

/**
 * Keyset pagination for the staff lists (contract: packages/contracts/src/lists.ts).
 *
 * A page is "the rows after the last row of the previous page in the list's order", never an
 * offset: rows inserted meanwhile cannot shift or repeat rows, and every page costs one index
 * range scan however deep it is. The cursor is base64url JSON of that last row's sort key.
 */

export type CursorKey = ReadonlyArray<string | number>;

export function encodeCursor(key: CursorKey): string {
  return Buffer.from(JSON.stringify(key), "utf8").toString("base64url");
}

const invalidCursor = () =>
  new AppError("invalid_request", "cursor: is not a valid cursor (pass nextCursor of the previous page)", {
    field: "cursor",
  });

/** The key a cursor carries, checked by `parse` (which answers null for a key of the wrong shape); 400 otherwise. */
export function decodeCursor<Key>(cursor: string, parse: (parts: unknown[]) => Key | null): Key {
  let parts: unknown;
  try {
    parts = JSON.parse(Buffer.from(cursor, "base64url").toString("utf8"));
  } catch {
    throw invalidCursor();
  }
  const key = Array.isArray(parts) ? parse(parts) : null;
  if (key === null) throw invalidCursor();
  return key;
}

/**
 * `(c1, c2, …) < (v1, v2, …)` for newest first, `>` for oldest first: a row comparison that an
 * index on the same columns (after the organization) answers as one range.
 */
export function afterKey(columns: ReadonlyArray<Column | SQL>, values: ReadonlyArray<SQL>, sort: ListSort): SQL {
  const left = sql.join(
    columns.map((c) => sql`${c}`),
    sql`, `,
  );
  const right = sql.join([...values], sql`, `);
  return sort === "newest" ? sql`(${left}) < (${right})` : sql`(${left}) > (${right})`;
}

export function keyOrder(columns: ReadonlyArray<Column>, sort: ListSort): SQL[] {
  return columns.map((c) => (sort === "newest" ? desc(c) : asc(c)));
}

/** Turns `limit + 1` fetched rows into a page: one row more than asked for means there is more. */
export function toPage<Row, Item>(
  rows: Row[],
  limit: number,
  toItem: (row: Row) => Item,
  keyOf: (row: Row) => CursorKey,
): ListPage<Item> {
  const hasMore = rows.length > limit;
  const pageRows = hasMore ? rows.slice(0, limit) : rows;
  const last = pageRows[pageRows.length - 1];
  return {
    items: pageRows.map(toItem),
    nextCursor: hasMore && last !== undefined ? encodeCursor(keyOf(last)) : null,
    hasMore,
  };
}

/** A timestamp with all six fractional digits as PostgreSQL keeps them (a JS Date has three). */
export const exactTimestamp = (column: Column) =>
  sql<string>`to_char(${column} at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"')`;

const EXACT_TIMESTAMP = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{6}Z$/;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** The `[createdAt, id]` key of a cursor, or null. */
export function parseTimeIdKey(parts: unknown[]): { at: string; id: string } | null {
  const [at, id] = parts;
  if (
    parts.length !== 2 ||
    typeof at !== "string" ||
    typeof id !== "string" ||
    !EXACT_TIMESTAMP.test(at) ||
    !UUID.test(id)
  )
    return null;
  return { at, id };
}

/** The `[createdAt, seq]` key of a cursor (a time, then the row's insertion number), or null. */
export function parseTimeSeqKey(parts: unknown[]): { at: string; seq: number } | null {
  const [at, seq] = parts;
  if (parts.length !== 2 || typeof at !== "string" || !EXACT_TIMESTAMP.test(at) || parseSeqKey([seq]) === null)
    return null;
  return { at, seq: seq as number };
}

/** The `[seq]` key of a cursor, or null. */
export function parseSeqKey(parts: unknown[]): number | null {
  const [seq] = parts;
  return parts.length === 1 && typeof seq === "number" && Number.isSafeInteger(seq) && seq > 0 ? seq : null;
}

/**
 * The keyset condition of a list ordered by `(time, id)` (a uuid): rows after the cursor's row, or
 * undefined on the first page. 400 for a cursor the service did not issue.
 */
export function afterTimeIdCursor(
  columns: readonly [Column, Column],
  cursor: string | undefined,
  sort: ListSort,
): SQL | undefined {
  if (!cursor) return undefined;
  const after = decodeCursor(cursor, parseTimeIdKey);
  return afterKey(columns, [sql`${after.at}::timestamptz`, sql`${after.id}::uuid`], sort);
}

/**
 * One page of a staff list ordered by `(time, id)`: the rows of `query` (its fields, joins and
 * filters) after the cursor's row in `sort` order, at most `limit`, and the next page's cursor.
 * The one keyset page of the tenant lists; 400 for a cursor the service did not issue.
 */
export async function page<F extends SelectedFields, Nullable extends string, Item>(
  query: TenantQuery<F, Nullable>,
  key: readonly [time: PgColumn, id: PgColumn],
  list: { cursor?: string | null; limit: number; sort: ListSort },
  toItem: (row: ProjectionRow<F, Nullable>) => Item,
): Promise<ListPage<Item>> {
  const rows = await pageQuery(query, key, list);
  // The generic row type cannot see that the two added keys are text; they are.
  const keyOf = (row: unknown) => {
    const { pageKeyAt, pageKeyId } = row as { pageKeyAt: string; pageKeyId: string };
    return [pageKeyAt, pageKeyId];
  };
  return toPage(rows, list.limit, toItem, keyOf);
}

/**
 * The statement `page` runs: `query` with the cursor's key, the keyset condition, the key order
 * and `limit + 1` rows (exported so a test can ask the planner about it).
 */
export function pageQuery<F extends SelectedFields, Nullable extends string>(
  query: TenantQuery<F, Nullable>,
  key: readonly [time: PgColumn, id: PgColumn],
  list: { cursor?: string | null; limit: number; sort: ListSort },
) {
  return query
    .with({ pageKeyAt: exactTimestamp(key[0]), pageKeyId: sql<string>`${key[1]}::text` })
    .where(afterTimeIdCursor(key, list.cursor ?? undefined, list.sort))
    .orderBy(...keyOrder(key, list.sort))
    .limit(list.limit + 1);
}
