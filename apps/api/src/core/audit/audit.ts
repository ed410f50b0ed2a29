import { randomUUID } from "node:crypto";
import { auditChainHeads, auditLog, gt, isNotNull, isNull, or, lte, sql, type OrgScope, type SQL } from "@clinsign/db";
import { canonicalJson } from "../canonical-json";
import type { OrgContext } from "../context";
import { sha256Hex } from "../crypto";

export interface AuditInput {
  action: string;
  templateIdentifier?: string | null;
  metadata?: Record<string, unknown>;
}

/** The `prev_hash` of an organization's first chained entry. */
export const GENESIS = "0".repeat(64);

type ChainedFields = Pick<
  typeof auditLog.$inferSelect,
  "organizationId" | "seq" | "action" | "templateIdentifier" | "actorType" | "actorId" | "metadata" | "ip" | "userAgent" | "createdAt"
>;

/**
 * Hashes exactly the chained fields, so a full row read back (id, hashes …) hashes like the entry
 * written. Unchanged since entries were chained in the request: rows chained before migration 0010
 * verify with it as they are.
 */
export function entryHash(prevHash: string, entry: ChainedFields): string {
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
 * Writes one audit entry. Call it with the context of the transaction that makes the change, so the
 * entry exists exactly when the change does (and F13 lists it as soon as the request returns).
 *
 * The entry is written unchained: one insert, no lock, its `seq` drawn from a sequence. The
 * chainer (core/audit/chain.ts, run by jobs/audit-chainer.ts) links it into the organization's
 * hash chain shortly after it commits, so concurrent writers of one organization never queue
 * behind each other here.
 */
export async function recordAudit(ctx: OrgContext, input: AuditInput): Promise<void> {
  await ctx.scope.insert(auditLog, {
    action: input.action,
    templateIdentifier: input.templateIdentifier ?? null,
    actorType: ctx.actor.type,
    actorId: ctx.actor.id,
    metadata: input.metadata ?? {},
    ip: ctx.request.ip,
    userAgent: ctx.request.userAgent,
    // Milliseconds, as a JavaScript Date reads it back: the hash is computed from the stored value.
    createdAt: new Date(),
  });
}

/**
 * The entry `recordAudit` writes, as an `insert … select` with one entry per row of `source` (a
 * CTE of the same statement). For hot paths that make their change and audit it in one
 * data-modifying statement: a single statement is atomic without BEGIN/COMMIT round trips, and the
 * entry exists exactly when the change does (no row in `source`, no entry).
 */
export function auditInsertFrom(ctx: OrgContext, input: AuditInput, source: SQL): SQL {
  return sql`insert into audit_log (id, organization_id, action, template_identifier, actor_type, actor_id, metadata, ip, user_agent, created_at)
    select ${randomUUID()}::uuid, ${ctx.scope.organizationId}::uuid, ${input.action}, ${input.templateIdentifier ?? null}, ${ctx.actor.type},
      ${ctx.actor.id}, ${JSON.stringify(input.metadata ?? {})}::jsonb, ${ctx.request.ip}, ${ctx.request.userAgent},
      ${new Date().toISOString()}::timestamptz
    from ${source}`;
}

export interface ChainVerdict {
  ok: boolean;
  /** Chained entries that verified (entries still waiting for the chainer are not counted). */
  entries: number;
  /** seq of the first entry that does not match its chain (for a cut-off chain: the head's seq), or null. */
  brokenAt: number | null;
}

/**
 * Verifies the organization's audit log: walks the chain in position order and checks each entry's
 * position, link and hash and that seq rises along it; checks that the chain ends where the head
 * row says (the newest entries were not cut off); and checks that no unchained entry claims a seq
 * inside the chained part (the chainer links in seq order, so such a row was slipped in later).
 */
export async function verifyAuditChain(scope: OrgScope, batchSize = 1000): Promise<ChainVerdict> {
  let prevHash = GENESIS;
  let lastSeq = 0;
  let entries = 0;
  for (;;) {
    const batch = await scope
      .select(auditLog, isNotNull(auditLog.chainPos), gt(auditLog.chainPos, entries))
      .orderBy(auditLog.chainPos)
      .limit(batchSize);
    for (const row of batch) {
      const expectedPos = entries + 1;
      if (row.chainPos !== expectedPos || row.prevHash !== prevHash || row.seq <= lastSeq || entryHash(prevHash, row) !== row.hash) {
        return { ok: false, entries, brokenAt: row.seq };
      }
      prevHash = row.hash;
      lastSeq = row.seq;
      entries += 1;
    }
    if (batch.length < batchSize) break;
  }

  const [head] = await scope.select(auditChainHeads).limit(1);
  if ((head?.chainPos ?? 0) !== entries || (head ? head.hash !== prevHash || head.seq !== lastSeq : entries > 0)) {
    // Entries after the last one found were deleted (or the head row was).
    return { ok: false, entries, brokenAt: head && head.chainPos > entries ? head.seq : lastSeq };
  }

  const [slippedIn] = await scope
    .select(auditLog, isNull(auditLog.chainPos), or(lte(auditLog.seq, lastSeq), isNotNull(auditLog.hash), isNotNull(auditLog.prevHash)))
    .orderBy(auditLog.seq)
    .limit(1);
  if (slippedIn) return { ok: false, entries, brokenAt: slippedIn.seq };
  return { ok: true, entries, brokenAt: null };
}
