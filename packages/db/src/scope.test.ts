import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { alias } from "drizzle-orm/pg-core";
import { asc, eq, organizations, OrgScope, sql, templates, users, type Database } from "./index";
import { createTestDb } from "./testing";

let database: Database;
let a: OrgScope;
let b: OrgScope;

const schema = { version: 1, fields: [] };

beforeAll(async () => {
  database = await createTestDb();
  const [orgA, orgB] = await database.db
    .insert(organizations)
    .values([{ name: "Klinik A" }, { name: "Klinik B" }])
    .returning({ id: organizations.id });
  a = new OrgScope(database.db, orgA!.id);
  b = new OrgScope(database.db, orgB!.id);
  await a.insert(templates, [
    { identifier: "intake", title: "A intake", schema },
    { identifier: "consent", title: "A consent", schema },
  ]);
  await b.insert(templates, { identifier: "intake", title: "B intake", schema });
});
afterAll(() => database?.close());

describe("OrgScope.query: projections and joins that stay in the organization", () => {
  it("filters the first table by the organization", async () => {
    const rows = await a.query({ title: templates.title }).from(templates).orderBy(asc(templates.title));
    expect(rows).toEqual([{ title: "A consent" }, { title: "A intake" }]);
  });

  it("adds the organization to a joined tenant table's condition, so a join cannot reach another one", async () => {
    // Joined by identifier only: without the scope's own filter, A's "intake" would meet B's.
    const other = alias(templates, "other");
    const inner = await a
      .query({ title: templates.title, otherTitle: other.title })
      .from(templates)
      .innerJoin(other, eq(other.identifier, templates.identifier))
      .where(eq(templates.identifier, "intake"));
    expect(inner).toEqual([{ title: "A intake", otherTitle: "A intake" }]);

    const left = await b
      .query({ title: templates.title, otherTitle: other.title })
      .from(templates)
      .leftJoin(other, sql`${other.identifier} = ${templates.identifier} and ${other.title} <> ${templates.title}`);
    expect(left).toEqual([{ title: "B intake", otherTitle: null }]);
  });

  it("joins a table of no organization only through the scoped row", async () => {
    const rows = await a
      .query({ title: templates.title, email: users.email })
      .from(templates)
      .leftJoin(users, sql`false`)
      .where(eq(templates.identifier, "consent"));
    expect(rows).toEqual([{ title: "A consent", email: null }]);
  });

  it("adds fields with `with` and keeps conditions added by repeated `where` calls", async () => {
    const rows = await a
      .query({ id: templates.id })
      .from(templates)
      .where(eq(templates.identifier, "intake"))
      .with({ title: templates.title })
      .where(sql`${templates.title} like 'A%'`);
    expect(rows.map((r) => r.title)).toEqual(["A intake"]);
  });

  it("reads and changes only the organization's own row", async () => {
    expect((await a.organization()).name).toBe("Klinik A");
    await b.updateOrganization({ name: "Klinik B2" });
    expect((await a.organization()).name).toBe("Klinik A");
    expect((await b.organization()).name).toBe("Klinik B2");
  });
});

describe("OrgScope.afterCommit", () => {
  it("runs effects once the outermost transaction commits, in order, and nested ones with them", async () => {
    const seen: string[] = [];
    await a.transaction(async (tx) => {
      await tx.afterCommit(() => void seen.push("first"));
      await tx.transaction(async (inner) => {
        await inner.afterCommit(() => void seen.push("nested"));
      });
      seen.push("work done");
    });
    expect(seen).toEqual(["work done", "first", "nested"]);
  });

  it("drops the effects of a transaction that rolls back", async () => {
    const seen: string[] = [];
    await expect(
      a.transaction(async (tx) => {
        await tx.insert(templates, { identifier: "rolled-back", title: "gone", schema });
        await tx.afterCommit(() => void seen.push("should not run"));
        throw new Error("abort");
      }),
    ).rejects.toThrow("abort");
    expect(seen).toEqual([]);
    expect(await a.select(templates, eq(templates.identifier, "rolled-back"))).toEqual([]);
  });

  it("runs an effect at once outside a transaction", async () => {
    const seen: string[] = [];
    await a.afterCommit(() => void seen.push("now"));
    expect(seen).toEqual(["now"]);
  });
});

describe("OrgScope.lock", () => {
  it("serialises two transactions of one organization on the same key", async () => {
    const order: string[] = [];
    let releaseFirst!: () => void;
    const firstHolds = new Promise<void>((resolve) => (releaseFirst = resolve));
    let firstLocked!: () => void;
    const locked = new Promise<void>((resolve) => (firstLocked = resolve));
    const first = a.transaction(async (tx) => {
      await tx.lock("uploads:x");
      firstLocked();
      await firstHolds;
      order.push("first");
    });
    await locked;
    const second = a.transaction(async (tx) => {
      await tx.lock("uploads:x");
      order.push("second");
    });
    // PGlite runs one statement at a time, so the second waits either way; on PostgreSQL the lock does it.
    setTimeout(releaseFirst, 50);
    await Promise.all([first, second]);
    expect(order).toEqual(["first", "second"]);
  });
});
