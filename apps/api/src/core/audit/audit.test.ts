import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { createTemplateInput } from "@clinsign/contracts";
import { and, asc, auditChainGaps, auditChainHeads, auditLog, eq, isNull, OrgScope, rowsOf, sql } from "@clinsign/db";
import { startTestApi, type TestApi, type TestOrg } from "../../testing/harness";
import { activeTemplate, creds } from "../../testing/forms";
import { AuditChainer } from "../../jobs/audit-chainer";
import { createTemplate, updateTemplate } from "../templates/templates";
import { entryHash, recordAudit, verifyAuditChain } from "./audit";
import { sequenceHighWater } from "../jobs/audit-sequence";
import { verifyOrganizationChain } from "./audit-log";
import { chainBatch, chainOrganizationNow, ChainWatermark, settledWatermark } from "../jobs/audit-chain";

let api: TestApi;
beforeAll(async () => {
  api = await startTestApi();
});
afterAll(() => api?.close());

const chain = (org: TestOrg) => chainOrganizationNow(api.services.db, org.orgId);
const verify = (org: TestOrg) => verifyAuditChain(org.ctx);
const entriesOf = (org: TestOrg) =>
  api.services.db.select().from(auditLog).where(eq(auditLog.organizationId, org.orgId)).orderBy(asc(auditLog.seq));
const headOf = async (org: TestOrg) =>
  (await api.services.db.select().from(auditChainHeads).where(eq(auditChainHeads.organizationId, org.orgId)))[0];

/** A seq drawn from the sequence, as a writer does before it commits. */
const drawSeq = async () =>
  Number(rowsOf<{ seq: string }>(await api.services.db.execute(sql`select nextval('audit_log_seq') as seq`))[0]!.seq);

/** An organization with a template and `steps` further audited changes, all chained. */
async function chainedOrg(steps = 3): Promise<{ org: TestOrg; rows: (typeof auditLog.$inferSelect)[] }> {
  const org = await api.createOrg();
  const t = await createTemplate(org.ctx, createTemplateInput.parse({ title: "Chain" }));
  for (let i = 0; i < steps; i++) await updateTemplate(org.ctx, { identifier: t.identifier, title: `Chain ${i}` });
  await chain(org);
  return { org, rows: await entriesOf(org) };
}

/** Swaps a unique column's values between two rows (through a free value: the index is not deferrable). */
type Tx = Parameters<Parameters<TestApi["services"]["db"]["transaction"]>[0]>[0];

/**
 * A transaction that does `work` and then stays open (holding its xid) until `end()`: what a
 * long-open writer elsewhere in the cluster looks like to the chainer.
 */
async function holdOpen(work: (tx: Tx) => Promise<unknown>): Promise<{ end(): Promise<void> }> {
  let release!: () => void;
  let begun!: () => void;
  const held = new Promise<void>((resolve) => (release = resolve));
  const begunOnce = new Promise<void>((resolve) => (begun = resolve));
  const open = api.services.db.transaction(async (tx) => {
    await work(tx);
    begun();
    await held;
  });
  await Promise.race([begunOnce, open]);
  return {
    end: async () => {
      release();
      await open;
    },
  };
}

async function swap(column: "seq" | "chain_pos", a: typeof auditLog.$inferSelect, b: typeof auditLog.$inferSelect) {
  const { db } = api.services;
  const [col, valueOf] = [
    sql.identifier(column),
    (row: typeof auditLog.$inferSelect) => (column === "seq" ? row.seq : row.chainPos!),
  ];
  await db.execute(sql`update audit_log set ${col} = -1 where id = ${a.id}`);
  await db.execute(sql`update audit_log set ${col} = ${valueOf(a)} where id = ${b.id}`);
  await db.execute(sql`update audit_log set ${col} = ${valueOf(b)} where id = ${a.id}`);
}

describe("the audit hash chain", () => {
  it("writes entries unchained, chains them in seq order after the head, and verifies the untouched chain", async () => {
    const org = await api.createOrg();
    const t = await createTemplate(org.ctx, createTemplateInput.parse({ title: "Chain" }));
    await updateTemplate(org.ctx, { identifier: t.identifier, title: "Chain 2" });
    await updateTemplate(org.ctx, { identifier: t.identifier, status: "active" });
    expect((await entriesOf(org)).every((r) => r.chainPos === null && r.hash === null)).toBe(true);

    expect(await chain(org)).toBe(4);
    const rows = await entriesOf(org);
    expect(rows.map((r) => r.chainPos)).toEqual([1, 2, 3, 4]);
    expect(rows[1]!.prevHash).toBe(rows[0]!.hash);
    expect(await headOf(org)).toMatchObject({ chainPos: 4, seq: rows[3]!.seq, hash: rows[3]!.hash });
    expect(await verify(org)).toMatchObject({ ok: true, entries: 4, brokenAt: null });

    // Entries written later extend the same chain.
    await recordAudit(org.ctx, { action: "test.later" });
    expect(await chain(org)).toBe(1);
    expect(await verify(org)).toMatchObject({ ok: true, entries: 5, brokenAt: null });
  });

  it("detects an edited entry", async () => {
    const { org, rows } = await chainedOrg();
    await api.services.db.execute(
      sql`update audit_log set metadata = '{"changed":["description"]}'::jsonb where id = ${rows[2]!.id}`,
    );
    expect(await verify(org)).toMatchObject({ ok: false, entries: 2, brokenAt: rows[2]!.seq });
  });

  it("detects a deleted entry in the middle", async () => {
    const { org, rows } = await chainedOrg();
    await api.services.db.delete(auditLog).where(eq(auditLog.id, rows[1]!.id));
    expect(await verify(org)).toMatchObject({ ok: false, brokenAt: rows[2]!.seq });
  });

  it("detects reordered entries (swapped seq numbers, and swapped chain positions)", async () => {
    const a = await chainedOrg();
    await swap("seq", a.rows[1]!, a.rows[2]!);
    expect(await verify(a.org)).toMatchObject({ ok: false });

    const b = await chainedOrg();
    await swap("chain_pos", b.rows[1]!, b.rows[2]!);
    expect(await verify(b.org)).toMatchObject({ ok: false });
  });

  it("detects an entry slipped into the chained past, and never chains it", async () => {
    const { org, rows } = await chainedOrg();
    const forgedSeq = rows[0]!.seq - 1;
    await api.services.db.insert(auditLog).values({
      organizationId: org.orgId,
      seq: forgedSeq,
      action: "template.deleted",
      actorType: "system",
      createdAt: rows[0]!.createdAt,
    });
    expect(await verify(org)).toMatchObject({ ok: false, entries: rows.length, brokenAt: forgedSeq });
    await chain(org);
    const [forged] = await api.services.db
      .select()
      .from(auditLog)
      .where(and(eq(auditLog.organizationId, org.orgId), eq(auditLog.seq, forgedSeq)));
    expect(forged!.chainPos).toBeNull();
  });

  it("detects an entry inserted into the chain, with a wrong hash or with a right one but no head", async () => {
    const { org, rows } = await chainedOrg();
    const last = rows[rows.length - 1]!;
    const forged = {
      organizationId: org.orgId,
      seq: last.seq + 1_000_000,
      action: "test.forged",
      actorType: "system" as const,
      metadata: {},
      createdAt: new Date(),
      chainPos: last.chainPos! + 1,
      prevHash: last.hash,
    };
    await api.services.db.insert(auditLog).values({ ...forged, hash: "f".repeat(64) });
    expect(await verify(org)).toMatchObject({ ok: false, entries: rows.length, brokenAt: forged.seq });

    await api.services.db
      .update(auditLog)
      .set({
        hash: entryHash(last.hash!, { ...forged, templateIdentifier: null, actorId: null, ip: null, userAgent: null }),
      })
      .where(and(eq(auditLog.organizationId, org.orgId), eq(auditLog.seq, forged.seq)));
    // The links hold now, but the chain runs past its recorded head.
    expect(await verify(org)).toMatchObject({ ok: false, entries: rows.length + 1, brokenAt: forged.seq });
  });

  it("detects the newest entries cut off (truncation) through the chain's head", async () => {
    const { org, rows } = await chainedOrg();
    const newest = rows[rows.length - 1]!;
    await api.services.db.delete(auditLog).where(eq(auditLog.id, newest.id));
    expect(await verify(org)).toMatchObject({ ok: false, entries: rows.length - 1, brokenAt: newest.seq });
    // Deleting the head row as well is no way out: a chain without a head is broken.
    await api.services.db.delete(auditChainHeads).where(eq(auditChainHeads.organizationId, org.orgId));
    expect(await verify(org)).toMatchObject({ ok: false });
  });

  it("chains many concurrent audited writes of one organization, all of them, into one chain", async () => {
    const org = await api.createOrg();
    const t = await activeTemplate(org);
    await Promise.all([
      ...Array.from({ length: 30 }, (_, i) =>
        api.request("POST", "/api/embed/drafts", {
          body: { ...creds(org), templateIdentifier: t.identifier, draftKey: `k${i % 5}`, values: { name: `v${i}` } },
        }),
      ),
      ...Array.from({ length: 10 }, (_, i) => recordAudit(org.ctx, { action: "test.parallel", metadata: { i } })),
    ]);
    // Two chainers at once (two API processes): one chains the organization, the other skips it.
    const [one, two] = [new AuditChainer(api.services), new AuditChainer(api.services)];
    await vi.waitFor(
      async () => {
        await Promise.all([one.runOnce(), two.runOnce()]);
        expect(
          await api.services.db
            .select()
            .from(auditLog)
            .where(and(eq(auditLog.organizationId, org.orgId), isNull(auditLog.chainPos))),
        ).toEqual([]);
      },
      { timeout: 20_000, interval: 50 },
    );
    const rows = await entriesOf(org);
    expect(rows).toHaveLength(42); // token.created, template.created, 30 drafts, 10 test entries
    expect(rows.map((r) => r.chainPos)).toEqual(rows.map((_, i) => i + 1));
    expect(await verify(org)).toMatchObject({ ok: true, entries: 42, brokenAt: null });
  });

  it("lists an entry in F13 as soon as the request that wrote it returns, before it is chained", async () => {
    const org = await api.createOrg();
    const t = await activeTemplate(org);
    const saved = await api.request("POST", "/api/embed/drafts", {
      body: { ...creds(org), templateIdentifier: t.identifier, draftKey: "now", values: { name: "Erika" } },
    });
    expect(saved.status).toBe(200);
    const logs = await api.request(
      "GET",
      `/api/embed/audit-logs?${new URLSearchParams({ ...creds(org), action: "form.draft_saved" })}`,
    );
    expect(logs.body.logs).toHaveLength(1);
    // No chainer runs in tests unless asked, so the entry is listed while still unchained.
    const [row] = await api.services.db
      .select()
      .from(auditLog)
      .where(and(eq(auditLog.organizationId, org.orgId), eq(auditLog.action, "form.draft_saved")));
    expect(row!.chainPos).toBeNull();
  });

  it("staff verify and the background chainer chain what is pending", async () => {
    const org = await api.createOrg();
    await recordAudit(org.ctx, { action: "test.pending" });
    const chainer = new AuditChainer(api.services, { intervalMs: 20 });
    chainer.start();
    try {
      await vi.waitFor(async () => expect((await headOf(org))?.chainPos).toBe(2), { timeout: 20_000, interval: 50 });
    } finally {
      await chainer.stop();
    }
    expect(await verify(org)).toMatchObject({ ok: true, entries: 2, brokenAt: null });
  });
});

describe("the chainer's watermark", () => {
  it.skipIf(!process.env.DATABASE_URL)(
    "does not chain past an entry whose transaction is still open (PostgreSQL: seq order ≠ commit order)",
    async () => {
      const org = await api.createOrg();
      const { db } = api.services;
      await chain(org);
      // Entry A draws its seq first but commits last.
      const slow = await holdOpen((tx) =>
        recordAudit({ ...org.ctx, scope: new OrgScope(tx, org.orgId) }, { action: "test.slow" }),
      );
      await recordAudit(org.ctx, { action: "test.fast" });

      const watermark = new ChainWatermark();
      const blocked = await watermark.advance(db);
      const fast = (await entriesOf(org)).find((r) => r.action === "test.fast")!;
      expect(blocked.seq).toBeLessThan(fast.seq);
      expect(await chainBatch(db, org.orgId, blocked)).toBe(0);
      expect(await settledWatermark(db, 50)).toBeNull();

      await slow.end();
      await vi.waitFor(async () => expect((await watermark.advance(db)).seq).toBeGreaterThanOrEqual(fast.seq), {
        timeout: 10_000,
        interval: 20,
      });
      await chain(org);
      const rows = await entriesOf(org);
      expect(rows.map((r) => [r.action, r.chainPos])).toEqual([
        ["token.created", 1],
        ["test.slow", 2],
        ["test.fast", 3],
      ]);
      expect(await verify(org)).toMatchObject({ ok: true, entries: 3, brokenAt: null });
    },
  );
});

describe("the chain's bounded lag", () => {
  it("adopts a watermark held back by an open writer once it is older than the bound, naming the writers it skips", () => {
    let now = 0;
    const watermark = new ChainWatermark(1000, () => now);
    // Writer 7 stays open: nothing settles.
    expect(watermark.observe(10, [7], now)).toEqual({ seq: 0, skipped: [] });
    now = 400;
    expect(watermark.observe(12, [7], now)).toEqual({ seq: 0, skipped: [] });
    // The first proposal is a second old now: adopted, with writer 7 skipped.
    now = 1000;
    expect(watermark.observe(15, [7], now)).toEqual({ seq: 10, skipped: [7] });
    now = 1500;
    expect(watermark.observe(16, [7, 8], now)).toEqual({ seq: 12, skipped: [7] });
    // Writer 7 ends: everything proposed since settles, and nothing is skipped any more.
    now = 1600;
    expect(watermark.observe(17, [], now)).toEqual({ seq: 17, skipped: [] });
  });

  it("keeps proposals old enough to reach the bound while a writer stays open (one per bound/16)", () => {
    let now = 0;
    const watermark = new ChainWatermark(60_000, () => now);
    let result = { seq: 0, skipped: [] as number[] };
    // A pass a second for two minutes, the sequence rising by one a pass, writer 7 open throughout.
    for (let pass = 0; pass <= 120; pass++, now += 1000) result = watermark.observe(100 + pass, [7], now);
    // Two minutes in, at most a bound plus its spacing behind (the proposal 60 s ago, give or take 4 s).
    expect(result.skipped).toEqual([7]);
    expect(result.seq).toBeGreaterThanOrEqual(100 + 120 - 60 - 4);
  });

  it("appends an entry of a transaction it chained past as a late entry, and refuses one of any other transaction (simulated: PGlite has one connection)", async () => {
    const org = await api.createOrg();
    const { db } = api.services;
    await chain(org);
    // A writer that drew its seq and stayed open past the bound: its seq, and an xid that is not running.
    const lateSeq = await drawSeq();
    const skippedXid = 4_000_000_000;
    await recordAudit(org.ctx, { action: "test.after" });
    const watermark = { seq: (await entriesOf(org)).at(-1)!.seq, skipped: [skippedXid] };
    expect(await chainBatch(db, org.orgId, watermark)).toBe(1);
    expect(await db.select().from(auditChainGaps).where(eq(auditChainGaps.organizationId, org.orgId))).toEqual([
      expect.objectContaining({ xactId: skippedXid, throughSeq: watermark.seq }),
    ]);

    // The writer commits: its entry's seq lies below the head, and it is chained at the end.
    await db.insert(auditLog).values({
      organizationId: org.orgId,
      seq: lateSeq,
      xactId: skippedXid,
      action: "test.late",
      actorType: "system",
      createdAt: new Date(),
    });
    expect(await verify(org)).toMatchObject({ ok: true, unchained: { count: 1 }, warnings: ["unchained_pending"] });
    await chain(org);
    const rows = await db
      .select()
      .from(auditLog)
      .where(eq(auditLog.organizationId, org.orgId))
      .orderBy(asc(auditLog.chainPos));
    expect(rows.map((r) => r.action)).toEqual(["token.created", "test.after", "test.late"]);
    expect((await headOf(org))!.seq).toBe(watermark.seq);
    expect(await verify(org)).toMatchObject({
      ok: true,
      entries: 3,
      lateEntries: 1,
      unchained: { count: 0 },
      warnings: ["late_entries"],
    });

    // The same with an xid the chain never skipped: slipped in, refused and never chained.
    const forgedSeq = await drawSeq();
    await recordAudit(org.ctx, { action: "test.after2" });
    await chain(org);
    await db.insert(auditLog).values({
      organizationId: org.orgId,
      seq: forgedSeq,
      xactId: skippedXid + 1,
      action: "test.forged",
      actorType: "system",
      createdAt: new Date(),
    });
    await chain(org);
    expect(await verify(org)).toMatchObject({ ok: false, problem: "slipped_in", brokenAt: forgedSeq });

    // Removing the gap record does not legitimise anything: the late entry breaks the chain.
    await db.delete(auditChainGaps).where(eq(auditChainGaps.organizationId, org.orgId));
    expect(await verify(org)).toMatchObject({ ok: false, problem: "chain_broken", brokenAt: lateSeq });
  });

  it.skipIf(!process.env.DATABASE_URL)(
    "chains past a writing transaction held open in another connection beyond the bound, and appends its entry when it commits (PostgreSQL only: PGlite has one connection, so no transaction can stay open beside others)",
    async () => {
      const org = await api.createOrg();
      const bystander = await api.createOrg();
      const { db } = api.services;
      await chain(org);
      await chain(bystander);
      // A long transaction: it writes an entry of `org` and then stays open.
      const slow = await holdOpen((tx) =>
        recordAudit({ ...org.ctx, scope: new OrgScope(tx, org.orgId) }, { action: "test.slow" }),
      );
      try {
        await recordAudit(org.ctx, { action: "test.fast" });
        await recordAudit(bystander.ctx, { action: "test.bystander" });
        const chainer = new AuditChainer(api.services, { maxLagMs: 300 });
        // Without the bound, neither organization would be chained until the transaction ends.
        await vi.waitFor(
          async () => {
            await chainer.runOnce();
            expect((await entriesOf(org)).find((r) => r.action === "test.fast")!.chainPos).toBe(2);
            expect((await entriesOf(bystander)).find((r) => r.action === "test.bystander")!.chainPos).toBe(2);
          },
          { timeout: 15_000, interval: 100 },
        );
        expect(await verify(org)).toMatchObject({ ok: true, entries: 2, unchained: { count: 0 } });
        expect(await verify(bystander)).toMatchObject({ ok: true, entries: 2 });
      } finally {
        await slow.end();
      }
      // The long transaction's entry is late: its seq is below the head; it is appended at the end.
      expect(await chain(org)).toBe(1);
      const rows = await db
        .select()
        .from(auditLog)
        .where(eq(auditLog.organizationId, org.orgId))
        .orderBy(asc(auditLog.chainPos));
      expect(rows.map((r) => [r.action, r.chainPos])).toEqual([
        ["token.created", 1],
        ["test.fast", 2],
        ["test.slow", 3],
      ]);
      expect(rows[2]!.seq).toBeLessThan(rows[1]!.seq);
      expect(await verify(org)).toMatchObject({ ok: true, entries: 3, lateEntries: 1, warnings: ["late_entries"] });
    },
  );

  it.skipIf(!process.env.DATABASE_URL)(
    "staff verify chains past a writer still open after its wait, so its verdict covers what was committed (PostgreSQL only: PGlite has one connection)",
    async () => {
      const org = await api.createOrg();
      // A writer: it holds an xid, and no audit entry.
      const other = await holdOpen((tx) => tx.execute(sql`select pg_current_xact_id()`));
      try {
        await recordAudit(org.ctx, { action: "test.committed" });
        expect(await verifyOrganizationChain(org.ctx, { waitMs: 50 })).toMatchObject({
          ok: true,
          entries: 2,
          unchained: { count: 0 },
        });
      } finally {
        await other.end();
      }
    },
  );
});

describe("what verify reports beyond the chain", () => {
  it("reports unchained entries (count, oldest age) and fails once one is unchained past the bound", async () => {
    const org = await api.createOrg();
    await chain(org);
    await recordAudit(org.ctx, { action: "test.unchained" });
    const [entry] = await api.services.db
      .select()
      .from(auditLog)
      .where(and(eq(auditLog.organizationId, org.orgId), eq(auditLog.action, "test.unchained")));
    // An unchained entry can be edited unnoticed by the chain: verify says how many there are, and how old.
    await api.services.db
      .update(auditLog)
      .set({ metadata: { edited: true } })
      .where(eq(auditLog.id, entry!.id));
    expect(await verifyAuditChain(org.ctx, { maxUnchainedSeconds: 60 })).toEqual({
      ok: true,
      entries: 1,
      brokenAt: null,
      problem: null,
      lateEntries: 0,
      unchained: { count: 1, oldestAgeSeconds: expect.any(Number), maxAgeSeconds: 60 },
      warnings: ["unchained_pending"],
    });
    // Left unchained longer than the bound (the chainer stopped, or cannot reach it): verify fails.
    await api.services.db
      .update(auditLog)
      .set({ createdAt: new Date(Date.now() - 120_000) })
      .where(eq(auditLog.id, entry!.id));
    const overdue = await verifyAuditChain(org.ctx, { maxUnchainedSeconds: 60 });
    expect(overdue).toMatchObject({
      ok: false,
      problem: "unchained_overdue",
      brokenAt: entry!.seq,
      unchained: { count: 1 },
    });
    expect(overdue.unchained.oldestAgeSeconds).toBeGreaterThanOrEqual(120);
  });

  it("reports an entry deleted before it was chained as gone from the unchained count", async () => {
    const org = await api.createOrg();
    await chain(org);
    await recordAudit(org.ctx, { action: "test.doomed" });
    expect((await verifyAuditChain(org.ctx)).unchained.count).toBe(1);
    await api.services.db
      .delete(auditLog)
      .where(and(eq(auditLog.organizationId, org.orgId), eq(auditLog.action, "test.doomed")));
    // Undetectable by the chain (it never held the entry); what verify can say is that nothing is pending.
    expect(await verifyAuditChain(org.ctx)).toMatchObject({
      ok: true,
      unchained: { count: 0, oldestAgeSeconds: null },
      warnings: [],
    });
  });

  it("fails on a seq the sequence never handed out (far in the future), and never chains it", async () => {
    const { org } = await chainedOrg(1);
    const { db } = api.services;
    const highWater = await sequenceHighWater(db);
    const farFuture = highWater + 1_000_000;
    await db.insert(auditLog).values({
      organizationId: org.orgId,
      seq: farFuture,
      action: "template.deleted",
      actorType: "system",
      createdAt: new Date(),
    });
    // Listed first (newest by seq), but verify names it.
    expect(await verifyOrganizationChain(org.ctx)).toMatchObject({
      ok: false,
      problem: "seq_out_of_range",
      brokenAt: farFuture,
      unchained: { count: 1 },
    });
    const [forged] = await db
      .select()
      .from(auditLog)
      .where(and(eq(auditLog.organizationId, org.orgId), eq(auditLog.seq, farFuture)));
    expect(forged!.chainPos).toBeNull();
  });
});
