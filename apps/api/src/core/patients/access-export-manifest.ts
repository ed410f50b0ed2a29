/**
 * The shape of the patient access export's manifest (manifest.json): what access-export.ts
 * writes and access-export-index.ts shows, kept apart so that neither imports the other.
 */
import type { PatientLanguage, PatientSelector } from "@clinsign/contracts";
import type { PatientRecordKind, PatientRecords } from "./patient-records";

/**
 * Bumped when the manifest's shape changes in a way a reader must know about. 2: the overview's
 * `language`, the patient's own signer records (`signatureSigners`) and their signature images,
 * a PDF of every submission (`submission_pdf` under `forms/`).
 */
export const ACCESS_EXPORT_SCHEMA_VERSION = 2;

export type ObjectKind = PatientRecords["objects"][number]["kind"];
/** A file the export makes itself: a submission as a PDF (the staff download's), or the overview page. */
type MadeKind = "submission_pdf" | "index";
/** The finder's kinds of records, and the patient's own signer rows of several-signer requests. */
export type ExportedRecordKind = PatientRecordKind | "signatureSigners";

/** A file in the ZIP: a stored object of the patient's, a submission's PDF, or the index page. */
export interface ExportedFile {
  /** Its path inside the ZIP. */
  path: string;
  kind: ObjectKind | MadeKind;
  contentType: string;
  /** The file's own name where it has one (an attachment's upload name). */
  name: string | null;
  /** The record that names it (null for the index page). */
  record: { kind: ExportedRecordKind; id: string } | null;
  size: number;
  /** Hex; taken while the file streamed into the ZIP. */
  sha256: string;
}

/** What the manifest says of a record: its kind, id, dates and values as stored (credentials left out). */
export interface ExportedRecord {
  kind: ExportedRecordKind;
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
  /** The language index.html is written in. */
  language: PatientLanguage;
  counts: Record<ExportedRecordKind, number> & { files: number; bytes: number };
  /** Every file in the ZIP but this manifest (index.html included). */
  files: ExportedFile[];
  records: ExportedRecord[];
  /** Stored objects the records name that storage no longer holds. */
  missingFiles: { kind: ObjectKind; record: { kind: ExportedRecordKind; id: string } }[];
}
