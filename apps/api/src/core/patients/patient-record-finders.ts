/**
 * The queries `findPatientRecords` (patient-records.ts) is made of, one group of linked records
 * each: the selector's values, signature requests and what hangs off them, the form records (SMS
 * form requests, embed sessions, submissions, drafts, uploads, OTP challenges), messages, webhook
 * deliveries, jobs and audit entries. Each step takes what the earlier ones found; ids come back
 * distinct and sorted.
 */
import {
  fhirDeliveries,
  auditLog,
  drafts,
  eq,
  formRequests,
  formSessions,
  formUploads,
  isNull,
  jobs,
  messages,
  or,
  otpChallenges,
  signatureNotices,
  signatureRequests,
  signatureSigners,
  signingCredentials,
  sql,
  submissions,
  webhookAttempts,
  webhookDeliveries,
  type OrgScope,
  type PgColumn,
  type SQL,
  type TenantTable,
} from "@clinsign/db";
import type { PatientSelector } from "@clinsign/contracts";
import type { OrgContext } from "../context";
import { smsFormDraftKey } from "../context";
import { phoneSpellingsOf } from "./patient-selector";
import { inList, mentionsAny, mentionsId } from "./record-filters";

/** The distinct non-empty strings of `values`, sorted. */
export const unique = (values: Iterable<unknown>) =>
  [...new Set([...values].filter((v): v is string => typeof v === "string" && v.length > 0))].sort();

/** Every string inside a JSON value (where an answer names an uploaded file's key). */
function stringsIn(value: unknown, into: Set<string>): void {
  if (typeof value === "string") into.add(value);
  else if (Array.isArray(value)) for (const item of value) stringsIn(item, into);
  else if (value && typeof value === "object") for (const item of Object.values(value)) stringsIn(item, into);
}

/** The ids of `table`'s rows where all `conditions` hold. */
async function idsWhere(
  scope: OrgScope,
  table: TenantTable & { id: PgColumn },
  ...conditions: (SQL | undefined)[]
): Promise<string[]> {
  return unique(
    (
      await scope
        .query({ id: table.id })
        .from(table)
        .where(...conditions)
    ).map((r) => r.id),
  );
}

/** The values the selector names the patient by, trimmed. */
export interface PatientValues {
  patientId: string | undefined;
  rnummer: string | undefined;
  /** The phone as given and in E.164 (how the service stores numbers), so either spelling finds the records. */
  phones: string[];
  /** All of them, distinct: what message and webhook bodies are searched for. */
  all: string[];
}

export async function patientValuesOf(ctx: OrgContext, selector: PatientSelector): Promise<PatientValues> {
  const patientId = selector.patientId?.trim() || undefined;
  const rnummer = selector.rnummer?.trim() || undefined;
  const phones = await phoneSpellingsOf(ctx, selector.phone);
  return { patientId, rnummer, phones, all: unique([patientId, rnummer, ...phones]) };
}

/** Signature requests by `patient_id` or the patient's phone, with the keys of their stored objects. */
export function findSignatureRequests({ scope }: OrgContext, patient: PatientValues) {
  return scope
    .query({
      id: signatureRequests.id,
      signatureImageKey: signatureRequests.signatureImageKey,
      stampedKey: signatureRequests.stampedKey,
      signedPdfKey: signatureRequests.signedPdfKey,
      metadataKey: signatureRequests.metadataKey,
    })
    .from(signatureRequests)
    .where(
      or(
        patient.patientId ? eq(signatureRequests.patientId, patient.patientId) : undefined,
        inList(signatureRequests.patientPhone, patient.phones, "text"),
      ),
    );
}

/** A request's signing credentials, its signers (their drawn signatures) and its notices. */
export async function findSigningRecords({ scope }: OrgContext, signatureIds: string[]) {
  const credentialIds = await idsWhere(
    scope,
    signingCredentials,
    inList(signingCredentials.signatureRequestId, signatureIds),
  );
  const signerRows = await scope
    .query({
      id: signatureSigners.id,
      role: signatureSigners.role,
      signatureImageKey: signatureSigners.signatureImageKey,
    })
    .from(signatureSigners)
    .where(inList(signatureSigners.signatureRequestId, signatureIds));
  const noticeRows = await scope
    .query({ id: signatureNotices.id, messageId: signatureNotices.messageId })
    .from(signatureNotices)
    .where(inList(signatureNotices.signatureRequestId, signatureIds));
  return { credentialIds, signerRows, noticeRows };
}

function findEmbedSessions(scope: OrgScope, { rnummer, phones }: PatientValues) {
  return scope
    .query({ id: formSessions.id, templateIdentifier: formSessions.templateIdentifier, config: formSessions.config })
    .from(formSessions)
    .where(
      or(
        rnummer ? sql`${formSessions.config}->>'rnummer' = ${rnummer}` : undefined,
        inList(sql`${formSessions.config}->>'phone'`, phones, "text"),
      ),
    );
}

type EmbedSessionRow = Awaited<ReturnType<typeof findEmbedSessions>>[number];

/** What the patient filled in or was asked to: SMS form requests, embed sessions and what came of them. */
export interface FormRecords {
  formRequestIds: string[];
  sessionIds: string[];
  /** Sessions whose config pins a draft key (of their template). */
  pinnedDrafts: EmbedSessionRow[];
  submissionIds: string[];
  draftIds: string[];
  uploadRows: { id: string; storageKey: string }[];
  otpIds: string[];
}

/**
 * SMS form requests by case number or phone; embed sessions whose config names either; submissions
 * by either or made through those; the drafts and uploads of all of them; the requests' OTP challenges.
 */
export async function findFormRecords({ scope }: OrgContext, patient: PatientValues): Promise<FormRecords> {
  const { rnummer, phones } = patient;
  const formRequestIds = await idsWhere(
    scope,
    formRequests,
    or(rnummer ? eq(formRequests.rnummer, rnummer) : undefined, inList(formRequests.phone, phones, "text")),
  );
  const sessionRows = await findEmbedSessions(scope, patient);
  const sessionIds = unique(sessionRows.map((r) => r.id));
  const submissionRows = await scope
    .query({ id: submissions.id, values: submissions.values })
    .from(submissions)
    .where(
      or(
        rnummer ? eq(submissions.rnummer, rnummer) : undefined,
        inList(submissions.phone, phones, "text"),
        inList(submissions.formRequestId, formRequestIds),
        sql`(${submissions.actorType} = 'embed_session' and ${inList(submissions.actorId, sessionIds, "text")})`,
      ),
    );
  // Drafts: a session's pinned key (of its template), keys in the session's own namespace, an SMS request's key.
  const pinnedDrafts = sessionRows.filter((s) => s.config.draftKey);
  const draftConditions: SQL[] = [
    ...pinnedDrafts.map(
      (s) =>
        sql`(${drafts.templateIdentifier} = ${s.templateIdentifier} and ${drafts.draftKey} = ${s.config.draftKey})`,
    ),
    ...sessionIds.map((id) => sql`starts_with(${drafts.draftKey}, ${`session:${id}:`})`),
    inList(drafts.draftKey, formRequestIds.map(smsFormDraftKey), "text"),
  ];
  const draftIds = await idsWhere(scope, drafts, or(...draftConditions));
  const answerStrings = new Set<string>();
  for (const row of submissionRows) stringsIn(row.values, answerStrings);
  const uploadRows = await scope
    .query({ id: formUploads.id, storageKey: formUploads.storageKey })
    .from(formUploads)
    .where(
      or(
        inList(
          formUploads.uploaderKey,
          [...sessionIds.map((id) => `session:${id}`), ...formRequestIds.map((id) => `portal:${id}`)],
          "text",
        ),
        inList(formUploads.storageKey, [...answerStrings], "text"),
      ),
    );
  const otpIds = await idsWhere(scope, otpChallenges, inList(otpChallenges.formRequestId, formRequestIds));
  const submissionIds = unique(submissionRows.map((r) => r.id));
  return { formRequestIds, sessionIds, pinnedDrafts, submissionIds, draftIds, uploadRows, otpIds };
}

/** Messages of the patient's SMS requests and notices, to the phone, or naming a value of theirs. */
export function findMessageIds(
  { scope }: OrgContext,
  patient: PatientValues,
  linked: { formRequestIds: string[]; noticeMessageIds: string[] },
): Promise<string[]> {
  return idsWhere(
    scope,
    messages,
    or(
      inList(messages.formRequestId, linked.formRequestIds),
      inList(messages.id, linked.noticeMessageIds),
      ...patient.phones.map((phone) => sql`${messages.recipients} @> ${JSON.stringify([phone])}::jsonb`),
      mentionsAny(messages.body, patient.all),
      mentionsAny(messages.subject, patient.all),
    ),
  );
}

/**
 * Webhook deliveries and their attempts. Webhook bodies name records by id (submissionId,
 * signature_id, draftKey) and patients by value.
 */
export async function findWebhookRecords(
  { scope }: OrgContext,
  terms: string[],
  recordIds: string[],
): Promise<{ deliveryIds: string[]; attemptIds: string[] }> {
  const deliveryIds = await idsWhere(
    scope,
    webhookDeliveries,
    or(mentionsAny(webhookDeliveries.body, terms), mentionsId(webhookDeliveries.body, recordIds)),
  );
  const attemptIds = await idsWhere(scope, webhookAttempts, inList(webhookAttempts.deliveryId, deliveryIds));
  return { deliveryIds, attemptIds };
}

/** What was pushed of the records to the hospital's FHIR server (issue 34): a delivery per source record. */
export function findFhirDeliveryIds({ scope }: OrgContext, sourceIds: string[]): Promise<string[]> {
  return idsWhere(scope, fhirDeliveries, inList(fhirDeliveries.sourceId, sourceIds));
}

/** Jobs that carry one of the messages, deliveries or signature requests. */
export function findJobIds(
  { scope }: OrgContext,
  linked: { messageIds: string[]; deliveryIds: string[]; signatureIds: string[] },
): Promise<string[]> {
  return idsWhere(
    scope,
    jobs,
    or(
      inList(sql`${jobs.payload}->>'messageId'`, linked.messageIds, "text"),
      inList(sql`${jobs.payload}->>'deliveryId'`, linked.deliveryIds, "text"),
      inList(sql`${jobs.payload}->>'signatureId'`, linked.signatureIds, "text"),
    ),
  );
}

/**
 * Audit entries not erased yet about any of the records, written by the patient (signer, SMS
 * recipient, embed session), or naming the patient's values in their metadata.
 */
export function findAuditEntryIds(
  { scope }: OrgContext,
  patient: PatientValues,
  linked: Pick<FormRecords, "formRequestIds" | "submissionIds" | "sessionIds"> & {
    signatureIds: string[];
    deliveryIds: string[];
    messageIds: string[];
    draftKeys: string[];
  },
): Promise<string[]> {
  const { signatureIds, formRequestIds, sessionIds } = linked;
  const meta = (key: string) => sql`${auditLog.metadata}->>${key}`;
  return idsWhere(
    scope,
    auditLog,
    or(
      inList(meta("signatureId"), signatureIds, "text"),
      inList(meta("formRequestId"), formRequestIds, "text"),
      inList(meta("submissionId"), linked.submissionIds, "text"),
      inList(meta("sessionRecordId"), sessionIds, "text"),
      inList(meta("deliveryId"), linked.deliveryIds, "text"),
      inList(meta("messageId"), linked.messageIds, "text"),
      inList(meta("draftKey"), linked.draftKeys, "text"),
      ...sessionIds.map((id) => sql`starts_with(${meta("draftKey")}, ${`session:${id}:`})`),
      sql`(${auditLog.actorType} in ('signer', 'portal') and ${inList(auditLog.actorId, signatureIds, "text")})`,
      sql`(${auditLog.actorType} in ('sms_recipient', 'portal') and ${inList(auditLog.actorId, formRequestIds, "text")})`,
      sql`(${auditLog.actorType} in ('embed_session', 'session') and ${inList(auditLog.actorId, sessionIds, "text")})`,
      patient.patientId ? eq(meta("patientId"), patient.patientId) : undefined,
      patient.rnummer ? eq(meta("rnummer"), patient.rnummer) : undefined,
      inList(meta("phone"), patient.phones, "text"),
    ),
    // An entry erased before is not the patient's any more: a second erasure finds nothing.
    isNull(auditLog.erasedAt),
  );
}
