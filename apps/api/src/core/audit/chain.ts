import { and, auditChainHeads, auditLog, gt, isNull, lte, OrgScope, rowsOf, sql, type Db } from "@clinsign/db";
import { entryHash, GENESIS } from "./audit";

/**
 * Linking audit entries into each organization's hash chain, after the requests that wrote them.
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
 */

interface Snapshot {
  /** xids of write transactions in progress (xid8, never wraps). */
  inProgress: bigint[];
}

async function sequenceHighWater(db: Db): Promise<number> {
  const [row] = rowsOf<{ last_value: string | number; is_called: boolean }>(await db.execute(sql`select last_value, is_called from audit_log_seq`));
  return row!.is_called ? Number(row!.last_value) : Number(row!.last_value) - 1;
}

async function currentSnapshot(db: Db): Promise<Snapshot> {
  const [row] = rowsOf<{ snapshot: string }>(await db.execute(sql`select pg_current_snapshot()::text as snapshot`));
  // "xmin:xmax:xip,xip,…"
  const list = row!.snapshot.split(":")[2] ?? "";
  return { inProgress: list ? list.split(",").map((x) => BigInt(x)) : [] };
}

const allFinished = (xids: bigint[], now: Snapshot) => {
  if (xids.length === 0) return true;
  const running = new Set(now.inProgress);
  return xids.every((x) => !running.has(x));
};

/**
 * The watermark of one process's chainer across passes: each pass proposes its (W, in-progress
 * xids) and learns which earlier proposals have settled, so nothing ever waits. Memory here is
 * only progress, never correctness: a new process starts from nothing and catches up in a pass.
 */
export class ChainWatermark {
  private proposals: { seq: number; xids: bigint[] }[] = [];
  private settled = 0;

  async advance(db: Db): Promise<number> {
    const seq = await sequenceHighWater(db);
    const now = await currentSnapshot(db);
    this.proposals.push({ seq, xids: now.inProgress });
    // A later proposal settled implies every earlier one did (their xids still running would be in it).
    for (let i = this.proposals.length - 1; i >= 0; i--) {
      const proposal = this.proposals[i]!;
      if (allFinished(proposal.xids, now)) {
        this.settled = Math.max(this.settled, proposal.seq);
        this.proposals = this.proposals.slice(i + 1);
        break;
      }
    }
    // A long write transaction holds every proposal back; keep the newest few for when it ends.
    if (this.proposals.length > 32) this.proposals = this.proposals.slice(-32);
    return this.settled;
  }
}

/** The watermark now, waiting (briefly) for the transactions in progress to end; for verify and tests. */
export async function settledWatermark(db: Db, timeoutMs = 5000): Promise<number | null> {
  const seq = await sequenceHighWater(db);
  const { inProgress } = await currentSnapshot(db);
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (allFinished(inProgress, await currentSnapshot(db))) return seq;
    if (Date.now() > deadline) return null;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

export interface ChainOptions {
  /** Wait for another chainer of this organization to finish (verify), or skip it (background). */
  wait?: boolean;
  batchSize?: number;
}

/**
 * Chains one batch of the organization's entries with seq ≤ `watermark`, in seq order, after the
 * head. One chainer per organization at a time across all processes (an advisory lock, never taken
 * by requests); returns how many were chained (0 also when another chainer holds the organization).
 */
export async function chainBatch(db: Db, organizationId: string, watermark: number, options: ChainOptions = {}): Promise<number> {
  const batchSize = options.batchSize ?? 500;
  return db.transaction(async (tx) => {
    // The key differs from any lock a request takes (requests take none on the audit log).
    const lock = sql`hashtextextended(${organizationId}, 43)`;
    if (options.wait) {
      await tx.execute(sql`select pg_advisory_xact_lock(${lock})`);
    } else {
      const [got] = rowsOf<{ locked: boolean }>(await tx.execute(sql`select pg_try_advisory_xact_lock(${lock}) as locked`));
      if (!got?.locked) return 0;
    }
    const scope = new OrgScope(tx, organizationId);
    const [head] = await scope.select(auditChainHeads).limit(1);
    const headSeq = head?.seq ?? 0;
    const rows = await scope
      .select(auditLog, isNull(auditLog.chainPos), gt(auditLog.seq, headSeq), lte(auditLog.seq, watermark))
      .orderBy(auditLog.seq)
      .limit(batchSize);
    if (rows.length === 0) return 0;

    let pos = head?.chainPos ?? 0;
    let prevHash = head?.hash ?? GENESIS;
    const links = rows.map((row) => {
      pos += 1;
      const hash = entryHash(prevHash, row);
      const link = sql`(${row.id}::uuid, ${pos}::bigint, ${prevHash}, ${hash})`;
      prevHash = hash;
      return link;
    });
    await tx.execute(sql`
      update audit_log as a set chain_pos = v.pos, prev_hash = v.prev, hash = v.hash
      from (values ${sql.join(links, sql`, `)}) as v(id, pos, prev, hash)
      where a.id = v.id and a.organization_id = ${organizationId} and a.chain_pos is null`);
    const last = rows[rows.length - 1]!;
    const newHead = { chainPos: pos, seq: last.seq, hash: prevHash, chainedAt: new Date() };
    await scope.insert(auditChainHeads, newHead).onConflictDoUpdate({ target: auditChainHeads.organizationId, set: newHead });
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

/** Chains everything of the organization that is final now, waiting for a running chainer; for verify. */
export async function chainOrganizationNow(db: Db, organizationId: string): Promise<number> {
  const watermark = await settledWatermark(db);
  if (watermark === null) return 0;
  let chained = 0;
  for (;;) {
    const n = await chainBatch(db, organizationId, watermark, { wait: true });
    chained += n;
    if (n === 0) return chained;
  }
}
