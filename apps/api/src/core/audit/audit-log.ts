import {
  PATIENT_ROLE,
  type AuditListItem,
  type AuditLogEntry,
  type ListPage,
  type ListSort,
} from "@clinsign/contracts";
import {
  auditLog,
  desc,
  eq,
  gte,
  inArray,
  lt,
  memberships,
  signatureSigners,
  sql,
  users,
  type ActorType,
  type SQL,
} from "@clinsign/db";
import type { OrgContext } from "../context";
import { AppError } from "../errors";
import { actsForOrganization } from "../permissions";
import { CSV_BOM, csvRow } from "../lists/csv";
import { afterKey, decodeCursor, keyOrder, parseSeqKey, toPage } from "../lists/keyset";
import { recordAudit, verifyAuditChain, type ChainVerdict } from "./audit";
import { chainScopeNow } from "../jobs/audit-chain";

/** F13: newest first, filtered by action and template (indexes: org + action and/or template + seq). */
export async function listAuditLog(
  ctx: OrgContext,
  input: { action?: string; templateIdentifier?: string; limit: number },
): Promise<AuditLogEntry[]> {
  const rows = await ctx.scope
    .select(
      auditLog,
      input.action ? eq(auditLog.action, input.action) : undefined,
      input.templateIdentifier ? eq(auditLog.templateIdentifier, input.templateIdentifier) : undefined,
    )
    // seq rises with time (and is the chain order), and every filter has an index ending in it.
    .orderBy(desc(auditLog.seq))
    .limit(input.limit);
  return rows.map((r) => toAreaBEntry(ctx, r));
}

/**
 * The one rule for the network data of audit entries (IP address, user agent), used by the lists
 * and the CSV export alike: those who act for the organization (owners, admins, API tokens) see
 * it; the staff role gets null. Addresses and user agents identify patients' and colleagues'
 * devices, beyond what the staff role needs to follow the forms it works with.
 */
export function networkDataFor(
  ctx: OrgContext,
  r: { ip: string | null; userAgent: string | null },
): { ip: string | null; userAgent: string | null } {
  return actsForOrganization(ctx.actor) ? { ip: r.ip, userAgent: r.userAgent } : { ip: null, userAgent: null };
}

/**
 * F13 answers with the interface document's actor types, whatever today's word: an embed session
 * is `session`, and both patients, the SMS recipient and the one signing, are `portal` (the
 * patient-facing door they used).
 */
const AREA_B_ACTOR_TYPES: Partial<Record<ActorType, string>> = {
  embed_session: "session",
  sms_recipient: "portal",
  signer: "portal",
};

const toAreaBEntry = (ctx: OrgContext, r: typeof auditLog.$inferSelect): AuditLogEntry => ({
  ...toEntry(ctx, r),
  actorType: AREA_B_ACTOR_TYPES[r.actorKind] ?? r.actorKind,
});

/** An entry as staff see it: the actor in today's words (`actor_kind`), old spellings included. */
const toEntry = (ctx: OrgContext, r: typeof auditLog.$inferSelect): AuditLogEntry => ({
  id: r.id,
  action: r.action,
  templateIdentifier: r.templateIdentifier,
  actorType: r.actorKind,
  actorId: r.actorId,
  metadata: r.metadata,
  ...networkDataFor(ctx, r),
  createdAt: r.createdAt.toISOString(),
});

/** The filters of the staff audit list and its export (contracts: auditFilters). */
export interface AuditFilter {
  action?: string;
  templateIdentifier?: string;
  actorType?: ActorType;
  createdFrom?: string;
  createdTo?: string;
}

function auditConditions(filter: AuditFilter): (SQL | undefined)[] {
  return [
    filter.action ? eq(auditLog.action, filter.action) : undefined,
    filter.templateIdentifier ? eq(auditLog.templateIdentifier, filter.templateIdentifier) : undefined,
    filter.actorType ? eq(auditLog.actorKind, filter.actorType) : undefined,
    filter.createdFrom ? gte(auditLog.createdAt, new Date(filter.createdFrom)) : undefined,
    filter.createdTo ? lt(auditLog.createdAt, new Date(filter.createdTo)) : undefined,
  ];
}

/** One keyset page along the chain's seq (unique per organization, so it alone is the key). */
async function auditRows(
  ctx: OrgContext,
  filter: AuditFilter,
  sort: ListSort,
  afterSeq: number | undefined,
  limit: number,
) {
  return ctx.scope
    .select(
      auditLog,
      ...auditConditions(filter),
      afterSeq === undefined ? undefined : afterKey([auditLog.seq], [sql`${afterSeq}`], sort),
    )
    .orderBy(...keyOrder([auditLog.seq], sort))
    .limit(limit + 1);
}

/**
 * The names of the staff members among the entries' actors (their e-mail when they have no name),
 * members of this organization only: an id alone does not say who acted.
 */
async function staffNames(ctx: OrgContext, rows: (typeof auditLog.$inferSelect)[]): Promise<Map<string, string>> {
  const ids = [...new Set(rows.filter((r) => r.actorType === "user").map((r) => r.actorId))].filter(isUuid);
  if (ids.length === 0) return new Map();
  const found = await ctx.scope
    .query({ id: users.id, name: users.name, email: users.email })
    .from(memberships)
    .innerJoin(users, eq(users.id, memberships.userId))
    .where(inArray(users.id, ids));
  return new Map(found.map((u) => [u.id, u.name?.trim() || u.email]));
}

const text = (value: unknown): string | null => (typeof value === "string" && value.trim() ? value.trim() : null);
const isUuid = (value: string | null): value is string => value !== null && /^[0-9a-f-]{36}$/i.test(value);

/**
 * Who signed, for the entries a signer wrote: the role the entry names (`metadata.role`: since
 * several signers, the signer's own steps carry it; none means the request's patient) and the name
 * staff gave the signer, as the entry records it (since issue 31) or else as the signer's row still
 * holds it. Read at display time from what is stored: the chained fields are never rewritten.
 */
async function signerActors(
  ctx: OrgContext,
  rows: (typeof auditLog.$inferSelect)[],
): Promise<Map<string, { role: string; name: string | null }>> {
  const signed = rows.filter((r) => r.actorKind === "signer");
  const unnamed = [
    ...new Set(signed.filter((r) => !text(r.metadata.signerName)).map((r) => text(r.metadata.signerId))),
  ].filter(isUuid);
  const found = unnamed.length
    ? await ctx.scope
        .query({ id: signatureSigners.id, name: signatureSigners.name })
        .from(signatureSigners)
        .where(inArray(signatureSigners.id, unnamed))
    : [];
  const names = new Map(found.map((s) => [s.id, text(s.name)]));
  return new Map(
    signed.map((r) => [
      r.id,
      {
        role: text(r.metadata.role) ?? PATIENT_ROLE,
        name: text(r.metadata.signerName) ?? names.get(text(r.metadata.signerId) ?? "") ?? null,
      },
    ]),
  );
}

/** Staff: the audit log by action, template, actor type and time (the list contract). */
export async function listAuditEntries(
  ctx: OrgContext,
  input: AuditFilter & { cursor?: string; limit: number; sort: ListSort },
): Promise<ListPage<AuditListItem>> {
  const after = input.cursor ? decodeCursor(input.cursor, parseSeqKey) : undefined;
  const rows = await auditRows(ctx, input, input.sort, after, input.limit);
  const names = await staffNames(ctx, rows.slice(0, input.limit));
  const signers = await signerActors(ctx, rows.slice(0, input.limit));
  return toPage(
    rows,
    input.limit,
    (r): AuditListItem => ({
      ...toEntry(ctx, r),
      seq: r.seq,
      chained: r.chainPos !== null,
      actorName:
        r.actorType === "user" && r.actorId ? (names.get(r.actorId) ?? null) : (signers.get(r.id)?.name ?? null),
      actorRole: signers.get(r.id)?.role ?? null,
    }),
    (r) => [r.seq],
  );
}

/**
 * Staff and `cli audit verify`: chains what the background chainer has not reached yet (so the
 * verdict covers every entry committed before the call; writers still open after a few seconds are
 * chained past, their entries come late), then walks the organization's whole chain and reports
 * what is still unchained, failing past AUDIT_MAX_UNCHAINED_SECONDS.
 */
export async function verifyOrganizationChain(
  ctx: OrgContext,
  options: { waitMs?: number } = {},
): Promise<ChainVerdict> {
  await chainScopeNow(ctx.scope, options);
  return verifyAuditChain(ctx, { maxUnchainedSeconds: ctx.services.config.auditMaxUnchainedSeconds });
}

const AUDIT_EXPORT_PAGE = 1000;
const AUDIT_COLUMNS = [
  "seq",
  "created_at",
  "action",
  "template",
  "actor_type",
  "actor_id",
  "ip",
  "user_agent",
  "metadata",
  "hash",
  "chain_pos",
];
/** The hash cell of an entry the chainer has not linked yet: never an empty cell that looks like a hash is missing. */
export const UNCHAINED_HASH_CELL = "pending (unchained)";

/**
 * Owners and admins: the filtered audit log as CSV, page by page (a BOM, formula-safe cells). Each
 * row carries its chain position and hash, so the newest chained (chain_pos, hash) is a copy of the
 * head to keep outside the database; entries not chained yet say so in the hash cell.
 * Staff get 403: the log names who did what, beyond the forms they work with.
 */
export async function* exportAuditCsv(ctx: OrgContext, filter: AuditFilter, sort: ListSort): AsyncGenerator<string> {
  if (ctx.actor.type !== "user" || !actsForOrganization(ctx.actor))
    throw new AppError("forbidden", "exporting the audit log needs the admin or owner role");
  await recordAudit(ctx, {
    action: "audit.exported",
    templateIdentifier: filter.templateIdentifier ?? null,
    metadata: { filter: { ...filter } },
  });
  yield CSV_BOM + csvRow(AUDIT_COLUMNS);
  let afterSeq: number | undefined;
  for (;;) {
    const rows = await auditRows(ctx, filter, sort, afterSeq, AUDIT_EXPORT_PAGE);
    const page = rows.slice(0, AUDIT_EXPORT_PAGE);
    yield page
      .map((r) => {
        const { ip, userAgent } = networkDataFor(ctx, r);
        return csvRow([
          r.seq,
          r.createdAt.toISOString(),
          r.action,
          r.templateIdentifier,
          r.actorType,
          r.actorId,
          ip,
          userAgent,
          JSON.stringify(r.metadata),
          r.hash ?? UNCHAINED_HASH_CELL,
          r.chainPos,
        ]);
      })
      .join("");
    if (rows.length <= AUDIT_EXPORT_PAGE) return;
    afterSeq = page[page.length - 1]!.seq;
  }
}
