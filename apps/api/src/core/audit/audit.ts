import { auditLog, desc, gt, sql, type OrgScope } from "@clinsign/db";
import { canonicalJson } from "../canonical-json";
import type { OrgContext } from "../context";
import { sha256Hex } from "../crypto";

export interface AuditInput {
  action: string;
  templateIdentifier?: string | null;
  metadata?: Record<string, unknown>;
}

const GENESIS = "0".repeat(64);

type ChainedFields = Pick<
  typeof auditLog.$inferSelect,
  "organizationId" | "seq" | "action" | "templateIdentifier" | "actorType" | "actorId" | "metadata" | "ip" | "userAgent" | "createdAt"
>;

/** Hashes exactly the chained fields, so a full row read back (id, hashes …) hashes like the entry written. */
function entryHash(prevHash: string, entry: ChainedFields): string {
  const chained: Record<keyof ChainedFields, unknown> = {
    organizationId: entry.organizationId,
    seq: Number(entry.seq),
    action: entry.action,
    templateIdentifier: entry.templateIdentifier,
    actorType: entry.actorType,
    actorId: entry.actorId,
    metadata: entry.metadata,
    ip: entry.ip,
    userAgent: entry.userAgent,
    createdAt: entry.createdAt.toISOString(),
  };
  return sha256Hex(`${prevHash}\n${canonicalJson(chained)}`);
}

/**
 * Appends one entry to the organization's hash chain. Call it with the context of the transaction
 * that makes the change, so the entry exists exactly when the change does.
 */
export async function recordAudit(ctx: OrgContext, input: AuditInput): Promise<void> {
  await ctx.scope.transaction(async (scope) => {
    // Serialises appends per organization, so two writers never take the same seq.
    await scope.db.execute(sql`select pg_advisory_xact_lock(hashtextextended(${scope.organizationId}, 42))`);
    const [last] = await scope.select(auditLog).orderBy(desc(auditLog.seq)).limit(1);
    const entry: ChainedFields = {
      organizationId: scope.organizationId,
      seq: (last?.seq ?? 0) + 1,
      action: input.action,
      templateIdentifier: input.templateIdentifier ?? null,
      actorType: ctx.actor.type,
      actorId: ctx.actor.id,
      metadata: input.metadata ?? {},
      ip: ctx.request.ip,
      userAgent: ctx.request.userAgent,
      createdAt: new Date(),
    };
    const prevHash = last?.hash ?? GENESIS;
    const { organizationId: _org, ...values } = entry;
    await scope.insert(auditLog, { ...values, prevHash, hash: entryHash(prevHash, entry) });
  });
}

export interface ChainVerdict {
  ok: boolean;
  entries: number;
  /** seq of the first entry that does not match its chain, or null. */
  brokenAt: number | null;
}

/** Walks the chain in order and reports the first edited, inserted or deleted entry. */
export async function verifyAuditChain(scope: OrgScope, batchSize = 1000): Promise<ChainVerdict> {
  let prevHash = GENESIS;
  let expectedSeq = 1;
  let entries = 0;
  for (;;) {
    const batch = await scope
      .select(auditLog, gt(auditLog.seq, expectedSeq - 1))
      .orderBy(auditLog.seq)
      .limit(batchSize);
    for (const row of batch) {
      if (row.seq !== expectedSeq || row.prevHash !== prevHash || entryHash(prevHash, row) !== row.hash) {
        return { ok: false, entries, brokenAt: expectedSeq };
      }
      prevHash = row.hash;
      expectedSeq += 1;
      entries += 1;
    }
    if (batch.length < batchSize) return { ok: true, entries, brokenAt: null };
  }
}

