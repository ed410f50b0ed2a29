import type { PatientExportInput, PatientExportLanguageSuggestion, PatientSelector } from "@clinsign/contracts";
import { signatureSigners } from "@clinsign/db";
import type { OrgContext } from "../context";
import { recordAudit } from "../audit/audit";
import { sha256Hex } from "../crypto";
import { AppError } from "../errors";
import { sealedPdfToDocumentReference } from "../fhir/document-reference";
import {
  submissionToQuestionnaireResponse,
  type AttachmentSource,
  type FileDigests,
} from "../fhir/questionnaire-response";
import { zipStream, type ZipSource } from "../files/zip-stream";
import { actsForOrganization } from "../permissions";
import { renderSubmissionPdf } from "../submissions/pdf";
import { renderExportIndex } from "./access-export-index";
import {
  ACCESS_EXPORT_SCHEMA_VERSION,
  type AccessExportManifest,
  type ExportedFile,
  type ExportedRecord,
  type ExportedRecordKind,
  type ObjectKind,
} from "./access-export-manifest";
import { exportLanguageFor } from "./access-export-language";
import { exportTitles } from "./access-export-titles";
import {
  countsOf,
  findPatientRecords,
  inList,
  patientRecordKinds,
  patientRecordPages,
  type PatientRecordKind,
  type PatientRecords,
} from "./patient-records";

const exportedRecordKinds: readonly ExportedRecordKind[] = [...patientRecordKinds, "signatureSigners"];

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
};

/** Actor kinds that are the patient: an audit entry of theirs keeps its IP and user agent. */
const PATIENT_ACTORS = new Set(["signer", "sms_recipient", "embed_session"]);

/**
 * Kinds left out of the records: the job queue's rows are the service's own pending work (they
 * carry record ids only, each of which the export lists); OTP challenges hold only a code's hash
 * and are listed by id.
 */
const NOT_EXPORTED: readonly PatientRecordKind[] = ["jobs"];

const OBJECT_LAYOUT: Record<ObjectKind, { dir: string; suffix: string; contentType: string }> = {
  signed_pdf: { dir: "documents", suffix: ".pdf", contentType: "application/pdf" },
  metadata_json: { dir: "documents", suffix: ".metadata.json", contentType: "application/json" },
  signature_image: { dir: "signatures", suffix: ".png", contentType: "image/png" },
  stamped_pdf: { dir: "documents/before-sealing", suffix: ".pdf", contentType: "application/pdf" },
  upload: { dir: "attachments", suffix: "", contentType: "application/octet-stream" },
};

/** A file name safe in any unzip tool: letters, digits, dot, dash, underscore; the original stays in the manifest. */
export function safeFileName(name: string): string {
  const cleaned = name
    .normalize("NFKD")
    .replace(/[\u0300-\u036f]/g, "")
    .replace(/[^A-Za-z0-9._-]+/g, "_")
    .replace(/^[._]+/, "")
    .slice(-80);
  return cleaned || "file";
}

/** Owners and admins in the console; API tokens and the CLI act for the organization. */
export function assertMayExport(ctx: OrgContext): void {
  const { actor } = ctx;
  const allowed =
    actor.type === "user" ? actsForOrganization(actor) : actor.type === "api_key" || actor.type === "system";
  if (!allowed) throw new AppError("forbidden", "exporting a patient's data needs the owner or admin role");
}

function selectorFields(selector: PatientSelector): (keyof PatientSelector)[] {
  return (["patientId", "rnummer", "phone"] as const).filter((k) => selector[k]?.trim());
}

interface PlannedFile extends Omit<ExportedFile, "sha256" | "record" | "kind"> {
  kind: ObjectKind;
  record: { kind: ExportedRecordKind; id: string };
  key: string;
  digests?: FileDigests;
}

/** The ZIP path, type and owning record of every stored object; sizes from storage (missing ones set apart). */
async function planFiles(
  ctx: OrgContext,
  records: PatientRecords,
): Promise<{ files: PlannedFile[]; missing: AccessExportManifest["missingFiles"] }> {
  const owner = new Map<string, Omit<PlannedFile, "size" | "key" | "kind">>();
  for await (const page of patientRecordPages(ctx, records, "uploads")) {
    for (const upload of page) {
      owner.set(upload.storageKey, {
        path: `attachments/${upload.id}-${safeFileName(upload.name)}`,
        contentType: upload.type || OBJECT_LAYOUT.upload.contentType,
        name: upload.name,
        record: { kind: "uploads", id: upload.id },
      });
    }
  }
  for await (const page of patientRecordPages(ctx, records, "signatureRequests")) {
    for (const request of page) {
      const keys: [string | null, ObjectKind][] = [
        [request.signedPdfKey, "signed_pdf"],
        [request.metadataKey, "metadata_json"],
        [request.signatureImageKey, "signature_image"],
        [request.stampedKey, "stamped_pdf"],
      ];
      for (const [key, kind] of keys) {
        if (!key) continue;
        const layout = OBJECT_LAYOUT[kind];
        owner.set(key, {
          path: `${layout.dir}/${request.id}${layout.suffix}`,
          contentType: layout.contentType,
          name: null,
          record: { kind: "signatureRequests", id: request.id },
        });
      }
    }
  }
  // The patient's own drawn signature in a several-signer request (the request row holds none). The
  // other signers' images are theirs, not the patient's: the finder lists them for erasure only.
  for await (const page of patientSignerPages(ctx, records)) {
    for (const signer of page) {
      if (!signer.signatureImageKey) continue;
      owner.set(signer.signatureImageKey, {
        path: `signatures/${signer.signatureRequestId}-${signer.id}.png`,
        contentType: "image/png",
        name: null,
        record: { kind: "signatureSigners", id: signer.id },
      });
    }
  }
  const files: PlannedFile[] = [];
  const missing: AccessExportManifest["missingFiles"] = [];
  const seen = new Set<string>();
  for (const object of records.objects) {
    const named = owner.get(object.key);
    if (!named || seen.has(object.key)) continue;
    seen.add(object.key);
    const stat = await ctx.services.storage.stat(object.key);
    if (!stat) missing.push({ kind: object.kind, record: named.record });
    else files.push({ ...named, key: object.key, kind: object.kind, size: stat.size });
  }
  return { files, missing };
}

/** The patient's own signer rows (`PatientRecords.patientSigners`), a page at a time. */
async function* patientSignerPages(
  ctx: OrgContext,
  records: PatientRecords,
  pageSize = 200,
): AsyncGenerator<(typeof signatureSigners.$inferSelect)[]> {
  const ids = records.patientSigners;
  for (let start = 0; start < ids.length; start += pageSize)
    yield await ctx.scope.select(signatureSigners, inList(signatureSigners.id, ids.slice(start, start + pageSize)));
}

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
async function exportedRecords(
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

export interface PatientAccessExport {
  /** A name for the downloaded file (no patient values in it). */
  filename: string;
  /**
   * Starts the export: the ZIP as it is written. The checks, the search and the audit entry run
   * before the first chunk, so a door that awaits it can still answer an error. A function, so an
   * answer that is serialised instead (tRPC over HTTP) carries no archive and starts nothing.
   */
  open(): AsyncGenerator<Buffer>;
}

/**
 * The patient access export (GDPR Art. 15 and 20): one ZIP of everything the caller's
 * organization holds about the patient the selector names, found by `findPatientRecords`:
 * - `index.html`, a page the patient can read, in `language` (absent: the patient's own where their
 *   records name one, else the organization's): the clinic, the date, then every record in words
 *   (what it is, when, its state) with links to its files; no ids, no raw values; static (no
 *   scripts, nothing loaded from elsewhere), every stored value escaped (access-export-index.ts);
 * - `documents/<request>.pdf` every sealed PDF byte for byte (with `<request>.metadata.json`,
 *   and `documents/before-sealing/` the stamped copy the seal was made over), `signatures/` the
 *   patient's signature images (their own signer row's too, in several-signer requests),
 *   `attachments/<upload>-<name>` every submission attachment, `forms/<submission>.pdf` every
 *   submission as the PDF staff download (`renderSubmissionPdf`, in the PDF worker);
 * - `manifest.json`, last, the technical data: schema version, organization, selector, language,
 *   time, every record with its kind, id, dates and values as stored (credentials left out), FHIR
 *   resources inline (QuestionnaireResponse per submission, DocumentReference per sealed
 *   document, their attachment URLs being paths in the ZIP), and every file with its path, size
 *   and SHA-256.
 *
 * Files stream from storage into the ZIP one at a time (`zipStream`), submission PDFs are made when
 * their turn comes; digests are taken on the way, which is why the manifest comes last. A patient
 * of whom nothing is held gets a ZIP with an empty manifest. Owners and admins, API tokens and the
 * CLI only; every export is an audit entry (`patient.exported`: which selector fields, the
 * language, counts; no patient values), written before the first byte, since a started download
 * has disclosed data.
 */
export function exportPatientData(ctx: OrgContext, input: PatientExportInput): PatientAccessExport {
  const generatedAt = new Date();
  return {
    filename: `patient-export-${generatedAt.toISOString().slice(0, 10)}.zip`,
    open: () => writeAccessExport(ctx, input, generatedAt),
  };
}

/**
 * `patients.exportLanguage`: what the console's export form preselects. Reads which records the
 * patient has and their language columns only; answers a language, never a patient value.
 */
export async function suggestExportLanguage(
  ctx: OrgContext,
  input: { selector: PatientSelector },
): Promise<PatientExportLanguageSuggestion> {
  assertMayExport(ctx);
  assertNamesPatient(input.selector);
  return exportLanguageFor(ctx, await findPatientRecords(ctx, input.selector));
}

function assertNamesPatient(selector: PatientSelector): void {
  if (selectorFields(selector).length === 0)
    throw new AppError("invalid_request", "name the patient by patient id, case number or phone", {
      field: "patientId",
    });
}

async function* writeAccessExport(
  ctx: OrgContext,
  { selector, language: chosen }: PatientExportInput,
  generatedAt: Date,
): AsyncGenerator<Buffer> {
  assertMayExport(ctx);
  assertNamesPatient(selector);
  const records = await findPatientRecords(ctx, selector);
  const { files, missing } = await planFiles(ctx, records);
  const organization = await ctx.scope.organization();
  const language = chosen ?? (await exportLanguageFor(ctx, records)).language;
  const counts = countsOf(records);
  const bytes = files.reduce((sum, f) => sum + f.size, 0);
  await recordAudit(ctx, {
    action: "patient.exported",
    metadata: {
      selectorFields: selectorFields(selector),
      language,
      counts: {
        ...counts,
        signatureSigners: records.patientSigners.length,
        files: files.length,
        bytes,
        missingFiles: missing.length,
      },
    },
  });

  const listed: ExportedFile[] = [];
  const sources: ZipSource[] = files.map((file) => ({
    path: file.path,
    key: file.key,
    size: file.size,
    passed: (digests) => {
      file.digests = digests;
      const { key: _key, digests: _digests, ...shown } = file;
      listed.push({ ...shown, sha256: digests.sha256Hex });
    },
  }));
  /** Lists a file the export made (a submission's PDF, the index page) once its bytes are known. */
  const made = (file: Omit<ExportedFile, "size" | "sha256">, bytes: Buffer) => {
    listed.push({ ...file, size: bytes.length, sha256: sha256Hex(bytes) });
    return bytes;
  };
  // Every submission as the PDF staff download, made in the PDF worker when its turn comes.
  for (const id of records.ids.submissions) {
    const path = `forms/${id}.pdf`;
    sources.push({
      path,
      generate: async () =>
        made(
          {
            path,
            kind: "submission_pdf",
            contentType: "application/pdf",
            name: null,
            record: { kind: "submissions", id },
          },
          Buffer.from(await renderSubmissionPdf(ctx, { id })),
        ),
    });
  }
  let manifest: AccessExportManifest | undefined;
  const buildManifest = async () => {
    const exported = await exportedRecords(
      ctx,
      records,
      files,
      listed.filter((f) => f.kind === "submission_pdf"),
    );
    const recordCounts = Object.fromEntries(
      exportedRecordKinds.map((kind) => [kind, exported.filter((r) => r.kind === kind).length]),
    ) as Record<ExportedRecordKind, number>;
    manifest = {
      schemaVersion: ACCESS_EXPORT_SCHEMA_VERSION,
      generatedAt: generatedAt.toISOString(),
      organization: { id: organization.id, name: organization.name },
      selector: Object.fromEntries(selectorFields(selector).map((k) => [k, selector[k]!.trim()])),
      language,
      counts: { ...recordCounts, files: listed.length, bytes: listed.reduce((sum, f) => sum + f.size, 0) },
      files: [...listed],
      records: exported,
      missingFiles: missing,
    };
    return manifest;
  };
  // After every other file (their digests are known by then): the index page, then the manifest listing it too.
  sources.push({
    path: "index.html",
    generate: async () => {
      const built = await buildManifest();
      const titles = await exportTitles(ctx, {
        language,
        templateIdentifiers: built.records.flatMap((r) =>
          typeof r.data.templateIdentifier === "string" ? [r.data.templateIdentifier] : [],
        ),
        documentIds: built.records.flatMap((r) =>
          r.kind === "signatureRequests"
            ? [r.data.documentId, r.data.pinnedDocumentId].filter((id): id is string => typeof id === "string")
            : [],
        ),
      });
      const html = renderExportIndex(built, { titles, timeZone: organization.timeZone });
      return made(
        { path: "index.html", kind: "index", contentType: "text/html; charset=utf-8", name: null, record: null },
        Buffer.from(html, "utf8"),
      );
    },
  });
  sources.push({
    path: "manifest.json",
    generate: async () => Buffer.from(JSON.stringify({ ...manifest!, files: listed }, null, 2) + "\n", "utf8"),
  });
  yield* zipStream(ctx.services.storage, sources, generatedAt);
}
