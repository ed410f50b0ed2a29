import type { ListPage, ListSort, SignatureRequestListItem, SignatureRequestState } from "@clinsign/contracts";
import {
  and,
  documents,
  eq,
  getTableColumns,
  gt,
  gte,
  inArray,
  isNotNull,
  isNull,
  lt,
  signatureRequests,
  signatureSigners,
  type SQL,
} from "@clinsign/db";
import type { OrgContext } from "../context";
import { page } from "../lists/keyset";
import { isPastExpiry, pinnedDocumentIdOf, type SignatureRequestRow } from "./request-read";

/** The filters of the organization-wide list (contracts: signatureRequestFilters). */
export interface SignatureRequestFilter {
  status?: SignatureRequestState;
  visibility?: "draft" | "active";
  patientId?: string;
  documentId?: string;
  institutionId?: string;
  createdFrom?: string;
  createdTo?: string;
}

/**
 * What staff see: the stored status, except that an open request past its expiry is `expired`
 * even before the expiry sweep marked it, and a `sealing` request whose seal job gave up is
 * `failed`.
 */
export function stateOf(
  row: Pick<SignatureRequestRow, "status" | "expiresAt" | "sealFailedAt">,
  now = new Date(),
): SignatureRequestState {
  if (isPastExpiry(row as SignatureRequestRow, now)) return "expired";
  if (row.status === "sealing" && row.sealFailedAt !== null) return "failed";
  return row.status;
}

/**
 * A state as a condition that the (organization_id, status, created_at, id) index answers as one
 * range with a cheap filter on top. `expired` is what the sweep marked: an open request past its
 * expiry shows as expired in the list at once, and is found under this filter after the next sweep
 * (jobs/expiry) marks it; it is never listed as pending or opened.
 */
function stateCondition(state: SignatureRequestState, now: Date): SQL {
  const s = signatureRequests;
  switch (state) {
    case "pending":
    case "opened":
      return and(eq(s.status, state), gt(s.expiresAt, now))!;
    case "sealing":
      return and(eq(s.status, "sealing"), isNull(s.sealFailedAt))!;
    case "failed":
      return and(eq(s.status, "sealing"), isNotNull(s.sealFailedAt))!;
    default:
      return eq(s.status, state);
  }
}

export function signatureRequestConditions(filter: SignatureRequestFilter, now = new Date()): (SQL | undefined)[] {
  const s = signatureRequests;
  return [
    filter.status ? stateCondition(filter.status, now) : undefined,
    filter.visibility ? eq(s.visibility, filter.visibility) : undefined,
    filter.patientId ? eq(s.patientId, filter.patientId) : undefined,
    filter.documentId ? eq(s.documentId, filter.documentId) : undefined,
    filter.institutionId ? eq(s.institutionExternalId, filter.institutionId) : undefined,
    filter.createdFrom ? gte(s.createdAt, new Date(filter.createdFrom)) : undefined,
    filter.createdTo ? lt(s.createdAt, new Date(filter.createdTo)) : undefined,
  ];
}

type ListRow = SignatureRequestRow & { documentName: string; documentVersion: number };

/** The list's order: (created_at, id), the key every filter's index ends with. */
export const SIGNATURE_LIST_KEY = [signatureRequests.createdAt, signatureRequests.id] as const;

/**
 * The list's query before its page (`page` adds the keyset condition, order and limit). Each
 * filter has an index ending in (created_at, id) (migration 0009), so a page is one index range
 * scan however deep it is. The page's documents are read afterwards by primary key: joined here,
 * a planner without statistics on the (small, rarely changing) documents table would read every
 * request of the organization document by document and sort them.
 */
export function signatureRequestQuery(ctx: OrgContext, filter: SignatureRequestFilter) {
  return ctx.scope
    .query(getTableColumns(signatureRequests))
    .from(signatureRequests)
    .where(...signatureRequestConditions(filter));
}

/**
 * The name and current version of the documents of one page of requests: the document each
 * request shows (pinned, issue 19: perhaps one in the patient's language), not necessarily A1's.
 */
async function withDocuments(ctx: OrgContext, rows: SignatureRequestRow[]): Promise<ListRow[]> {
  const ids = [...new Set(rows.map(pinnedDocumentIdOf))];
  const docs =
    ids.length === 0
      ? []
      : await ctx.scope
          .query({ id: documents.id, name: documents.name, currentVersion: documents.currentVersion })
          .from(documents)
          .where(inArray(documents.id, ids));
  const byId = new Map(docs.map((doc) => [doc.id, doc]));
  return rows.map((row) => {
    const doc = byId.get(pinnedDocumentIdOf(row));
    return { ...row, documentName: doc?.name ?? "", documentVersion: row.pinnedVersion ?? doc?.currentVersion ?? 1 };
  });
}

type SignerProgress = NonNullable<SignatureRequestListItem["signerProgress"]>;

/**
 * Requests with several signers on one page: how many of their signers have signed, in one query.
 * Such a request stays `opened` until everyone required has signed; without this the list would
 * say "Opened" after the patient signed (issue 31).
 */
async function signerProgressOf(ctx: OrgContext, ids: string[]): Promise<Map<string, SignerProgress>> {
  const progress = new Map<string, SignerProgress>();
  if (ids.length === 0) return progress;
  const rows = await ctx.scope
    .query({ signatureRequestId: signatureSigners.signatureRequestId, status: signatureSigners.status })
    .from(signatureSigners)
    .where(inArray(signatureSigners.signatureRequestId, ids));
  for (const row of rows) {
    // An optional signer skipped at sealing will not sign: not one of those who sign.
    if (row.status === "skipped") continue;
    const entry = progress.get(row.signatureRequestId) ?? { signed: 0, total: 0 };
    entry.total += 1;
    if (row.status === "signed") entry.signed += 1;
    progress.set(row.signatureRequestId, entry);
  }
  return progress;
}

const iso = (d: Date | null) => d?.toISOString() ?? null;
const idOf = (row: { id: string }) => row.id;

export function toListItem(row: ListRow, signerProgress?: SignerProgress): SignatureRequestListItem {
  return {
    id: row.id,
    patientId: row.patientId,
    documentId: pinnedDocumentIdOf(row),
    ...(row.pinnedDocumentId && row.pinnedDocumentId !== row.documentId && { requestedDocumentId: row.documentId }),
    documentName: row.documentName,
    documentVersion: row.documentVersion,
    institutionId: row.institutionExternalId,
    orderBy: row.orderBy,
    status: stateOf(row),
    visibility: row.visibility,
    createdAt: row.createdAt.toISOString(),
    expiresAt: row.expiresAt.toISOString(),
    openedAt: iso(row.openedAt),
    completedAt: iso(row.completedAt),
    declinedAt: iso(row.declinedAt),
    ...(signerProgress && { signerProgress }),
    kioskStartedAt: iso(row.kioskStartedAt),
  };
}

/** Staff: a page of the organization's signature requests (the list contract). */
export async function listSignatureRequestPage(
  ctx: OrgContext,
  input: SignatureRequestFilter & { cursor?: string; limit: number; sort: ListSort },
): Promise<ListPage<SignatureRequestListItem>> {
  const found = await page(signatureRequestQuery(ctx, input), SIGNATURE_LIST_KEY, input, (row) => row);
  const rows = await withDocuments(ctx, found.items);
  const progress = await signerProgressOf(ctx, found.items.map(idOf));
  return { ...found, items: rows.map((row) => toListItem(row, progress.get(row.id))) };
}
