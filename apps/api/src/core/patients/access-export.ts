import type {
  PatientExportInput,
  PatientExportLanguageSuggestion,
  PatientLanguage,
  PatientSelector,
} from "@clinsign/contracts";
import type { OrgContext } from "../context";
import { recordAudit } from "../audit/audit";
import { sha256Hex } from "../crypto";
import { AppError } from "../errors";
import { zipStream, type ZipSource } from "../files/zip-stream";
import { actsForOrganization } from "../permissions";
import { renderSubmissionPdf } from "../submissions/pdf";
import { planFiles, type PlannedFile } from "./access-export-files";
import { renderExportIndex } from "./access-export-index";
import {
  ACCESS_EXPORT_SCHEMA_VERSION,
  type AccessExportManifest,
  type ExportedFile,
  type ExportedRecordKind,
} from "./access-export-manifest";
import { exportLanguageFor } from "./access-export-language";
import { exportedRecords } from "./access-export-records";
import { exportTitles } from "./access-export-titles";
import { countsOf, findPatientRecords, patientRecordKinds, type PatientRecords } from "./patient-records";

const exportedRecordKinds: readonly ExportedRecordKind[] = [...patientRecordKinds, "signatureSigners"];

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
  await recordAudit(ctx, {
    action: "patient.exported",
    metadata: {
      selectorFields: selectorFields(selector),
      language,
      counts: {
        ...countsOf(records),
        signatureSigners: records.patientSigners.length,
        files: files.length,
        bytes: files.reduce((sum, f) => sum + f.size, 0),
        missingFiles: missing.length,
      },
    },
  });
  const planned: ExportPlan = { selector, language, generatedAt, organization, records, files, missing, listed: [] };
  const sources = [
    ...storedFileSources(planned),
    ...submissionPdfSources(ctx, planned),
    ...closingSources(ctx, planned),
  ];
  yield* zipStream(ctx.services.storage, sources, generatedAt);
}

/** What an export writes, decided before its first byte; `listed` grows as files are written. */
interface ExportPlan {
  selector: PatientSelector;
  language: PatientLanguage;
  generatedAt: Date;
  organization: { id: string; name: string; timeZone: string };
  records: PatientRecords;
  files: PlannedFile[];
  missing: AccessExportManifest["missingFiles"];
  /** Every file in the ZIP so far, with its digest (the manifest's `files`). */
  listed: ExportedFile[];
}

/** The stored objects, streamed from storage; each is listed with its digest once it has passed. */
function storedFileSources({ files, listed }: ExportPlan): ZipSource[] {
  return files.map((file) => ({
    path: file.path,
    key: file.key,
    size: file.size,
    passed: (digests) => {
      file.digests = digests;
      const { key: _key, digests: _digests, ...shown } = file;
      listed.push({ ...shown, sha256: digests.sha256Hex });
    },
  }));
}

/** Lists a file the export made (a submission's PDF, the index page) once its bytes are known. */
function listMade(listed: ExportedFile[], file: Omit<ExportedFile, "size" | "sha256">, bytes: Buffer): Buffer {
  listed.push({ ...file, size: bytes.length, sha256: sha256Hex(bytes) });
  return bytes;
}

/** Every submission as the PDF staff download, made in the PDF worker when its turn comes. */
function submissionPdfSources(ctx: OrgContext, { records, listed }: ExportPlan): ZipSource[] {
  return records.ids.submissions.map((id) => {
    const path = `forms/${id}.pdf`;
    return {
      path,
      generate: async () =>
        listMade(
          listed,
          {
            path,
            kind: "submission_pdf",
            contentType: "application/pdf",
            name: null,
            record: { kind: "submissions", id },
          },
          Buffer.from(await renderSubmissionPdf(ctx, { id })),
        ),
    };
  });
}

/**
 * After every other file (their digests are known by then): the index page, then the manifest
 * listing it too.
 */
function closingSources(ctx: OrgContext, plan: ExportPlan): ZipSource[] {
  let manifest: AccessExportManifest | undefined;
  return [
    {
      path: "index.html",
      generate: async () => {
        manifest = await buildManifest(ctx, plan);
        const html = renderExportIndex(manifest, {
          titles: await titlesOf(ctx, manifest),
          timeZone: plan.organization.timeZone,
        });
        return listMade(
          plan.listed,
          { path: "index.html", kind: "index", contentType: "text/html; charset=utf-8", name: null, record: null },
          Buffer.from(html, "utf8"),
        );
      },
    },
    {
      path: "manifest.json",
      generate: async () => Buffer.from(JSON.stringify({ ...manifest!, files: plan.listed }, null, 2) + "\n", "utf8"),
    },
  ];
}

/** The manifest as the index page shows it: every file written so far (not the page itself). */
async function buildManifest(ctx: OrgContext, plan: ExportPlan): Promise<AccessExportManifest> {
  const { selector, listed } = plan;
  const exported = await exportedRecords(
    ctx,
    plan.records,
    plan.files,
    listed.filter((f) => f.kind === "submission_pdf"),
  );
  const recordCounts = Object.fromEntries(
    exportedRecordKinds.map((kind) => [kind, exported.filter((r) => r.kind === kind).length]),
  ) as Record<ExportedRecordKind, number>;
  return {
    schemaVersion: ACCESS_EXPORT_SCHEMA_VERSION,
    generatedAt: plan.generatedAt.toISOString(),
    organization: { id: plan.organization.id, name: plan.organization.name },
    selector: Object.fromEntries(selectorFields(selector).map((k) => [k, selector[k]!.trim()])),
    language: plan.language,
    counts: { ...recordCounts, files: listed.length, bytes: listed.reduce((sum, f) => sum + f.size, 0) },
    files: [...listed],
    records: exported,
    missingFiles: plan.missing,
  };
}

/** The titles of the forms and documents the manifest's records name, in its language. */
function titlesOf(ctx: OrgContext, manifest: AccessExportManifest) {
  return exportTitles(ctx, {
    language: manifest.language,
    templateIdentifiers: manifest.records.flatMap((r) =>
      typeof r.data.templateIdentifier === "string" ? [r.data.templateIdentifier] : [],
    ),
    documentIds: manifest.records.flatMap((r) =>
      r.kind === "signatureRequests"
        ? [r.data.documentId, r.data.pinnedDocumentId].filter((id): id is string => typeof id === "string")
        : [],
    ),
  });
}
