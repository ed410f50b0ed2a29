import { z } from "zod";
import { auditLogEntry } from "./forms";
import { createdRange, listInput, listPage, listSort } from "./lists";
import { templateIdentifier } from "./templates";

export * from "./audit-actions";

// ---- staff: the audit log section --------------------------------------------------------------

/**
 * Who acted, one word per concept: an API token, an embed session, the recipient of an SMS form
 * request, the patient signing a request, a staff member, the service itself.
 */
export const auditActorTypes = ["api_key", "embed_session", "sms_recipient", "signer", "user", "system"] as const;
export type AuditActorType = (typeof auditActorTypes)[number];

/** The words entries before issue 22 were written with, and what they mean today. */
export const legacyAuditActorTypes = { session: "embed_session", portal: "sms_recipient" } as const;

/** The actor filter: today's words; the old spellings (bookmarked links) still mean what they meant. */
const auditActorFilter = z
  .enum([...auditActorTypes, ...(Object.keys(legacyAuditActorTypes) as (keyof typeof legacyAuditActorTypes)[])])
  .transform(
    (type): AuditActorType =>
      (legacyAuditActorTypes as Record<string, AuditActorType>)[type] ?? (type as AuditActorType),
  );

/** The filters of the staff audit list, shared by the list and its CSV export. */
export const auditFilters = {
  action: z.string().trim().min(1).max(100).optional(),
  templateIdentifier: templateIdentifier.optional(),
  actorType: auditActorFilter.optional(),
  ...createdRange,
};

/** Staff: the audit log in chain order (newest first by default). */
export const listAuditEntriesInput = listInput(auditFilters);
export type ListAuditEntriesInput = z.input<typeof listAuditEntriesInput>;

/**
 * `chained`: linked into the hash chain yet (until then a change to the entry would not show);
 * `actorName`: the staff member's name (or e-mail) when a member of the organization acted, or
 * the name staff gave a signer who signed by link; `actorRole`: for a signer (`actorType`
 * `signer`), whose signature it is (a built-in role such as `physician`, or the clinic's own
 * name; `patient` for the request's patient), else null.
 */
export const auditListItem = auditLogEntry.extend({
  seq: z.number().int(),
  chained: z.boolean(),
  actorName: z.string().nullable(),
  actorRole: z.string().nullable(),
});
export type AuditListItem = z.infer<typeof auditListItem>;
export const auditListPage = listPage(auditListItem);

/** GET /staff/audit-log/export (owner and admin only): the list's filters as CSV. */
export const auditExportQuery = z.object({ ...auditFilters, sort: listSort.default("newest") });
export type AuditExportQuery = z.input<typeof auditExportQuery>;

export const auditChainProblems = [
  "chain_broken",
  "head_mismatch",
  "slipped_in",
  "seq_out_of_range",
  "unchained_overdue",
] as const;
export const auditChainWarnings = ["unchained_pending", "late_entries"] as const;

/**
 * The chain check: ok, or the seq of the first entry that was edited, inserted or removed and why;
 * with the entries not chained yet (until chained, an edit or delete of them is not detectable) and
 * those chained late (their transaction was open when the chain passed their seq).
 */
export const auditChainVerdict = z.object({
  ok: z.boolean(),
  entries: z.number().int(),
  brokenAt: z.number().int().nullable(),
  problem: z.enum(auditChainProblems).nullable(),
  lateEntries: z.number().int(),
  unchained: z.object({
    count: z.number().int(),
    oldestAgeSeconds: z.number().int().nullable(),
    maxAgeSeconds: z.number().int(),
  }),
  warnings: z.array(z.enum(auditChainWarnings)),
});
export type AuditChainVerdict = z.infer<typeof auditChainVerdict>;
