import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  createDb,
  desc,
  eq,
  openDb,
  OrgScope,
  organizations,
  rowsOf,
  scopedQuery,
  scopedStatement,
  sql,
  templates,
  type Database,
} from "./index";
import { createTestDb } from "./testing";

let database: Awaited<ReturnType<typeof createTestDb>>;
let orgA: string;
let orgB: string;

beforeAll(async () => {
  database = await createTestDb();
  const rows = await database.db
    .insert(organizations)
    .values([{ name: "A" }, { name: "B" }])
    .returning({ id: organizations.id });
  [orgA, orgB] = rows.map((r) => r.id) as [string, string];
});
afterAll(() => database?.close());

const schema = { version: 1, fields: [] };

describe(`createDb on ${process.env.DATABASE_URL ? "PostgreSQL" : "PGlite"}`, () => {
  it("applies every migration and reports ready", async () => {
    expect(await database.ready()).toEqual({ reachable: true, migrationsCurrent: true });
    // Migrating again is a no-op, so every start may call it.
    await database.migrate();
    expect(await database.ready()).toEqual({ reachable: true, migrationsCurrent: true });
  });

  it("gives each test a migrated copy: what one database holds, the next one made never sees", async () => {
    const first = await createTestDb();
    const second = await createTestDb();
    try {
      await first.db.insert(organizations).values({ name: "only in the first" });
      expect(await first.ready()).toEqual({ reachable: true, migrationsCurrent: true });
      expect(await second.ready()).toEqual({ reachable: true, migrationsCurrent: true });
      const third = await createTestDb();
      for (const copy of [second, third])
        expect(await copy.db.select().from(organizations).where(eq(organizations.name, "only in the first"))).toEqual(
          [],
        );
      await third.close();
    } finally {
      await first.close();
      await second.close();
    }
  });

  it("reports migrations as not current on an empty database", async () => {
    const fresh = await createTestDb();
    await fresh.db.execute(sql`drop schema drizzle cascade`);
    expect(await fresh.ready()).toEqual({ reachable: true, migrationsCurrent: false });
    await fresh.close();
  });
});

describe.skipIf(process.env.DATABASE_URL)("openDb on a PGlite data directory", () => {
  it("creates the cluster out of process, opens it with the small-server settings, and reopens it", async () => {
    const dir = mkdtempSync(join(tmpdir(), "clinsign-db-test-"));
    const dataDir = join(dir, "pglite");
    try {
      const first = await openDb({ dataDir });
      expect(existsSync(join(dataDir, "PG_VERSION"))).toBe(true);
      await first.migrate();
      await first.db.insert(organizations).values({ name: "kept" });
      const settings = rowsOf<{ name: string; setting: string }>(
        await first.db.execute(
          sql`select name, setting from pg_settings where name in ('shared_buffers', 'max_connections') order by name`,
        ),
      );
      // shared_buffers is counted in 8 kB pages: 2048 pages = 16 MB.
      expect(settings).toEqual([
        { name: "max_connections", setting: "10" },
        { name: "shared_buffers", setting: "2048" },
      ]);
      await first.close();

      const again = await openDb({ dataDir });
      expect(await again.ready()).toEqual({ reachable: true, migrationsCurrent: true });
      expect(await again.db.select({ name: organizations.name }).from(organizations)).toEqual([{ name: "kept" }]);
      await again.close();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
    // Two PGlite starts and a migration run: slow on a busy 2-core machine.
  }, 120_000);
});

describe("OrgScope keeps every query inside its organization", () => {
  it("inserts with the scope's organization and reads only its rows", async () => {
    const a = new OrgScope(database.db, orgA);
    const b = new OrgScope(database.db, orgB);
    await a.insert(templates, { identifier: "shared-id", title: "A's", schema });
    await b.insert(templates, { identifier: "shared-id", title: "B's", schema });
    const fromA = await a.select(templates, eq(templates.identifier, "shared-id"));
    expect(fromA.map((t) => [t.title, t.organizationId])).toEqual([["A's", orgA]]);
  });

  it("cannot change or delete another organization's rows", async () => {
    const a = new OrgScope(database.db, orgA);
    const b = new OrgScope(database.db, orgB);
    await b.insert(templates, { identifier: "b-only", title: "B only", schema });
    expect(await a.update(templates, { title: "hijacked" }, eq(templates.identifier, "b-only")).returning()).toEqual(
      [],
    );
    expect(await a.delete(templates, eq(templates.identifier, "b-only")).returning()).toEqual([]);
    const [row] = await b.select(templates, eq(templates.identifier, "b-only"));
    expect(row!.title).toBe("B only");
  });

  it("runs a prepared tenant query for the scope's own organization only", async () => {
    const titles = scopedQuery("test_titles", (db, organizationId) =>
      db
        .select({ title: templates.title })
        .from(templates)
        .where(eq(templates.organizationId, organizationId))
        .orderBy(desc(templates.title))
        .limit(sql.placeholder("limit")),
    );
    const a = new OrgScope(database.db, orgA);
    const b = new OrgScope(database.db, orgB);
    await a.insert(templates, { identifier: "prepared-a", title: "prepared A", schema });
    await b.insert(templates, { identifier: "prepared-b", title: "prepared B", schema });
    const fromA = (await a.run(titles, { limit: 100 })).map((row) => row.title);
    const fromB = (await b.run(titles, { limit: 100 })).map((row) => row.title);
    expect(fromA).toContain("prepared A");
    expect(fromA).not.toContain("prepared B");
    expect(fromB).toContain("prepared B");
    expect(fromB).not.toContain("prepared A");
    // A caller's values cannot replace the scope's organization.
    expect((await a.run(titles, { limit: 100, organizationId: orgB })).map((row) => row.title)).toEqual(fromA);
    expect(await a.run(titles, { limit: 1 })).toHaveLength(1);
  });

  it("refuses a prepared tenant query that does not filter by the organization", async () => {
    const everything = scopedQuery("test_unscoped", (db) => db.select({ title: templates.title }).from(templates));
    await expect(() => new OrgScope(database.db, orgA).run(everything)).toThrow(/does not filter by the organization/);
  });

  it("runs a statement built once with the scope's organization and the caller's values, and refuses one without it", async () => {
    const titles = scopedStatement<{ title: string }>(
      "test_statement_titles",
      (organizationId) =>
        sql`select title from ${templates} where organization_id = ${organizationId} and identifier like ${sql.placeholder("pattern")} order by title`,
    );
    const a = new OrgScope(database.db, orgA);
    const b = new OrgScope(database.db, orgB);
    await a.insert(templates, { identifier: "once-a", title: "once A", schema });
    await b.insert(templates, { identifier: "once-b", title: "once B", schema });
    expect(await a.run(titles, { pattern: "once-%" })).toEqual([{ title: "once A" }]);
    expect(await b.run(titles, { pattern: "once-%" })).toEqual([{ title: "once B" }]);
    // A caller's values cannot replace the scope's organization.
    expect(await a.run(titles, { pattern: "once-%", organizationId: orgB })).toEqual([{ title: "once A" }]);
    const unscoped = scopedStatement("test_statement_unscoped", () => sql`select title from ${templates}`);
    await expect(() => a.run(unscoped)).toThrow(/does not filter by the organization/);
  });

  it("runs a statement the builders cannot write with the scope's organization, and refuses one without it", async () => {
    const a = new OrgScope(database.db, orgA);
    const b = new OrgScope(database.db, orgB);
    await a.insert(templates, { identifier: "statement-a", title: "statement A", schema });
    await b.insert(templates, { identifier: "statement-b", title: "statement B", schema });
    const titles = (scope: OrgScope) =>
      scope.execute<{ title: string }>(
        (organizationId) =>
          sql`select title from ${templates} where organization_id = ${organizationId} and identifier like 'statement-%'`,
      );
    expect((await titles(a)).map((row) => row.title)).toEqual(["statement A"]);
    expect((await titles(b)).map((row) => row.title)).toEqual(["statement B"]);
    // Nested fragments count; a statement that never uses the organization it was given does not run.
    expect(
      await a.execute<{ n: number }>(
        (organizationId) =>
          sql`select count(*)::int as n from ${templates} where ${sql`organization_id = ${organizationId}`} and identifier = 'statement-a'`,
      ),
    ).toEqual([{ n: 1 }]);
    await expect(a.execute(() => sql`select title from ${templates}`)).rejects.toThrow(
      /must filter by the organization/,
    );
    await expect(
      a.execute(() => sql`select title from ${templates} where organization_id = ${orgA}::uuid`),
    ).rejects.toThrow(/must filter by the organization/);
  });

  it("rolls a transaction back as a whole and keeps the scope inside it", async () => {
    const a = new OrgScope(database.db, orgA);
    await expect(
      a.transaction(async (tx) => {
        expect(tx.organizationId).toBe(orgA);
        await tx.insert(templates, { identifier: "rolled-back", title: "never", schema });
        throw new Error("abort");
      }),
    ).rejects.toThrow("abort");
    expect(await a.select(templates, eq(templates.identifier, "rolled-back"))).toEqual([]);
  });

  it("orders and limits like a normal select", async () => {
    const a = new OrgScope(database.db, orgA);
    for (const n of [1, 2, 3]) await a.insert(templates, { identifier: `order-${n}`, title: `T${n}`, schema });
    const rows = await a
      .select(templates, sql`${templates.identifier} like 'order-%'`)
      .orderBy(templates.identifier)
      .limit(2);
    expect(rows.map((r) => r.identifier)).toEqual(["order-1", "order-2"]);
  });
});

describe.runIf(process.env.DATABASE_URL)("statements kept prepared on PostgreSQL", () => {
  const keptCount = scopedStatement(
    "kept_statement_test",
    (organizationId) =>
      sql`select /* kept-statement-test */ count(*) from ${templates} where organization_id = ${organizationId} and title <> ${sql.placeholder("title")}`,
  );
  /** Runs a marked statement three times in one transaction (one connection), then counts what that connection keeps. */
  async function keptAfterThreeCalls(db: Database["db"]): Promise<number> {
    return new OrgScope(db, orgA).transaction(async (tx) => {
      for (const title of ["one", "two", "three"]) await tx.run(keptCount, { title });
      const [row] = rowsOf<{ n: number }>(
        await OrgScope.unscoped(tx).execute(
          sql`select count(*)::int as n from pg_prepared_statements where statement like ${"%kept-statement-test%"}`,
        ),
      );
      return row!.n;
    });
  }

  it("keeps a hot path's statement once per connection, and none when prepared statements are off", async () => {
    expect(await keptAfterThreeCalls(database.db)).toBe(1);
    const pooled = createDb({ databaseUrl: database.url, maxConnections: 1, preparedStatements: false });
    try {
      expect(await keptAfterThreeCalls(pooled.db)).toBe(0);
    } finally {
      await pooled.close();
    }
  });
});
