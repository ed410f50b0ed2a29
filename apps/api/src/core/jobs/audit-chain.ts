import {
  and,
  auditChainGaps,
  auditChainHeads,
  auditLog,
  eq,
  gt,
  inArray,
  isNull,
  lte,
  OrgScope,
  rowsOf,
  sql,
  type Db,
  type Executor,
  type SQL,
} from "@clinsign/db";
import { DEFAULT_MAX_UNCHAINED_SECONDS, entryHash, GENESIS } from "../audit/audit";
import { sequenceHighWater } from "./audit-sequence";

/**
 * Linking audit entries into each organization's hash chain, after the requests that wrote them.
 * Here, beside the job queue, because it works across organizations: the watermark reads the
 * cluster's sequence and snapshot, the chainer finds every organization with entries to link.
 *
 * The gap problem: seq numbers are drawn when an entry is inserted but become visible when its
 * transaction commits, so seq 11 may be visible while seq 10 is still in flight. Chaining 11 then
 * would leave 10 nowhere to go (or force seq order and chain order apart). So the chainer only
 * chains up to a watermark: a seq W below which every entry is final (committed or rolled back).
 *
 * W comes from the sequence and a snapshot: read the sequence's last value W first, then
 * `pg_current_snapshot()`. Every seq ≤ W was drawn before the snapshot, by a transaction that
 * already had its xid (`audit_log_next_seq()` takes the xid first), so that transaction is either
 * committed (visible) or listed in the snapshot's in-progress xids. Once none of those xids is in
 * progress any more, every entry with seq ≤ W is final. With no write transaction in progress
 * (always so on PGlite, often so on PostgreSQL) W is final at once.
 *
 * The bound (migration 0013): a writer still open after AUDIT_MAX_UNCHAINED_SECONDS no longer holds
 * W back. It is skipped and recorded as a gap of each organization whose head moves past it, and its
 * entries, once committed, are appended at the end of the chain ("late").
 */

interface Snapshot {
  /** xids of write transactions in progress (xid8 as a number: epoch << 32 | xid, far below 2^53). */
  inProgress: number[];
}

async function currentSnapshot(db: Executor): Promise<Snapshot> {
  const [row] = rowsOf<{ snapshot: string }>(await db.execute(sql`select pg_current_snapshot()::text as snapshot`));
  // "xmin:xmax:xip,xip,…"
  const list = row!.snapshot.split(":")[2] ?? "";
  return { inProgress: list ? list.split(",").map((x) => Number(x)) : [] };
}

const stillRunning = (xids: number[], now: Snapshot) => {
  const running = new Set(now.inProgress);
  return xids.filter((x) => running.has(x));
};

/**
 * How far the chainer may chain: every entry with seq ≤ `seq` is final, except those of the `skipped`
 * transactions, which were still open when the bound ran out. An entry of a skipped transaction
 * that commits after the chain passed its seq is appended at the end of the chain (a "late" entry),
 * which `chainBatch` allows because it records the skipped xids in `audit_chain_gaps` first.
 */
export interface Watermark {
  seq: number;
  skipped: number[];
}

/**
 * The watermark of one process's chainer across passes: each pass proposes its (W, in-progress
 * xids) and learns which earlier proposals have settled, so nothing ever waits. A proposal still
 * unsettled after `maxLagMs` (a long-open writing transaction anywhere in the cluster) is adopted
 * anyway, with its still-open xids as `skipped`: the lag is bounded by about `maxLagMs` plus a
 * spacing of `maxLagMs / 16`, whatever other sessions do. Memory here is only progress, never
 * correctness: a new process starts from nothing and catches up in a pass (or after the bound).
 */
export class ChainWatermark {
  private proposals: { seq: number; xids: number[]; at: number }[] = [];
  private settled: Watermark = { seq: 0, skipped: [] };

  constructor(
    private readonly maxLagMs = DEFAULT_MAX_UNCHAINED_SECONDS * 1000,
    private readonly clock: () => number = Date.now,
  ) {}

  async advance(db: Db): Promise<Watermark> {
    const seq = await sequenceHighWater(db);
    const now = await currentSnapshot(db);
    return this.observe(seq, now.inProgress, this.clock());
  }

  /** One pass's observation: the sequence's value, then the snapshot's in-progress xids, at time `at`. */
  observe(seq: number, inProgress: number[], at: number): Watermark {
    const now: Snapshot = { inProgress };
    this.proposals.push({ seq, xids: inProgress, at });
    // A later proposal settled implies every earlier one did (their xids still running would be in it).
    for (let i = this.proposals.length - 1; i >= 0; i--) {
      const proposal = this.proposals[i]!;
      if (stillRunning(proposal.xids, now).length === 0) {
        if (proposal.seq >= this.settled.seq) this.settled = { seq: proposal.seq, skipped: [] };
        this.proposals = this.proposals.slice(i + 1);
        break;
      }
    }
    // The bound: the newest proposal at least maxLag old is adopted with the xids still open.
    for (let i = this.proposals.length - 1; i >= 0; i--) {
      const proposal = this.proposals[i]!;
      if (at - proposal.at >= this.maxLagMs) {
        if (proposal.seq >= this.settled.seq)
          this.settled = { seq: proposal.seq, skipped: stillRunning(proposal.xids, now) };
        this.proposals = this.proposals.slice(i + 1);
        break;
      }
    }
    // Keep one proposal per maxLag/16 (and always the newest), so the oldest ones live long enough
    // to reach the bound while a long transaction holds every one of them back.
    const spacing = this.maxLagMs / 16;
    while (this.proposals.length >= 3 && this.proposals.at(-1)!.at - this.proposals.at(-3)!.at < spacing)
      this.proposals.splice(-2, 1);
    if (this.proposals.length > 64) this.proposals.splice(1, 1);
    this.settled = { seq: this.settled.seq, skipped: stillRunning(this.settled.skipped, now) };
    return this.settled;
  }
}

/**
 * The watermark now, for verify and tests: waits (up to `waitMs`) for the writers of the snapshot to
 * end; past that, chains past the ones still open (`skipped`), so verify covers every entry
 * committed before it was called whatever other sessions keep open.
 */
export async function currentWatermark(db: Db, waitMs = 5000): Promise<Watermark> {
  const seq = await sequenceHighWater(db);
  const { inProgress } = await currentSnapshot(db);
  const deadline = Date.now() + waitMs;
  for (;;) {
    const skipped = stillRunning(inProgress, await currentSnapshot(db));
    if (skipped.length === 0 || Date.now() > deadline) return { seq, skipped };
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

/** The watermark now if its writers end within `timeoutMs`, else null. */
export async function settledWatermark(db: Db, timeoutMs = 5000): Promise<number | null> {
  const watermark = await currentWatermark(db, timeoutMs);
  return watermark.skipped.length === 0 ? watermark.seq : null;
}

export interface ChainOptions {
  /** Wait for another chainer of this organization to finish (verify), or skip it (background). */
  wait?: boolean;
  batchSize?: number;
}

/** The advisory lock key of an organization's chainer (one chainer per organization at a time). */
const chainLock = (organizationId: SQL) => sql`hashtextextended(${organizationId}, 43)`;

/**
 * Holds the organization's chainer lock until the caller's transaction ends, so no entry of it is
 * chained meanwhile: erasure (core/patients) reads and rewrites unchained entries knowing the
 * chainer cannot hash them between its read and its write.
 */
export async function holdChainLock(scope: OrgScope): Promise<void> {
  await scope.execute(
    (organizationId) => sql`select pg_advisory_xact_lock(${chainLock(sql`(${organizationId})::text`)})`,
  );
}

/**
 * Chains one batch of the organization's entries: first the late entries (unchained, seq at or
 * below the head's, written by a transaction recorded in `audit_chain_gaps`), appended in seq
 * order; then those with head.seq < seq ≤ `watermark`, in seq order. When the watermark skips open
 * transactions, they are recorded as the organization's gaps in the same transaction that moves
 * the head past their seqs. One chainer per organization at a time across all processes (an
 * advisory lock, never taken by requests); returns how many were chained (0 also when another
 * chainer holds the organization).
 */
export async function chainBatch(
  db: Db,
  organizationId: string,
  watermark: number | Watermark,
  options: ChainOptions = {},
): Promise<number> {
  const batchSize = options.batchSize ?? 500;
  const { seq: through, skipped } = typeof watermark === "number" ? { seq: watermark, skipped: [] } : watermark;
  return db.transaction(async (tx) => {
    // The key differs from any lock a request takes (requests take none on the audit log).
    const lock = chainLock(sql`${organizationId}`);
    if (options.wait) {
      await tx.execute(sql`select pg_advisory_xact_lock(${lock})`);
    } else {
      const [got] = rowsOf<{ locked: boolean }>(
        await tx.execute(sql`select pg_try_advisory_xact_lock(${lock}) as locked`),
      );
      if (!got?.locked) return 0;
    }
    const scope = new OrgScope(tx, organizationId);
    const [head] = await scope.select(auditChainHeads).limit(1);
    const headSeq = head?.seq ?? 0;
    const late = head
      ? await scope
          .select(
            auditLog,
            isNull(auditLog.chainPos),
            lte(auditLog.seq, headSeq),
            inArray(
              auditLog.xactId,
              tx
                .select({ xactId: auditChainGaps.xactId })
                .from(auditChainGaps)
                .where(eq(auditChainGaps.organizationId, organizationId)),
            ),
          )
          .orderBy(auditLog.seq)
          .limit(batchSize)
      : [];
    const inOrder =
      late.length < batchSize
        ? await scope
            .select(auditLog, isNull(auditLog.chainPos), gt(auditLog.seq, headSeq), lte(auditLog.seq, through))
            .orderBy(auditLog.seq)
            .limit(batchSize - late.length)
        : [];
    const rows = [...late, ...inOrder];
    if (rows.length === 0) return 0;

    if (skipped.length > 0) {
      // Before the head passes their seqs: their entries may still commit, and will then be late.
      for (const xactId of skipped)
        await scope.insert(auditChainGaps, { xactId, throughSeq: through }).onConflictDoNothing();
    }
    let pos = head?.chainPos ?? 0;
    let prevHash = head?.hash ?? GENESIS;
    const links = rows.map((row) => {
      pos += 1;
      const hash = entryHash(prevHash, row);
      // Erasure gives an unchained entry a commitment before it removes its content (core/patients/erasure.ts).
      if (hash === null) throw new Error(`audit entry ${row.seq} lost its content before it was chained`);
      const link = sql`(${row.id}::uuid, ${pos}::bigint, ${prevHash}, ${hash})`;
      prevHash = hash;
      return link;
    });
    await tx.execute(sql`
      update audit_log as a set chain_pos = v.pos, prev_hash = v.prev, hash = v.hash
      from (values ${sql.join(links, sql`, `)}) as v(id, pos, prev, hash)
      where a.id = v.id and a.organization_id = ${organizationId} and a.chain_pos is null`);
    // The head's seq is the largest chained seq (the tail check's bound), not a late entry's.
    const newHead = {
      chainPos: pos,
      seq: Math.max(headSeq, inOrder.at(-1)?.seq ?? 0),
      hash: prevHash,
      chainedAt: new Date(),
    };
    await scope
      .insert(auditChainHeads, newHead)
      .onConflictDoUpdate({ target: auditChainHeads.organizationId, set: newHead });
    return rows.length;
  });
}

/** Organizations with entries at or below the watermark still to chain (the partial index's rows). */
export async function organizationsToChain(db: Db, watermark: number): Promise<string[]> {
  const rows = await db
    .selectDistinct({ organizationId: auditLog.organizationId })
    .from(auditLog)
    .where(and(isNull(auditLog.chainPos), lte(auditLog.seq, watermark)));
  return rows.map((r) => r.organizationId);
}

/** `chainOrganizationNow` for a tenant caller (verify): the scope's organization, on its handle. */
export function chainScopeNow(scope: OrgScope, options: { waitMs?: number } = {}): Promise<number> {
  return chainOrganizationNow(OrgScope.unscoped(scope) as Db, scope.organizationId, options);
}

/**
 * Chains everything of the organization committed before the call, waiting for a running chainer
 * and (up to `waitMs`) for open writers, then chaining past those still open; for verify.
 */
export async function chainOrganizationNow(
  db: Db,
  organizationId: string,
  options: { waitMs?: number } = {},
): Promise<number> {
  const watermark = await currentWatermark(db, options.waitMs);
  let chained = 0;
  for (;;) {
    const n = await chainBatch(db, organizationId, watermark, { wait: true });
    chained += n;
    if (n === 0) return chained;
  }
}
