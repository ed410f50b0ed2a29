import { z } from "zod";
import { isoDateTime, listLimit } from "./common";

/**
 * The one contract of every staff list (submissions, audit log, …): filters, a sort where it
 * makes sense, and keyset pagination with an opaque cursor.
 *
 * - `cursor` is what the previous page returned as `nextCursor`; clients never build or read it.
 *   It encodes the last row's sort key (e.g. `[createdAt, id]`), so a page continues after that
 *   row whatever was inserted meanwhile. A cursor the service did not issue is a 400.
 * - `limit`: 50 by default, at most 200.
 * - The answer: `items`, `nextCursor` (null on the last page) and `hasMore`.
 *
 * The documented REST lists (F12, F13) keep their own limits; this contract is for the staff UI.
 */

export const LIST_DEFAULT_LIMIT = 50;
export const LIST_MAX_LIMIT = 200;

/** base64url text, as the service issues it. */
export const listCursor = z
  .string()
  .min(1, { message: "is not a valid cursor" })
  .max(512, { message: "is not a valid cursor" })
  .regex(/^[A-Za-z0-9_-]+$/, { message: "is not a valid cursor" });

export const listSort = z.enum(["newest", "oldest"]);
export type ListSort = z.infer<typeof listSort>;

/** What every staff list takes besides its own filters. */
export const listPaging = {
  cursor: listCursor.optional(),
  limit: listLimit(LIST_DEFAULT_LIMIT, LIST_MAX_LIMIT),
  sort: listSort.default("newest"),
};

/** A list input: the paging fields plus the list's own filters. */
export function listInput<Filters extends z.ZodRawShape>(filters: Filters) {
  return z.object({ ...listPaging, ...filters });
}

/** A time range filter: `from` inclusive, `to` exclusive, both ISO 8601 with an offset. */
export const createdRange = {
  createdFrom: isoDateTime.optional(),
  createdTo: isoDateTime.optional(),
};

/** A list filter by patient number (R-Nummer), as staff type it. */
export const rnummerFilter = z
  .string()
  .trim()
  .min(1, { message: "is required" })
  .max(64, { message: "must be at most 64 characters" })
  .optional();

/** One page of a list. */
export function listPage<Item extends z.ZodType>(item: Item) {
  return z.object({ items: z.array(item), nextCursor: z.string().nullable(), hasMore: z.boolean() });
}

export interface ListPage<Item> {
  items: Item[];
  nextCursor: string | null;
  hasMore: boolean;
}
