import type { OrgContext, Services } from "../context";
import { sha256Hex } from "../crypto";
import { runPdfTask } from "../pdf-worker/run";
import { findSignatureBytes, signedContentSha256 } from "../pdf-seal/byte-range";
import { sealWithTime } from "../pdf-seal/ltv";
import type { SigningIdentity } from "../pdf-seal/pades";
import { printable } from "../pdf-seal/seal-pdf";
import type { SealInputs } from "./seal-inputs";

/**
 * Sealing's PDF steps (seal.ts): the stamped signatures and the audit page drawn in the PDF worker,
 * then the PAdES seal with its time stamp and LTV data, and the seal's digest `/verify` looks up.
 */

/**
 * pdf-lib's part (stamp, audit page, signature placeholder) runs in the PDF worker under its
 * limits; the signature itself is made here, so the private key stays in this thread.
 */
export function stampWithAuditPage(ctx: OrgContext, signed: SealInputs) {
  const { row, version, several, signers, identity } = signed;
  const { config } = ctx.services;
  return runPdfTask(config.pdfWorker, "prepareSeal", {
    original: signed.original,
    fields: version.fields,
    png: signed.png,
    typedName: row.typedName,
    ...(several && { stamps: several.stamps }),
    facts: {
      title: version.title,
      signatureId: row.id,
      documentId: signed.documentId,
      version: version.version,
      documentLanguage: version.language,
      signature: several
        ? { kind: "several" as const, count: signers.length, order: row.signingOrder }
        : row.signatureMethod === "typed"
          ? { kind: "typed" as const, name: row.typedName ?? "" }
          : { kind: "drawn" as const },
      language: signed.language,
      clinicLanguage: signed.clinicLanguage,
      patientId: row.patientId,
      institutionId: row.institutionExternalId,
      orderBy: row.orderBy,
      createdAt: row.createdAt,
      openedAt: row.openedAt,
      signedAt: row.signedAt!,
      signedOnDeviceAt: row.signedOnDeviceAt,
      ip: row.signerIp,
      userAgent: row.signerUserAgent,
      originalSha256: signed.originalSha256,
      certificate: `${identity.subject}, SHA-256 ${identity.fingerprint}`,
      development: identity.development,
      tsaHost: config.tsa ? new URL(config.tsa.url).host : null,
      ...(several && { signers: several.auditPage }),
    },
    placeholder: {
      reason: several
        ? `Signed by ${printable(
            signers
              .filter((s) => s.status === "signed")
              .map((s) => s.role)
              .join(", "),
          )} for patient ${printable(row.patientId)} (signature ${row.id})`
        : `Signed by patient ${printable(row.patientId)} (signature ${row.id})`,
      location: printable(row.institutionExternalId),
      contactInfo: "ClinSign",
      signingTime: new Date(),
      name: identity.subject,
    },
  });
}

/**
 * With a TSA the seal is time-stamped (B-T) and, with a CA-issued certificate, extended to
 * B-LTA. A TSA or responder that fails throws here and nothing is stored: the request stays
 * `sealing` and the job retries. The seal's message digest is how `/verify` finds this request
 * from a dropped copy; the seal covers its own revision, validation data and document time
 * stamps come after it.
 */
export async function sealAndFindDigest(config: Services["config"], prepared: Uint8Array, identity: SigningIdentity) {
  const seal = await sealWithTime(config, prepared, identity);
  const sealSignature = findSignatureBytes(seal.sealRevision).find(
    (s) => s.wellFormed && s.range[2] + s.range[3] === seal.sealRevision.length,
  );
  return {
    ...seal,
    sha256: sha256Hex(seal.pdf),
    sealedContentSha256: sealSignature
      ? signedContentSha256(seal.sealRevision, sealSignature.range).toString("hex")
      : null,
  };
}
export type SealedPdf = Awaited<ReturnType<typeof sealAndFindDigest>>;
