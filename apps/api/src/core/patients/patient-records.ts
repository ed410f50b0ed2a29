import {
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
  type PgColumn,
  type SQL,
} from "@clinsign/db";
import { erasureRecordKinds, PATIENT_ROLE, type ErasureRecordKind, type PatientSelector } from "@clinsign/contracts";
import type { OrgContext } from "../context";
import { smsFormDraftKey } from "../context";
import { phoneSpellingsOf } from "./patient-selector";

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

const json = (values: readonly string[]) => JSON.stringify(values);

/** A PostgreSQL array literal (`{"a","b"}`), every element quoted: one parameter, however many values. */
const arrayLiteral = (values: readonly string[]) =>
  `{${values.map((v) => `"${v.replace(/\\/g, "\\\\").replace(/"/g, '\\"')}"`).join(",")}}`;

/** `column` is one of `values` (one array parameter: the planner uses the column's index, however many values). */
export function inList(column: PgColumn | SQL, values: readonly string[], type: "uuid" | "text" = "uuid"): SQL {
  if (values.length === 0) return sql`false`;
  return type === "uuid"
    ? sql`${column} = any(${arrayLiteral(values)}::uuid[])`
    : sql`${column} = any(${arrayLiteral(values)}::text[])`;
}

const UUID_PATTERN = "[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}";

/**
 * `text` names one of `ids` (UUIDs): every UUID in the text is looked up in the set, so a body is
 * read once however many ids a patient has (a substring search per id would read it once per id).
 */
function mentionsId(text: PgColumn | SQL, ids: readonly string[]): SQL {
  if (ids.length === 0) return sql`false`;
  return sql`exists (select 1 from regexp_matches(lower(${text}), ${UUID_PATTERN}, 'g') as found(id)
    where found.id[1] = any(${arrayLiteral(ids)}::text[]))`;
}

/** `text` contains one of `terms` as a substring. */
function mentionsAny(text: PgColumn | SQL, terms: readonly string[]): SQL {
  if (terms.length === 0) return sql`false`;
  return sql`exists (select 1 from jsonb_array_elements_text(${json(terms)}::jsonb) as term(value) where strpos(${text}, term.value) > 0)`;
}

const unique = (values: Iterable<string | null | undefined>) =>
  [...new Set([...values].filter((v): v is string => typeof v === "string" && v.length > 0))].sort();

/** Every string inside a JSON value (where an answer names an uploaded file's key). */
function stringsIn(value: unknown, into: Set<string>): void {
  if (typeof value === "string") into.add(value);
  else if (Array.isArray(value)) for (const item of value) stringsIn(item, into);
  else if (value && typeof value === "object") for (const item of Object.values(value)) stringsIn(item, into);
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
  const scope = ctx.scope;
  const patientId = selector.patientId?.trim() || undefined;
  const rnummer = selector.rnummer?.trim() || undefined;
  // The phone as given and in E.164 (how the service stores numbers), so either spelling finds the records.
  const phones = await phoneSpellingsOf(ctx, selector.phone);
  const patientValues = unique([patientId, rnummer, ...phones]);

  const signatureRows = await scope
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
        patientId ? eq(signatureRequests.patientId, patientId) : undefined,
        inList(signatureRequests.patientPhone, phones, "text"),
      ),
    );
  const signatureIds = unique(signatureRows.map((r) => r.id));

  const formRequestIds = unique(
    (
      await scope
        .query({ id: formRequests.id })
        .from(formRequests)
        .where(or(rnummer ? eq(formRequests.rnummer, rnummer) : undefined, inList(formRequests.phone, phones, "text")))
    ).map((r) => r.id),
  );

  const sessionRows = await scope
    .query({ id: formSessions.id, templateIdentifier: formSessions.templateIdentifier, config: formSessions.config })
    .from(formSessions)
    .where(
      or(
        rnummer ? sql`${formSessions.config}->>'rnummer' = ${rnummer}` : undefined,
        inList(sql`${formSessions.config}->>'phone'`, phones, "text"),
      ),
    );
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
  const submissionIds = unique(submissionRows.map((r) => r.id));

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
  const draftIds = unique(
    (
      await scope
        .query({ id: drafts.id })
        .from(drafts)
        .where(or(...draftConditions))
    ).map((r) => r.id),
  );

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

  const otpIds = unique(
    (
      await scope
        .query({ id: otpChallenges.id })
        .from(otpChallenges)
        .where(inList(otpChallenges.formRequestId, formRequestIds))
    ).map((r) => r.id),
  );

  const credentialIds = unique(
    (
      await scope
        .query({ id: signingCredentials.id })
        .from(signingCredentials)
        .where(inList(signingCredentials.signatureRequestId, signatureIds))
    ).map((r) => r.id),
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

  const messageIds = unique(
    (
      await scope
        .query({ id: messages.id })
        .from(messages)
        .where(
          or(
            inList(messages.formRequestId, formRequestIds),
            inList(messages.id, unique(noticeRows.map((n) => n.messageId))),
            ...phones.map((phone) => sql`${messages.recipients} @> ${JSON.stringify([phone])}::jsonb`),
            mentionsAny(messages.body, patientValues),
            mentionsAny(messages.subject, patientValues),
          ),
        )
    ).map((r) => r.id),
  );

  // Webhook bodies name records by id (submissionId, signature_id, draftKey) and patients by value.
  const draftKeys = unique([
    ...pinnedDrafts.map((s) => s.config.draftKey),
    ...formRequestIds.map(smsFormDraftKey),
    ...sessionIds.map((id) => `session:${id}:`),
  ]);
  const deliveryIds = unique(
    (
      await scope
        .query({ id: webhookDeliveries.id })
        .from(webhookDeliveries)
        .where(
          or(
            mentionsAny(webhookDeliveries.body, [...patientValues, ...pinnedDrafts.map((s) => s.config.draftKey!)]),
            mentionsId(webhookDeliveries.body, [...submissionIds, ...signatureIds, ...formRequestIds, ...sessionIds]),
          ),
        )
    ).map((r) => r.id),
  );
  const attemptIds = unique(
    (
      await scope
        .query({ id: webhookAttempts.id })
        .from(webhookAttempts)
        .where(inList(webhookAttempts.deliveryId, deliveryIds))
    ).map((r) => r.id),
  );

  const jobIds = unique(
    (
      await scope
        .query({ id: jobs.id })
        .from(jobs)
        .where(
          or(
            inList(sql`${jobs.payload}->>'messageId'`, messageIds, "text"),
            inList(sql`${jobs.payload}->>'deliveryId'`, deliveryIds, "text"),
            inList(sql`${jobs.payload}->>'signatureId'`, signatureIds, "text"),
          ),
        )
    ).map((r) => r.id),
  );

  const meta = (key: string) => sql`${auditLog.metadata}->>${key}`;
  const auditIds = unique(
    (
      await scope
        .query({ id: auditLog.id })
        .from(auditLog)
        .where(
          or(
            inList(meta("signatureId"), signatureIds, "text"),
            inList(meta("formRequestId"), formRequestIds, "text"),
            inList(meta("submissionId"), submissionIds, "text"),
            inList(meta("sessionRecordId"), sessionIds, "text"),
            inList(meta("deliveryId"), deliveryIds, "text"),
            inList(meta("messageId"), messageIds, "text"),
            inList(meta("draftKey"), draftKeys, "text"),
            ...sessionIds.map((id) => sql`starts_with(${meta("draftKey")}, ${`session:${id}:`})`),
            sql`(${auditLog.actorType} in ('signer', 'portal') and ${inList(auditLog.actorId, signatureIds, "text")})`,
            sql`(${auditLog.actorType} in ('sms_recipient', 'portal') and ${inList(auditLog.actorId, formRequestIds, "text")})`,
            sql`(${auditLog.actorType} in ('embed_session', 'session') and ${inList(auditLog.actorId, sessionIds, "text")})`,
            patientId ? eq(meta("patientId"), patientId) : undefined,
            rnummer ? eq(meta("rnummer"), rnummer) : undefined,
            inList(meta("phone"), phones, "text"),
          ),
          // An entry erased before is not the patient's any more: a second erasure finds nothing.
          isNull(auditLog.erasedAt),
        )
    ).map((r) => r.id),
  );

  const objects: PatientRecords["objects"] = [
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

  return {
    ids: {
      embedSessions: sessionIds,
      drafts: draftIds,
      submissions: submissionIds,
      uploads: unique(uploadRows.map((u) => u.id)),
      formRequests: formRequestIds,
      otpChallenges: otpIds,
      signatureRequests: signatureIds,
      signingCredentials: credentialIds,
      signatureNotices: unique(noticeRows.map((n) => n.id)),
      messages: messageIds,
      webhookDeliveries: deliveryIds,
      webhookAttempts: attemptIds,
      jobs: jobIds,
      auditEntries: auditIds,
    },
    objects,
    patientSigners: unique(signerRows.filter((s) => s.role === PATIENT_ROLE).map((s) => s.id)),
    terms: patientValues,
  };
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
