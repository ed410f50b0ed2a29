import type { PatientSelector } from "@clinsign/contracts";
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
import { renderExportIndex } from "./access-export-index";
import {
  countsOf,
  findPatientRecords,
  patientRecordKinds,
  patientRecordPages,
  type PatientRecordKind,
  type PatientRecords,
} from "./patient-records";

/** Bumped when the manifest's shape changes in a way a reader must know about. */
export const ACCESS_EXPORT_SCHEMA_VERSION = 1;

type ObjectKind = PatientRecords["objects"][number]["kind"];

/** A file in the ZIP: a stored object of the patient's, or the index page. */
export interface ExportedFile {
  /** Its path inside the ZIP. */
  path: string;
  kind: ObjectKind | "index";
  contentType: string;
  /** The file's own name where it has one (an attachment's upload name). */
  name: string | null;
  /** The record that names it (null for the index page). */
  record: { kind: PatientRecordKind; id: string } | null;
  size: number;
  /** Hex; taken while the file streamed into the ZIP. */
  sha256: string;
}

/** What the manifest says of a record: its kind, id, dates and values as stored (credentials left out). */
export interface ExportedRecord {
  kind: PatientRecordKind;
  id: string;
  createdAt: string | null;
  /** The row as stored, minus the columns in `CREDENTIAL_COLUMNS`. */
  data: Record<string, unknown>;
  /** ZIP paths of the files this record names. */
  files: string[];
  /** The FHIR R4 resource where one exists (QuestionnaireResponse, DocumentReference). */
  fhir?: Record<string, unknown>;
}

export interface AccessExportManifest {
  schemaVersion: number;
  generatedAt: string;
  organization: { id: string; name: string };
  selector: PatientSelector;
  counts: Record<PatientRecordKind, number> & { files: number; bytes: number };
  /** Every file in the ZIP but this manifest (index.html included). */
  files: ExportedFile[];
  records: ExportedRecord[];
  /** Stored objects the records name that storage no longer holds. */
  missingFiles: { kind: ObjectKind; record: { kind: PatientRecordKind; id: string } }[];
}

/**
 * Columns that are credentials or their hashes, never data about the patient: a link's or a
 * session's token hash, an encrypted token, an OTP hash, a sealed outbox body. Left out of every
 * record (an export is handed to the patient or their representative).
 */
const CREDENTIAL_COLUMNS: Partial<Record<PatientRecordKind, readonly string[]>> = {
  embedSessions: ["tokenHash"],
  formRequests: ["linkTokenHash", "identityTokenHash", "accessTokenHash"],
  signatureRequests: ["tokenHash", "tokenEnc"],
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
function assertMayExport(ctx: OrgContext): void {
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
  record: { kind: PatientRecordKind; id: string };
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

/** A row as the manifest shows it: credentials dropped; an audit entry keeps network data only when the patient acted. */
function exportedData(kind: PatientRecordKind, row: Record<string, unknown>): Record<string, unknown> {
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
): Promise<ExportedRecord[]> {
  const byKey = new Map(files.map((f) => [f.key, f]));
  const pathsOf = new Map<string, string[]>();
  for (const file of files) {
    const id = `${file.record.kind}:${file.record.id}`;
    pathsOf.set(id, [...(pathsOf.get(id) ?? []), file.path]);
  }
  const source: AttachmentSource = {
    url: (key) => byKey.get(key)?.path,
    digests: async (key) => byKey.get(key)?.digests ?? null,
  };
  const out: ExportedRecord[] = [];
  for (const kind of patientRecordKinds) {
    if (NOT_EXPORTED.includes(kind)) continue;
    if (kind === "otpChallenges") {
      for (const id of records.ids.otpChallenges) out.push({ kind, id, createdAt: null, data: {}, files: [] });
      continue;
    }
    for await (const page of patientRecordPages(ctx, records, kind)) {
      for (const row of page) {
        const record: ExportedRecord = {
          kind,
          id: row.id,
          createdAt: row.createdAt instanceof Date ? row.createdAt.toISOString() : null,
          data: exportedData(kind, row as Record<string, unknown>),
          files: pathsOf.get(`${kind}:${row.id}`) ?? [],
        };
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
 * - `documents/<request>.pdf` every sealed PDF byte for byte (with `<request>.metadata.json`,
 *   and `documents/before-sealing/` the stamped copy the seal was made over), `signatures/` the
 *   signature images, `attachments/<upload>-<name>` every submission attachment;
 * - `index.html`, the same in German and English for a person (no scripts, every value escaped);
 * - `manifest.json`, last: schema version, organization, selector, time, every record with its
 *   kind, id, dates and values as stored (credentials left out), FHIR resources inline
 *   (QuestionnaireResponse per submission, DocumentReference per sealed document, their
 *   attachment URLs being paths in the ZIP), and every file with its path, size and SHA-256.
 *
 * Files stream from storage into the ZIP one at a time (`zipStream`); their digests are taken on
 * the way, which is why the manifest comes last. A patient of whom nothing is held gets a ZIP with
 * an empty manifest. Owners and admins, API tokens and the CLI only; every export is an audit entry
 * (`patient.exported`: which selector fields, counts; no patient values), written before the first
 * byte, since a started download has disclosed data.
 */
export function exportPatientData(ctx: OrgContext, input: { selector: PatientSelector }): PatientAccessExport {
  const generatedAt = new Date();
  return {
    filename: `patient-export-${generatedAt.toISOString().slice(0, 10)}.zip`,
    open: () => writeAccessExport(ctx, input.selector, generatedAt),
  };
}

async function* writeAccessExport(
  ctx: OrgContext,
  selector: PatientSelector,
  generatedAt: Date,
): AsyncGenerator<Buffer> {
  assertMayExport(ctx);
  if (selectorFields(selector).length === 0)
    throw new AppError("invalid_request", "name the patient by patient id, case number or phone", {
      field: "patientId",
    });
  const records = await findPatientRecords(ctx, selector);
  const { files, missing } = await planFiles(ctx, records);
  const organization = await ctx.scope.organization();
  const counts = countsOf(records);
  const bytes = files.reduce((sum, f) => sum + f.size, 0);
  await recordAudit(ctx, {
    action: "patient.exported",
    metadata: {
      selectorFields: selectorFields(selector),
      counts: { ...counts, files: files.length, bytes, missingFiles: missing.length },
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
  let manifest: AccessExportManifest | undefined;
  const buildManifest = async () => {
    const exported = await exportedRecords(ctx, records, files);
    const recordCounts = Object.fromEntries(
      patientRecordKinds.map((kind) => [kind, exported.filter((r) => r.kind === kind).length]),
    ) as Record<PatientRecordKind, number>;
    manifest = {
      schemaVersion: ACCESS_EXPORT_SCHEMA_VERSION,
      generatedAt: generatedAt.toISOString(),
      organization: { id: organization.id, name: organization.name },
      selector: Object.fromEntries(selectorFields(selector).map((k) => [k, selector[k]!.trim()])),
      counts: { ...recordCounts, files: listed.length, bytes: listed.reduce((sum, f) => sum + f.size, 0) },
      files: [...listed],
      records: exported,
      missingFiles: missing,
    };
    return manifest;
  };
  // After the stored files (their digests are known by then): the index page, then the manifest listing it too.
  sources.push({
    path: "index.html",
    generate: async () => {
      const html = Buffer.from(renderExportIndex(await buildManifest()), "utf8");
      listed.push({
        path: "index.html",
        kind: "index",
        contentType: "text/html; charset=utf-8",
        name: null,
        record: null,
        size: html.length,
        sha256: sha256Hex(html),
      });
      return html;
    },
  });
  sources.push({
    path: "manifest.json",
    generate: async () => Buffer.from(JSON.stringify({ ...manifest!, files: listed }, null, 2) + "\n", "utf8"),
  });
  yield* zipStream(ctx.services.storage, sources, generatedAt);
}
