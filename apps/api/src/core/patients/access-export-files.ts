/**
 * The stored objects of a patient access export: where each goes in the ZIP (`OBJECT_LAYOUT`,
 * attachments under their own safe name), its type and the record that names it, its size from
 * storage; objects storage no longer holds are set apart. Also the patient's own signer rows, read
 * page by page (their drawn signature is one of these files).
 */
import { signatureSigners } from "@clinsign/db";
import type { OrgContext } from "../context";
import type { FileDigests } from "../fhir/questionnaire-response";
import type { AccessExportManifest, ExportedFile, ExportedRecordKind, ObjectKind } from "./access-export-manifest";
import { patientRecordPages, type PatientRecords } from "./patient-records";
import { inList } from "./record-filters";

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

export interface PlannedFile extends Omit<ExportedFile, "sha256" | "record" | "kind"> {
  kind: ObjectKind;
  record: { kind: ExportedRecordKind; id: string };
  key: string;
  digests?: FileDigests;
}

/** The ZIP path, type and owning record of every stored object; sizes from storage (missing ones set apart). */
export async function planFiles(
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
export async function* patientSignerPages(
  ctx: OrgContext,
  records: PatientRecords,
  pageSize = 200,
): AsyncGenerator<(typeof signatureSigners.$inferSelect)[]> {
  const ids = records.patientSigners;
  for (let start = 0; start < ids.length; start += pageSize)
    yield await ctx.scope.select(signatureSigners, inList(signatureSigners.id, ids.slice(start, start + pageSize)));
}
