import { createHmac, randomBytes, randomUUID } from "node:crypto";
import {
  and,
  auditChainGaps,
  auditChainHeads,
  auditLog,
  count,
  gt,
  isNotNull,
  isNull,
  lt,
  lte,
  max,
  min,
  notInArray,
  or,
  sql,
  type OrgScope,
  type SQL,
} from "@clinsign/db";
import type { AuditAction } from "@clinsign/contracts";
import { canonicalJson } from "../canonical-json";
import type { OrgContext } from "../context";
import { sha256Hex } from "../crypto";
import { sequenceHighWater } from "../jobs/audit-sequence";

export interface AuditInput {
  /** One of the service's actions (`auditActions`); `test.*` only in tests. */
  action: AuditAction | `test.${string}`;
  templateIdentifier?: string | null;
  metadata?: Record<string, unknown>;
}

/**
 * Whether a chained row's hash is the one its fields give. An erased entry of the older form has no
 * content left to recompute it from: its hash stands as stored, and the links on both sides of it
 * (its `prev_hash`, the next entry's) are what verify checks.
 */
function hashHolds(prevHash: string, row: typeof auditLog.$inferSelect): boolean {
  const form = entryForm(row);
  // An erased entry is empty: content put back after the erasure is not covered by anything.
  if ((form === "erased" || form === "erased_content") && !isEmptyPersonalPart(row)) return false;
  const hash = entryHash(prevHash, row);
  return hash === null ? row.hash !== null : hash === row.hash;
}

const isEmptyPersonalPart = (row: Pick<ChainedFields, "metadata" | "ip" | "userAgent">) =>
  row.ip === null && row.userAgent === null && Object.keys(row.metadata ?? {}).length === 0;

/** The `prev_hash` of an organization's first chained entry. */
export const GENESIS = "0".repeat(64);

type ChainedFields = Pick<
  typeof auditLog.$inferSelect,
  | "organizationId"
  | "seq"
  | "action"
  | "templateIdentifier"
  | "actorType"
  | "actorId"
  | "metadata"
  | "ip"
  | "userAgent"
  | "createdAt"
> &
  Partial<Pick<typeof auditLog.$inferSelect, "personalSalt" | "personalCommitment" | "erasedAt">>;

/**
 * The commitment to an entry's personal part (`metadata`, `ip`, `user_agent`): HMAC-SHA-256 keyed
 * with the entry's own random salt. Without the salt it reveals nothing, not even for a part with
 * few possible values (a phone number, a case number), which an unsalted hash would give away to
 * anyone who tries them all.
 */
export function personalCommitment(salt: string, entry: Pick<ChainedFields, "metadata" | "ip" | "userAgent">): string {
  return createHmac("sha256", salt)
    .update(canonicalJson({ metadata: entry.metadata, ip: entry.ip, userAgent: entry.userAgent }))
    .digest("hex");
}

/** A fresh salt for one entry (256 random bits, hex). */
export const newPersonalSalt = () => randomBytes(32).toString("hex");

/** How an entry is hashed: see docs/architecture.md, "Erasure and the audit chain". */
export type EntryForm =
  /** Written before migration 0029: the hash covers the personal part itself. */
  | "content"
  /** The hash covers a salted commitment to the personal part, recomputed from salt and content. */
  | "committed"
  /** Erased: salt and personal part are gone, the stored commitment stands in for them. */
  | "erased"
  /** Written before 0029 and erased since: the hash cannot be recomputed; only its links are checked. */
  | "erased_content";

export function entryForm(entry: ChainedFields): EntryForm {
  if (entry.personalSalt) return "committed";
  if (entry.personalCommitment) return "erased";
  return entry.erasedAt ? "erased_content" : "content";
}

/**
 * Hashes exactly the chained fields, so a full row read back (id, hashes …) hashes like the entry
 * written. An entry with a salt (since migration 0029) is hashed with the commitment to its
 * personal part in place of the part; one without (older entries) with the part itself, unchanged
 * since entries were chained in the request, so rows chained before migrations 0010 and 0029
 * verify as they are. Null for an erased entry of the older form (its content is gone).
 */
export function entryHash(prevHash: string, entry: ChainedFields): string | null {
  const form = entryForm(entry);
  if (form === "erased_content") return null;
  const common = {
    organizationId: entry.organizationId,
    seq: Number(entry.seq),
    action: entry.action,
    templateIdentifier: entry.templateIdentifier,
    actorType: entry.actorType,
    actorId: entry.actorId,
  };
  const createdAt = entry.createdAt.toISOString();
  if (form === "content") {
    const chained: Record<Exclude<keyof ChainedFields, "personalSalt" | "personalCommitment" | "erasedAt">, unknown> = {
      ...common,
      metadata: entry.metadata,
      ip: entry.ip,
      userAgent: entry.userAgent,
      createdAt,
    };
    return sha256Hex(`${prevHash}\n${canonicalJson(chained)}`);
  }
  const personal = form === "committed" ? personalCommitment(entry.personalSalt!, entry) : entry.personalCommitment!;
  return sha256Hex(`${prevHash}\n${canonicalJson({ ...common, personal, createdAt, form: "committed" })}`);
}

/**
 * Writes one audit entry. Call it with the context of the transaction that makes the change, so the
 * entry exists exactly when the change does (and F13 lists it as soon as the request returns).
 *
 * The entry is written unchained: one insert, no lock, its `seq` drawn from a sequence. The
 * chainer (core/jobs/audit-chain.ts, run by jobs/audit-chainer.ts) links it into the organization's
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
    personalSalt: newPersonalSalt(),
    // Milliseconds, as a JavaScript Date reads it back: the hash is computed from the stored value.
    createdAt: new Date(),
  });
}

/**
 * The entry `recordAudit` writes, as an `insert … select` with one entry per row of `source` (a
 * CTE of the same statement). For hot paths that make their change and audit it in one
 * data-modifying statement built once (`scopedStatement`): a single statement is atomic without
 * BEGIN/COMMIT round trips, and the entry exists exactly when the change does (no row in
 * `source`, no entry). Its values are placeholders, given by `auditInsertValues`.
 */
export function auditInsertFrom(organizationId: SQL, source: SQL): SQL {
  const value = (name: keyof ReturnType<typeof auditInsertValues>) => sql.placeholder(name);
  return sql`insert into audit_log (id, organization_id, action, template_identifier, actor_type, actor_id, metadata, ip, user_agent, created_at, personal_salt)
    select ${value("auditId")}::uuid, ${organizationId}, ${value("auditAction")}, ${value("auditTemplateIdentifier")},
      ${value("auditActorType")}, ${value("auditActorId")}, ${value("auditMetadata")}::jsonb, ${value("auditIp")},
      ${value("auditUserAgent")}, ${value("auditCreatedAt")}::timestamptz, ${value("auditPersonalSalt")}
    from ${source}`;
}

/** The values of the entry `auditInsertFrom` writes, as `recordAudit` would write them. */
export function auditInsertValues(ctx: OrgContext, input: AuditInput) {
  return {
    auditId: randomUUID(),
    auditAction: input.action,
    auditTemplateIdentifier: input.templateIdentifier ?? null,
    auditActorType: ctx.actor.type,
    auditActorId: ctx.actor.id,
    auditMetadata: JSON.stringify(input.metadata ?? {}),
    auditIp: ctx.request.ip,
    auditUserAgent: ctx.request.userAgent,
    auditCreatedAt: new Date().toISOString(),
    auditPersonalSalt: newPersonalSalt(),
  };
}

/** Why a verdict is not ok. */
export type ChainProblem =
  /** A chained entry does not match its position, link, hash or seq order (edited, deleted, inserted, reordered). */
  | "chain_broken"
  /** The chain does not end where its head row says (the newest entries cut off, or the head changed). */
  | "head_mismatch"
  /** An unchained entry claims a seq inside the chained part, or carries chain fields. */
  | "slipped_in"
  /** An entry's seq did not come from the sequence (above its current value, or below 1). */
  | "seq_out_of_range"
  /** An entry is unchained for longer than the configured bound (AUDIT_MAX_UNCHAINED_SECONDS). */
  | "unchained_overdue";

/** What verify reports without failing. */
export type ChainWarning =
  /** Entries not chained yet (younger than the bound): until chained, an edit or delete of them is not detectable. */
  | "unchained_pending"
  /** Entries chained out of seq order because their transaction was still open when the chain passed their seq. */
  | "late_entries";

export interface ChainVerdict {
  ok: boolean;
  /** Chained entries that verified (entries still waiting for the chainer are not counted). */
  entries: number;
  /** seq of the first entry that fails (for a cut-off chain: the head's seq), or null. */
  brokenAt: number | null;
  problem: ChainProblem | null;
  /** Chained entries appended after their seq's place (see `audit_chain_gaps`). */
  lateEntries: number;
  /**
   * Chained entries whose personal part a patient erasure removed; `linkOnly` of them were written
   * before migration 0029, so only their place in the chain is checked (docs/architecture.md,
   * "Erasure and the audit chain"). Present only once an erasure removed something.
   */
  erased?: { entries: number; linkOnly: number };
  /** Entries not in the chain when verify ran, and how old the oldest is (by its created_at). */
  unchained: { count: number; oldestAgeSeconds: number | null; maxAgeSeconds: number };
  warnings: ChainWarning[];
}

/** The default of AUDIT_MAX_UNCHAINED_SECONDS (apps/api/src/env.ts). */
export const DEFAULT_MAX_UNCHAINED_SECONDS = 60;

export interface VerifyOptions {
  /** An entry unchained for longer fails verify. */
  maxUnchainedSeconds?: number;
  batchSize?: number;
}

/**
 * Verifies the organization's audit log: walks the chain in position order and checks each entry's
 * position, link and hash and that seq rises along it (except for late entries of a recorded gap);
 * checks that the chain ends where the head row says (the newest entries were not cut off); that no
 * unchained entry claims a seq inside the chained part (the chainer links in seq order, so such a
 * row was slipped in later); that every seq was handed out by the sequence; and reports the entries
 * not chained yet, failing when one is older than `maxUnchainedSeconds`.
 */
export async function verifyAuditChain({ scope }: OrgContext, options: VerifyOptions = {}): Promise<ChainVerdict> {
  const maxAgeSeconds = options.maxUnchainedSeconds ?? DEFAULT_MAX_UNCHAINED_SECONDS;
  const gaps = new Set((await scope.select(auditChainGaps)).map((gap) => gap.xactId));
  const notInGap = or(isNull(auditLog.xactId), notInArray(auditLog.xactId, gaps.size ? [...gaps] : [-1]));
  const walked = await walkChain(scope, gaps, options.batchSize ?? 1000);
  // Each check runs only while the chain still holds: the first problem is the one reported.
  let failure = walked.failure;
  failure ??= await headMismatch(scope, walked);
  failure ??= await slippedInEntry(scope, walked.maxSeq, notInGap);
  failure ??= await seqOutOfRange(scope);
  const unchained = await unchainedEntries(scope);
  if (!failure && unchained.oldestAgeSeconds !== null && unchained.oldestAgeSeconds > maxAgeSeconds)
    failure = await overdueEntry(scope, maxAgeSeconds, notInGap);

  const { entries, lateEntries, erasedEntries, erasedLinkOnly } = walked;
  const warnings: ChainWarning[] = [];
  if (unchained.count > 0) warnings.push("unchained_pending");
  if (lateEntries > 0) warnings.push("late_entries");
  return {
    ok: failure === null,
    entries,
    brokenAt: failure?.brokenAt ?? null,
    problem: failure?.problem ?? null,
    lateEntries,
    ...(erasedEntries > 0 && { erased: { entries: erasedEntries, linkOnly: erasedLinkOnly } }),
    unchained: { ...unchained, maxAgeSeconds },
    warnings,
  };
}

type ChainFailure = { problem: ChainProblem; brokenAt: number } | null;

interface WalkedChain {
  failure: ChainFailure;
  prevHash: string;
  lastSeq: number;
  maxSeq: number;
  entries: number;
  lateEntries: number;
  erasedEntries: number;
  erasedLinkOnly: number;
}

/** Follows the chain from the genesis in batches: positions, links, hashes; late only inside a recorded gap. */
async function walkChain(scope: OrgScope, gaps: Set<number>, batchSize: number): Promise<WalkedChain> {
  const isLate = (xactId: number | null) => xactId !== null && gaps.has(xactId);
  const walked: WalkedChain = {
    failure: null,
    prevHash: GENESIS,
    lastSeq: 0,
    maxSeq: 0,
    entries: 0,
    lateEntries: 0,
    erasedEntries: 0,
    erasedLinkOnly: 0,
  };
  for (;;) {
    const batch = await scope
      .select(auditLog, isNotNull(auditLog.chainPos), gt(auditLog.chainPos, walked.entries))
      .orderBy(auditLog.chainPos)
      .limit(batchSize);
    for (const row of batch) {
      const late = row.seq <= walked.maxSeq;
      if (
        row.chainPos !== walked.entries + 1 ||
        row.prevHash !== walked.prevHash ||
        (late && !isLate(row.xactId)) ||
        !hashHolds(walked.prevHash, row)
      )
        return { ...walked, failure: { problem: "chain_broken", brokenAt: row.seq } };
      if (late) walked.lateEntries += 1;
      const form = entryForm(row);
      if (form === "erased" || form === "erased_content") walked.erasedEntries += 1;
      if (form === "erased_content") walked.erasedLinkOnly += 1;
      walked.prevHash = row.hash!;
      walked.lastSeq = row.seq;
      walked.maxSeq = Math.max(walked.maxSeq, row.seq);
      walked.entries += 1;
    }
    if (batch.length < batchSize) return walked;
  }
}

/** Entries after the last one found were deleted (or the head row was). */
async function headMismatch(
  scope: OrgScope,
  { entries, prevHash, maxSeq, lastSeq }: WalkedChain,
): Promise<ChainFailure> {
  const [head] = await scope.select(auditChainHeads).limit(1);
  if ((head?.chainPos ?? 0) !== entries || (head ? head.hash !== prevHash || head.seq !== maxSeq : entries > 0))
    return { problem: "head_mismatch", brokenAt: head && head.chainPos > entries ? head.seq : lastSeq };
  return null;
}

/** Late entries of a recorded gap may still be waiting for the chainer; anything else below the head was slipped in. */
async function slippedInEntry(scope: OrgScope, maxSeq: number, notInGap: SQL | undefined): Promise<ChainFailure> {
  const [slippedIn] = await scope
    .select(
      auditLog,
      isNull(auditLog.chainPos),
      or(and(lte(auditLog.seq, maxSeq), notInGap), isNotNull(auditLog.hash), isNotNull(auditLog.prevHash)),
    )
    .orderBy(auditLog.seq)
    .limit(1);
  return slippedIn ? { problem: "slipped_in", brokenAt: slippedIn.seq } : null;
}

/** A seq the sequence never handed out. */
async function seqOutOfRange(scope: OrgScope): Promise<ChainFailure> {
  // Read the entries' range before the sequence: every seq visible here was drawn before it is read.
  const [range] = await scope.query({ max: max(auditLog.seq) }).from(auditLog);
  const highWater = await sequenceHighWater(scope);
  // (A seq below 1, which the sequence never hands out either, lies below the head: refused above as slipped in.)
  if (range?.max != null && Number(range.max) > highWater)
    return { problem: "seq_out_of_range", brokenAt: Number(range.max) };
  return null;
}

/** How many entries wait for the chainer, and how long the oldest has waited. */
async function unchainedEntries(scope: OrgScope) {
  const [pending] = await scope
    .query({ count: count(), oldest: min(auditLog.createdAt) })
    .from(auditLog)
    .where(isNull(auditLog.chainPos));
  const oldest = pending?.oldest ? new Date(pending.oldest) : null;
  return {
    count: Number(pending?.count ?? 0),
    oldestAgeSeconds: oldest ? Math.max(0, Math.floor((Date.now() - oldest.getTime()) / 1000)) : null,
  };
}

/** The first entry left unchained longer than allowed, outside a recorded gap. */
async function overdueEntry(scope: OrgScope, maxAgeSeconds: number, notInGap: SQL | undefined): Promise<ChainFailure> {
  const [overdue] = await scope
    // A late entry's created_at is when its long transaction wrote it, not when it became visible.
    .select(
      auditLog,
      isNull(auditLog.chainPos),
      lt(auditLog.createdAt, new Date(Date.now() - maxAgeSeconds * 1000)),
      notInGap,
    )
    .orderBy(auditLog.seq)
    .limit(1);
  return overdue ? { problem: "unchained_overdue", brokenAt: overdue.seq } : null;
}
