/**
 * The records of a patient access export as manifest.json lists them: every row of the patient's,
 * page by page, as stored minus credentials (and minus network data of audit entries the patient
 * did not write), with the ZIP paths of its files and the FHIR resource of submissions and sealed
 * documents.
 */
import type { OrgContext } from "../context";
import { sealedPdfToDocumentReference } from "../fhir/document-reference";
import { submissionToQuestionnaireResponse, type AttachmentSource } from "../fhir/questionnaire-response";
import { patientSignerPages, type PlannedFile } from "./access-export-files";
import type { ExportedFile, ExportedRecord, ExportedRecordKind } from "./access-export-manifest";
import { patientRecordKinds, patientRecordPages, type PatientRecordKind, type PatientRecords } from "./patient-records";

/**
 * Columns that are credentials or their hashes, never data about the patient: a link's or a
 * session's token hash, an encrypted token, an OTP hash, a sealed outbox body. Left out of every
 * record (an export is handed to the patient or their representative).
 */
const CREDENTIAL_COLUMNS: Partial<Record<ExportedRecordKind, readonly string[]>> = {
  embedSessions: ["tokenHash"],
  formRequests: ["linkTokenHash", "identityTokenHash", "accessTokenHash"],
  signatureRequests: ["tokenHash", "tokenEnc"],
  signatureSigners: ["tokenHash", "tokenEnc"],
  signingCredentials: ["secretHash"],
  messages: ["revealableBody"],
  // The salt keeps the audit chain's commitment to the personal part unguessable (never shown).
  auditEntries: ["personalSalt", "personalCommitment"],
  // Not a credential: a pending push's Bundle, a copy of records the export holds itself (the sealed PDF inline).
  fhirDeliveries: ["bundle"],
};

/** Actor kinds that are the patient: an audit entry of theirs keeps its IP and user agent. */
const PATIENT_ACTORS = new Set(["signer", "sms_recipient", "embed_session"]);

/**
 * Kinds left out of the records: the job queue's rows are the service's own pending work (they
 * carry record ids only, each of which the export lists); OTP challenges hold only a code's hash
 * and are listed by id.
 */
const NOT_EXPORTED: readonly PatientRecordKind[] = ["jobs"];

/** A row as the manifest shows it: credentials dropped; an audit entry keeps network data only when the patient acted. */
function exportedData(kind: ExportedRecordKind, row: Record<string, unknown>): Record<string, unknown> {
  const omitted = new Set(CREDENTIAL_COLUMNS[kind] ?? []);
  if (kind === "auditEntries" && !PATIENT_ACTORS.has(String(row.actorKind))) {
    omitted.add("ip");
    omitted.add("userAgent");
  }
  omitted.add("organizationId");
  return Object.fromEntries(Object.entries(row).filter(([column]) => !omitted.has(column)));
}

/** Every record of the patient's, page by page, with the FHIR resource of submissions and sealed documents. */
export async function exportedRecords(
  ctx: OrgContext,
  records: PatientRecords,
  files: PlannedFile[],
  made: ExportedFile[],
): Promise<ExportedRecord[]> {
  const byKey = new Map(files.map((f) => [f.key, f]));
  const pathsOf = new Map<string, string[]>();
  for (const file of [...files, ...made]) {
    if (!file.record) continue;
    const id = `${file.record.kind}:${file.record.id}`;
    pathsOf.set(id, [...(pathsOf.get(id) ?? []), file.path]);
  }
  const source: AttachmentSource = {
    url: (key) => byKey.get(key)?.path,
    digests: async (key) => byKey.get(key)?.digests ?? null,
  };
  const out: ExportedRecord[] = [];
  const recordOf = (kind: ExportedRecordKind, row: { id: string; createdAt: unknown }): ExportedRecord => ({
    kind,
    id: row.id,
    createdAt: row.createdAt instanceof Date ? row.createdAt.toISOString() : null,
    data: exportedData(kind, row as Record<string, unknown>),
    files: pathsOf.get(`${kind}:${row.id}`) ?? [],
  });
  for (const kind of patientRecordKinds) {
    if (NOT_EXPORTED.includes(kind)) continue;
    if (kind === "otpChallenges") {
      for (const id of records.ids.otpChallenges) out.push({ kind, id, createdAt: null, data: {}, files: [] });
      continue;
    }
    for await (const page of patientRecordPages(ctx, records, kind)) {
      for (const row of page) {
        const record = recordOf(kind, row);
        // A submission's answers name its attachments by storage key: list them with it too.
        if (kind === "submissions")
          for (const key of keysIn((row as { values: unknown }).values)) {
            const path = byKey.get(key)?.path;
            if (path && !record.files.includes(path)) record.files.push(path);
          }
        if (kind === "submissions")
          record.fhir = await submissionToQuestionnaireResponse(
            ctx,
            row as Parameters<typeof submissionToQuestionnaireResponse>[1],
            source,
          );
        if (kind === "signatureRequests") {
          const request = row as Parameters<typeof sealedPdfToDocumentReference>[1];
          if (request.status === "completed" && request.signedPdfSha256)
            record.fhir = await sealedPdfToDocumentReference(ctx, request, source);
        }
        out.push(record);
      }
    }
  }
  for await (const page of patientSignerPages(ctx, records))
    for (const row of page) out.push(recordOf("signatureSigners", row));
  return out;
}

/** Every string inside a JSON value (answers hold uploaded files' keys). */
function keysIn(value: unknown, into: string[] = []): string[] {
  if (typeof value === "string") into.push(value);
  else if (Array.isArray(value)) for (const item of value) keysIn(item, into);
  else if (value && typeof value === "object") for (const item of Object.values(value)) keysIn(item, into);
  return into;
}
