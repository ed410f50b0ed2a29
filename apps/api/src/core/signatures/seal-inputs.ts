import type { PatientLanguage } from "@clinsign/contracts";
import type { SignatureFieldRect } from "@clinsign/db";
import type { OrgContext } from "../context";
import { sha256Hex } from "../crypto";
import { findDocument, findVersion } from "../documents/documents";
import { loadOrganization } from "../organizations/organizations";
import type { SigningIdentity } from "../pdf-seal/pades";
import { sealingIdentity } from "./org-seal";
import { pinnedDocumentIdOf, type SignatureRequestRow } from "./request-read";
import { fieldsOfRole, signersOf, type SignerRow } from "./signers";
import { signerLabels } from "./signer-views";

/**
 * Sealing's first step (seal.ts): what a request's seal is made of — the pinned version and its
 * stored PDF (checked against its SHA-256), the signatures (one patient's, or each signer's into
 * that signer's fields), the sealing identity and the audit page's languages — read and checked
 * before anything is drawn.
 */

/** Several signers: what sealing stamps, writes on the audit page and into the metadata JSON, per signer. */
async function severalSignersFacts(ctx: OrgContext, signers: SignerRow[], fields: SignatureFieldRect[]) {
  const labels = await signerLabels(ctx, signers);
  const stamps = [];
  for (const signer of signers) {
    if (signer.status !== "signed") continue;
    const png = signer.signatureMethod === "drawn" ? await ctx.services.storage.get(signer.signatureImageKey!) : null;
    if (signer.signatureMethod === "drawn" && !png)
      throw new Error(`the stored signature image of the ${signer.role} is missing`);
    stamps.push({ fields: fieldsOfRole(fields, signer.role), png, typedName: signer.typedName });
  }
  const nameOf = (s: SignerRow) => labels.get(s.id) ?? (s.signatureMethod === "typed" ? s.typedName : null);
  return {
    stamps,
    auditPage: signers.map((s) => ({
      role: s.role,
      name: nameOf(s),
      status: s.status,
      method: s.signatureMethod,
      signedAt: s.signedAt,
      signedOnDeviceAt: s.signedOnDeviceAt,
      ip: s.ip,
      userAgent: s.userAgent,
    })),
    metadata: signers.map((s) => ({
      role: s.role,
      kind: s.kind,
      position: s.position,
      required: s.required,
      name: nameOf(s),
      staff_user_id: s.staffUserId,
      status: s.status,
      method: s.signatureMethod,
      typed_name: s.typedName,
      signed_at: s.signedAt?.toISOString() ?? null,
      ...(s.signedOnDeviceAt && { signed_on_device_at: s.signedOnDeviceAt.toISOString() }),
      ip: s.ip,
      user_agent: s.userAgent,
    })),
  };
}

/** What a request's seal is made of, read and checked before anything is drawn. */
export interface SealInputs {
  row: SignatureRequestRow;
  /** The pinned document (issue 19: the one in the patient's language when the request had one). */
  documentId: string;
  version: Awaited<ReturnType<typeof findVersion>>;
  documentName: string | null;
  original: Buffer;
  originalSha256: string;
  signers: SignerRow[];
  /** Several signers (issue 20): each signer's signature into that signer's fields. */
  several: Awaited<ReturnType<typeof severalSignersFacts>> | null;
  /** One patient's drawn signature. */
  png: Buffer | null;
  identity: SigningIdentity;
  clinicLanguage: PatientLanguage;
  /** The audit page speaks the patient's language (the signing page's), the clinic's beside it. */
  language: PatientLanguage;
}

export async function loadSealInputs(ctx: OrgContext, row: SignatureRequestRow): Promise<SealInputs> {
  const { storage } = ctx.services;
  const documentId = pinnedDocumentIdOf(row);
  const version = await findVersion(ctx, documentId, row.pinnedVersion!);
  const doc = await findDocument(ctx, documentId).catch(() => null);
  const original = await storage.get(version.storageKey);
  if (!original) throw new Error("the document's stored PDF is missing");
  const originalSha256 = sha256Hex(original);
  if (originalSha256 !== version.sha256) throw new Error("the document's stored PDF does not match its SHA-256");
  const signers = await signersOf(ctx, row.id);
  const several = signers.length > 0 ? await severalSignersFacts(ctx, signers, version.fields) : null;
  const png = !several && row.signatureMethod === "drawn" ? await storage.get(row.signatureImageKey!) : null;
  if (!several && row.signatureMethod === "drawn" && !png) throw new Error("the stored signature image is missing");
  const patientSigner =
    signers.find((s) => s.role === "patient" && s.signingLanguage) ?? signers.find((s) => s.signingLanguage);
  return {
    row,
    documentId,
    version,
    documentName: doc?.name ?? null,
    original,
    originalSha256,
    signers,
    several,
    png,
    identity: await sealingIdentity(ctx),
    clinicLanguage: (await loadOrganization(ctx)).locale,
    language: (several ? patientSigner?.signingLanguage : row.signingLanguage) ?? "en",
  };
}
