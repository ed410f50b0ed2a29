/**
 * What the organization holds about one patient (`PatientRecords`): finding it (the queries are in
 * patient-record-finders.ts), counting it, and reading its rows page by page.
 */
import {
  auditLog,
  fhirDeliveries,
  drafts,
  formRequests,
  formSessions,
  formUploads,
  jobs,
  messages,
  signatureNotices,
  signatureRequests,
  signingCredentials,
  submissions,
  webhookAttempts,
  webhookDeliveries,
} from "@clinsign/db";
import { erasureRecordKinds, PATIENT_ROLE, type ErasureRecordKind, type PatientSelector } from "@clinsign/contracts";
import type { OrgContext } from "../context";
import { smsFormDraftKey } from "../context";
import {
  findAuditEntryIds,
  findFhirDeliveryIds,
  findFormRecords,
  findJobIds,
  findMessageIds,
  findSignatureRequests,
  findSigningRecords,
  findWebhookRecords,
  patientValuesOf,
  unique,
} from "./patient-record-finders";
import { inList } from "./record-filters";

/** Every kind of record held about a patient, in the order erasure removes them. */
export const patientRecordKinds = erasureRecordKinds;
export type PatientRecordKind = ErasureRecordKind;

/**
 * What the organization holds about one patient: record ids per kind, and the keys of the stored
 * objects (attachments, signature images, stamped and sealed PDFs, metadata JSON). Ids and keys
 * only, never patient values: a report can show it, and the rows are read in pages by id
 * (`patientRecordPages`).
 */
export interface PatientRecords {
  ids: Record<PatientRecordKind, string[]>;
  /** Stored objects, each with the kind of record that names it. */
  objects: { key: string; kind: "upload" | "signature_image" | "stamped_pdf" | "signed_pdf" | "metadata_json" }[];
  /**
   * The patient's own signer rows (role `patient`) of requests with several signers (issue 20):
   * when and how they signed, their drawn signature. The rows go with their request (a cascade);
   * every signer's drawn signature of the patient's requests is in `objects`, so nothing of a
   * request is left in storage when it goes, but only the patient's own row is theirs to read.
   */
  patientSigners: string[];
  /**
   * The values by which the patient's records were found (the selector's, the phone in E.164 too):
   * what a scan for leftovers searches for. Kept in memory only, never reported.
   */
  terms: string[];
}

/**
 * Finds every record the caller's organization holds about the patient the selector names. Reads
 * only; run it in the transaction that acts on the result (erasure) so the set cannot change under
 * it. Records are linked as the service links them:
 * - signature requests by `patient_id` or the patient's phone; their signing credentials, notices,
 *   the notices' messages, and the stored signature image, stamped and sealed PDF and metadata JSON;
 *   with several signers, the signers' drawn signatures and the patient's own signer row;
 * - SMS form requests by case number or phone; their OTP challenges, messages and draft;
 * - embed sessions whose config names the case number or phone; their drafts (pinned or in the
 *   session's namespace) and uploads;
 * - submissions by case number or phone, or made through one of those requests or sessions, and the
 *   uploads their answers name;
 * - messages to the phone or whose body names the case number, phone or patient id (result e-mails);
 * - webhook deliveries whose body names any of the patient's values or record ids, their attempts;
 * - jobs that carry one of those messages, deliveries or signature requests;
 * - audit entries about any of those records, written by the patient (signer, SMS recipient, embed
 *   session), or naming the patient's values in their metadata.
 */
export async function findPatientRecords(ctx: OrgContext, selector: PatientSelector): Promise<PatientRecords> {
  const patient = await patientValuesOf(ctx, selector);
  const signatureRows = await findSignatureRequests(ctx, patient);
  const signatureIds = unique(signatureRows.map((r) => r.id));
  const forms = await findFormRecords(ctx, patient);
  const { formRequestIds, sessionIds, pinnedDrafts, submissionIds } = forms;
  const { credentialIds, signerRows, noticeRows } = await findSigningRecords(ctx, signatureIds);
  const messageIds = await findMessageIds(ctx, patient, {
    formRequestIds,
    noticeMessageIds: unique(noticeRows.map((n) => n.messageId)),
  });
  const { deliveryIds, attemptIds } = await findWebhookRecords(
    ctx,
    [...patient.all, ...pinnedDrafts.map((s) => s.config.draftKey!)],
    [...submissionIds, ...signatureIds, ...formRequestIds, ...sessionIds],
  );
  const fhirDeliveryIds = await findFhirDeliveryIds(ctx, [...submissionIds, ...signatureIds]);
  // Webhook and FHIR push jobs both name their delivery as `deliveryId`.
  const jobIds = await findJobIds(ctx, { messageIds, deliveryIds: [...deliveryIds, ...fhirDeliveryIds], signatureIds });
  const draftKeys = unique([
    ...pinnedDrafts.map((s) => s.config.draftKey),
    ...formRequestIds.map(smsFormDraftKey),
    ...sessionIds.map((id) => `session:${id}:`),
  ]);
  const auditIds = await findAuditEntryIds(ctx, patient, {
    signatureIds,
    formRequestIds,
    submissionIds,
    sessionIds,
    deliveryIds,
    messageIds,
    draftKeys,
  });

  return {
    ids: {
      embedSessions: sessionIds,
      drafts: forms.draftIds,
      submissions: submissionIds,
      uploads: unique(forms.uploadRows.map((u) => u.id)),
      formRequests: formRequestIds,
      otpChallenges: forms.otpIds,
      signatureRequests: signatureIds,
      signingCredentials: credentialIds,
      signatureNotices: unique(noticeRows.map((n) => n.id)),
      messages: messageIds,
      webhookDeliveries: deliveryIds,
      webhookAttempts: attemptIds,
      fhirDeliveries: fhirDeliveryIds,
      jobs: jobIds,
      auditEntries: auditIds,
    },
    objects: storedObjectsOf(forms.uploadRows, signatureRows, signerRows),
    patientSigners: unique(signerRows.filter((s) => s.role === PATIENT_ROLE).map((s) => s.id)),
    terms: patient.all,
  };
}

/** The stored objects the records name: uploads, each request's four keys, every signer's drawn signature. */
function storedObjectsOf(
  uploadRows: { storageKey: string }[],
  signatureRows: Awaited<ReturnType<typeof findSignatureRequests>>,
  signerRows: { signatureImageKey: string | null }[],
): PatientRecords["objects"] {
  return [
    ...uploadRows.map((u) => ({ key: u.storageKey, kind: "upload" as const })),
    ...signatureRows.flatMap((r) =>
      [
        { key: r.signatureImageKey, kind: "signature_image" as const },
        { key: r.stampedKey, kind: "stamped_pdf" as const },
        { key: r.signedPdfKey, kind: "signed_pdf" as const },
        { key: r.metadataKey, kind: "metadata_json" as const },
      ].filter((o): o is { key: string; kind: typeof o.kind } => o.key !== null),
    ),
    ...signerRows.flatMap((s) =>
      s.signatureImageKey ? [{ key: s.signatureImageKey, kind: "signature_image" as const }] : [],
    ),
  ];
}

/** How many records of each kind (what a report shows). */
export function countsOf(records: PatientRecords): Record<PatientRecordKind, number> & { objects: number } {
  const counts = Object.fromEntries(patientRecordKinds.map((kind) => [kind, records.ids[kind].length])) as Record<
    PatientRecordKind,
    number
  >;
  return { ...counts, objects: records.objects.length };
}

/** Nothing is held about the patient. */
export const isEmpty = (records: PatientRecords) =>
  records.objects.length === 0 && patientRecordKinds.every((kind) => records.ids[kind].length === 0);

const tables = {
  embedSessions: formSessions,
  drafts,
  submissions,
  uploads: formUploads,
  formRequests,
  signatureRequests,
  signingCredentials,
  signatureNotices,
  messages,
  webhookDeliveries,
  webhookAttempts,
  fhirDeliveries,
  jobs,
  auditEntries: auditLog,
} as const;

/**
 * The full rows of one kind, `pageSize` at a time (for a patient with thousands of submissions an
 * export never holds them all). OTP challenges are not readable here: they hold nothing but a hash.
 */
export async function* patientRecordPages<K extends keyof typeof tables>(
  ctx: OrgContext,
  records: PatientRecords,
  kind: K,
  pageSize = 200,
): AsyncGenerator<(typeof tables)[K]["$inferSelect"][]> {
  const ids = records.ids[kind];
  const table = tables[kind];
  for (let start = 0; start < ids.length; start += pageSize) {
    const page = ids.slice(start, start + pageSize);
    yield (await ctx.scope.select(table, inList(table.id, page))) as (typeof tables)[K]["$inferSelect"][];
  }
}
