import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { eq, organizations, OrgScope, templates, type Database } from "@clinsign/db";
import { createTestDb } from "@clinsign/db/testing";
import { encodeCursor, page } from "./keyset";

let database: Database;
let mine: OrgScope;
let theirs: OrgScope;

beforeAll(async () => {
  database = await createTestDb();
  const [a, b] = await database.db
    .insert(organizations)
    .values([{ name: "Mine" }, { name: "Theirs" }])
    .returning({ id: organizations.id });
  mine = new OrgScope(database.db, a!.id);
  theirs = new OrgScope(database.db, b!.id);
  // Five rows in one millisecond (ties broken by id), one later, and another organization's newest.
  const at = new Date("2026-01-01T10:00:00.000Z");
  for (let i = 0; i < 5; i++)
    await mine.insert(templates, {
      identifier: `t${i}`,
      title: `T${i}`,
      schema: { version: 1, fields: [] },
      createdAt: at,
      updatedAt: at,
    });
  await mine.insert(templates, {
    identifier: "t5",
    title: "T5",
    schema: { version: 1, fields: [] },
    createdAt: new Date("2026-01-02T10:00:00.000Z"),
    updatedAt: new Date("2026-01-02T10:00:00.000Z"),
  });
  await theirs.insert(templates, { identifier: "x", title: "X", schema: { version: 1, fields: [] } });
}, 120_000);
afterAll(() => database?.close());

const titles = (scope: OrgScope, list: { cursor?: string | null; limit: number; sort: "newest" | "oldest" }) =>
  page(
    scope.query({ title: templates.title }).from(templates),
    [templates.createdAt, templates.id],
    list,
    (row) => row.title,
  );

describe("page(): the one keyset page of the (time, id) lists", () => {
  it("walks every row of the organization once, in either order, across ties of the time", async () => {
    for (const sort of ["newest", "oldest"] as const) {
      const seen: string[] = [];
      let cursor: string | null = null;
      for (let n = 0; n < 10; n++) {
        const got = await titles(mine, { cursor, limit: 2, sort });
        seen.push(...got.items);
        expect(got.hasMore).toBe(got.nextCursor !== null);
        cursor = got.nextCursor;
        if (!cursor) break;
      }
      expect(seen).toHaveLength(6);
      expect(new Set(seen).size).toBe(6);
      expect(seen).not.toContain("X");
      expect(sort === "newest" ? seen[0] : seen.at(-1)).toBe("T5");
    }
  });

  it("keeps the query's own conditions and answers one page with no cursor when all rows fit", async () => {
    const query = mine.query({ title: templates.title }).from(templates).where(eq(templates.identifier, "t5"));
    expect(
      await page(query, [templates.createdAt, templates.id], { limit: 10, sort: "newest" }, (r) => r.title),
    ).toEqual({ items: ["T5"], nextCursor: null, hasMore: false });
  });

  it("refuses a cursor it did not issue with 400", async () => {
    for (const cursor of ["not-a-cursor", encodeCursor(["yesterday", "x"]), encodeCursor([1])])
      await expect(titles(mine, { cursor, limit: 2, sort: "newest" })).rejects.toMatchObject({
        code: "invalid_request",
      });
  });
});
