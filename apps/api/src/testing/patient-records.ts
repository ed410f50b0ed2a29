import { randomUUID } from "node:crypto";
import {
  documents,
  documentVersions,
  drafts,
  formRequests,
  formSessions,
  formUploads,
  institutions,
  messages,
  signatureRequests,
  signatureSigners,
  submissions,
  webhookDeliveries,
} from "@clinsign/db";
import type { OrgContext } from "../core/context";

/**
 * One patient's records of every kind, written straight into the tables (no HTTP, no PDF work)
 * with a chosen age: what retention, legal holds and erasure act on. Stored objects (the sealed
 * PDF, its metadata JSON, the signature image, an uploaded attachment) go to the services' storage.
 */
export interface PatientRecords {
  signatureRequestId: string;
  formRequestId: string;
  embedSessionId: string;
  draftId: string;
  smsDraftId: string;
  submissionId: string;
  uploadId: string;
  messageId: string;
  webhookDeliveryId: string;
  /** Storage keys of the records' objects. */
  objectKeys: string[];
}

export interface PatientIdentity {
  patientId: string;
  rnummer: string;
  phone: string;
}

export async function seedPatientRecords(
  ctx: OrgContext,
  patient: PatientIdentity,
  options: { at: Date; templateIdentifier?: string; status?: "completed" | "pending" | "expired" },
): Promise<PatientRecords> {
  const { scope, services } = ctx;
  const at = options.at;
  const template = options.templateIdentifier ?? "intake-form";
  const put = async (label: string) => (await services.storage.put(label, Buffer.from(`${label} ${randomUUID()}`))).key;

  const [institution] = await scope
    .insert(institutions, { externalId: `inst-${randomUUID().slice(0, 8)}`, createdAt: at })
    .returning();
  const [document] = await scope
    .insert(documents, { name: "Consent", sourceUrl: "https://files.example.org/consent.pdf", createdAt: at })
    .returning();
  const documentKey = await put("documents");
  await scope.insert(documentVersions, {
    documentId: document!.id,
    version: 1,
    title: "Consent",
    fields: [{ page: 1, x: 10, y: 10, width: 100, height: 40 }],
    storageKey: documentKey,
    sha256: "0".repeat(64),
    size: 10,
    pageCount: 1,
    pageSizes: [{ width: 595, height: 842 }],
    createdAt: at,
  });
  const signedPdfKey = await put("signed");
  const metadataKey = await put("metadata");
  const signatureImageKey = await put("signature-images");
  const status = options.status ?? "completed";
  const [request] = await scope
    .insert(signatureRequests, {
      documentId: document!.id,
      patientId: patient.patientId,
      patientPhone: patient.phone,
      institutionId: institution!.id,
      institutionExternalId: institution!.externalId,
      orderBy: "Dr. Test",
      expiresAt: at,
      status,
      tokenHash: randomUUID(),
      tokenEnc: "x",
      ...(status === "completed" && { signedPdfKey, metadataKey, signatureImageKey, completedAt: at, signedAt: at }),
      createdAt: at,
      updatedAt: at,
    })
    .returning();

  const [formRequest] = await scope
    .insert(formRequests, {
      templateIdentifier: template,
      rnummer: patient.rnummer,
      phone: patient.phone,
      linkTokenHash: randomUUID(),
      status: "submitted",
      expiresAt: at,
      createdAt: at,
      updatedAt: at,
    })
    .returning();
  const draftKey = `draft-${randomUUID().slice(0, 8)}`;
  const [embedSession] = await scope
    .insert(formSessions, {
      templateIdentifier: template,
      tokenHash: randomUUID(),
      config: { rnummer: patient.rnummer, phone: patient.phone, draftKey },
      expiresAt: at,
      createdAt: at,
    })
    .returning();
  const [draft] = await scope
    .insert(drafts, { templateIdentifier: template, draftKey, values: { name: "A" }, createdAt: at, updatedAt: at })
    .returning();
  const [smsDraft] = await scope
    .insert(drafts, {
      templateIdentifier: template,
      draftKey: `form-request:${formRequest!.id}`,
      values: { name: "A" },
      createdAt: at,
      updatedAt: at,
    })
    .returning();
  const uploadKey = await put("uploads");
  const [upload] = await scope
    .insert(formUploads, {
      templateIdentifier: template,
      fieldKey: "scan",
      storageKey: uploadKey,
      name: "scan.pdf",
      size: 10,
      type: "application/pdf",
      sha256: "0".repeat(64),
      uploaderKey: `session:${embedSession!.id}`,
      keptAt: at,
      createdAt: at,
    })
    .returning();
  const [submission] = await scope
    .insert(submissions, {
      templateIdentifier: template,
      templateTitle: "Intake",
      templateSchema: { version: 1, fields: [] },
      values: { name: "A", scan: [{ path: uploadKey, name: "scan.pdf", size: 10, type: "application/pdf" }] },
      rnummer: patient.rnummer,
      phone: patient.phone,
      actorType: "session",
      formRequestId: formRequest!.id,
      createdAt: at,
    })
    .returning();
  const [message] = await scope
    .insert(messages, {
      channel: "sms",
      recipients: [patient.phone],
      body: "Your form",
      purpose: "form_request",
      status: "sent",
      formRequestId: formRequest!.id,
      createdAt: at,
    })
    .returning();
  const [delivery] = await scope
    .insert(webhookDeliveries, {
      eventType: "form.submitted",
      templateIdentifier: template,
      url: "https://hooks.example.org/in",
      body: JSON.stringify({ event: "form.submitted", data: { rnummer: patient.rnummer } }),
      status: "delivered",
      createdAt: at,
      updatedAt: at,
    })
    .returning();
  return {
    signatureRequestId: request!.id,
    formRequestId: formRequest!.id,
    embedSessionId: embedSession!.id,
    draftId: draft!.id,
    smsDraftId: smsDraft!.id,
    submissionId: submission!.id,
    uploadId: upload!.id,
    messageId: message!.id,
    webhookDeliveryId: delivery!.id,
    objectKeys: status === "completed" ? [signedPdfKey, metadataKey, signatureImageKey, uploadKey] : [uploadKey],
  };
}

export interface SeveralSignerRequest {
  signatureRequestId: string;
  /** The patient's own signer row, then the legal representative's. */
  signerIds: [string, string];
  /** Both signers' drawn signatures (the request row holds none with several signers). */
  signerImageKeys: [string, string];
}

/**
 * A finished request with two signers (issue 20): the patient and a legal representative, each with
 * a drawn signature in storage, the request's own image column empty as the service leaves it.
 */
export async function seedSeveralSignerRequest(
  ctx: OrgContext,
  patient: PatientIdentity,
  options: { at: Date },
): Promise<SeveralSignerRequest> {
  const { scope, services } = ctx;
  const at = options.at;
  const put = async (label: string) => (await services.storage.put(label, Buffer.from(`${label} ${randomUUID()}`))).key;
  const [institution] = await scope
    .insert(institutions, { externalId: `inst-${randomUUID().slice(0, 8)}`, createdAt: at })
    .returning();
  const [document] = await scope
    .insert(documents, { name: "Consent", sourceUrl: "https://files.example.org/consent.pdf", createdAt: at })
    .returning();
  const [request] = await scope
    .insert(signatureRequests, {
      documentId: document!.id,
      patientId: patient.patientId,
      patientPhone: patient.phone,
      institutionId: institution!.id,
      institutionExternalId: institution!.externalId,
      orderBy: "Dr. Test",
      expiresAt: at,
      status: "completed",
      tokenHash: randomUUID(),
      tokenEnc: "x",
      completedAt: at,
      signedAt: at,
      createdAt: at,
      updatedAt: at,
    })
    .returning();
  const signer = async (role: string, position: number, kind: "patient" | "link") => {
    const imageKey = await put("signatures");
    const [row] = await scope
      .insert(signatureSigners, {
        signatureRequestId: request!.id,
        role,
        position,
        kind,
        name: kind === "link" ? "Maria Muster" : null,
        status: "signed",
        signedAt: at,
        signatureMethod: "drawn",
        signatureImageKey: imageKey,
        createdAt: at,
        updatedAt: at,
      })
      .returning();
    return { id: row!.id, imageKey };
  };
  const own = await signer("patient", 0, "patient");
  const representative = await signer("legal_representative", 1, "link");
  return {
    signatureRequestId: request!.id,
    signerIds: [own.id, representative.id],
    signerImageKeys: [own.imageKey, representative.imageKey],
  };
}
