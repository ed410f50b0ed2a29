/**
 * `/verify`: anyone drops a PDF and learns whether this service sealed it, whether it is intact,
 * who sealed it and when, the PAdES level it reaches, the request it belongs to, and what changed
 * after sealing. Nothing is stored. The file is parsed in the PDF worker (inspect-pdf.ts); this
 * adds what the database knows: the service's certificates and the request whose seal signed
 * that content (signature_requests.sealed_content_sha256, recorded at seal time).
 */
import type { VerifyResult } from "@clinsign/contracts";
import { eq, signatureRequests } from "@clinsign/db";
import { systemContext, type Services } from "../context";
import { isOrganizationSealCertificate, requestOfSealedContent } from "../credentials/sealed-copies";
import type { PublicContext } from "../identity/public-context";
import { loadSigningIdentity } from "../pdf-seal/pades";
import { AppError } from "../errors";
import { pinnedDocumentIdColumn } from "../signatures/request-read";
import { PdfLimitError, PdfQueueFullError, PdfTaskError, runPdfTask } from "../pdf-worker/run";
import { MAX_UPLOAD_BYTES } from "../uploads/uploads";
import type { InspectedSignature, PdfInspection } from "../pdf-seal/inspect-pdf";

/** The per-address count of checks, the door's admission (core/credentials/sealed-copies.ts). */
export { consumeVerifyAttempt, VERIFY_PER_ADDRESS } from "../credentials/sealed-copies";
/** The largest PDF /verify reads: the upload cap. */
export const MAX_VERIFY_BYTES = MAX_UPLOAD_BYTES;

const notPdf = () =>
  new AppError("invalid_request", "the file is not a PDF", { field: "file", reason: "not_pdf" }, [
    { key: "file", message: "the file is not a PDF" },
  ]);

/** The PAdES baseline level the seal reaches, from what the file carries. */
function padesLevel(seal: InspectedSignature, inspection: PdfInspection, intact: boolean): VerifyResult["padesLevel"] {
  if (!intact) return null;
  const stamps = inspection.signatures.filter(
    (s) => s.kind === "document_timestamp" && s.signatureValid && s.end > seal.end,
  );
  const timestamped = !!seal.timestamp?.valid || stamps.length > 0;
  if (!timestamped) return "B-B";
  const dss = inspection.dss;
  if (!dss || dss.certificates === 0 || dss.revocation === 0) return "B-T";
  return dss.coveredByDocumentTimestamp ? "B-LTA" : "B-LT";
}

function sealedAt(seal: InspectedSignature, inspection: PdfInspection): VerifyResult["sealedAt"] {
  if (seal.timestamp?.valid) return { at: seal.timestamp.genTime, source: "signature_timestamp" };
  const stamp = inspection.signatures.find(
    (s) => s.kind === "document_timestamp" && s.signatureValid && s.end > seal.end && s.timestamp,
  );
  if (stamp?.timestamp) return { at: stamp.timestamp.genTime, source: "document_timestamp" };
  return seal.claimedTime ? { at: seal.claimedTime, source: "claimed" } : null;
}

/** The request whose seal signed this content (its metadata JSON's ids; no patient data). */
async function requestOf(services: Services, messageDigest: string | null): Promise<VerifyResult["request"]> {
  if (!messageDigest || !/^[0-9a-f]{64}$/.test(messageDigest)) return null;
  // Found across organizations by design (the digest is only known to whoever holds the sealed
  // file), then read in the request's own organization.
  const grant = await requestOfSealedContent(services, messageDigest);
  if (!grant) return null;
  const ctx = systemContext(services, grant.organizationId, "verify");
  const [row] = await ctx.scope
    .query({
      id: signatureRequests.id,
      documentId: pinnedDocumentIdColumn,
      version: signatureRequests.pinnedVersion,
      completedAt: signatureRequests.completedAt,
    })
    .from(signatureRequests)
    .where(eq(signatureRequests.id, grant.signatureRequestId))
    .limit(1);
  return row
    ? {
        signatureId: row.id,
        documentId: row.documentId,
        documentVersion: row.version ?? 1,
        completedAt: row.completedAt?.toISOString() ?? null,
      }
    : null;
}

/**
 * `/verify`: anyone's PDF, checked for a seal of this service and whether it is intact. Names no
 * patient data; the request it belongs to only by its ids.
 */
export async function verifySealedPdf(pub: PublicContext, input: { pdf: Uint8Array }): Promise<VerifyResult> {
  const { services } = pub;
  if (input.pdf.byteLength > MAX_VERIFY_BYTES)
    throw new AppError("payload_too_large", `the file exceeds ${MAX_VERIFY_BYTES / 1024 / 1024} MB`);
  if (!Buffer.from(input.pdf.buffer, input.pdf.byteOffset, Math.min(input.pdf.byteLength, 1024)).includes("%PDF-"))
    throw notPdf();
  const limits = services.config.verify;
  let inspection: PdfInspection;
  try {
    // Anyone may send this: the lowest-priority lane, one check at a time, its own short deadline.
    inspection = await runPdfTask(
      services.config.pdfWorker,
      "inspectSignedPdf",
      { bytes: input.pdf, limits: { maxSignatures: limits.maxSignatures, maxHashedBytes: limits.maxHashedBytes } },
      { lane: "verify", concurrency: 1, queueLength: limits.queueLength, timeoutMs: limits.timeoutMs },
    );
  } catch (error) {
    if (error instanceof PdfQueueFullError)
      throw new AppError("rate_limited", "too many checks are waiting; try again in a minute", {
        retryAfterSeconds: Math.ceil(limits.timeoutMs / 1000),
      });
    // A hostile or broken file is the sender's problem, never a 500.
    if (error instanceof PdfLimitError || error instanceof PdfTaskError)
      throw new AppError("invalid_request", "the PDF could not be read within the limits", {
        field: "file",
        reason: "pdf_limits",
      });
    throw error;
  }
  if (inspection.overLimit)
    throw new AppError(
      "invalid_request",
      `the PDF could not be checked: ${inspection.overLimit} (at most ${limits.maxSignatures} signatures are checked)`,
      { field: "file", reason: "signature_limits" },
      [{ key: "file", message: inspection.overLimit }],
    );
  if (!inspection.isPdf) throw notPdf();
  const seal = inspection.signatures.find((s) => s.kind === "signature" && s.wellFormed) ?? null;
  const base: VerifyResult = {
    status: "unsigned",
    sealedByThisService: false,
    intact: false,
    modifiedAfterSealing: false,
    updatedAfterSealing: false,
    changes: null,
    signer: null,
    sealedAt: null,
    padesLevel: null,
    request: null,
    signatureCount: inspection.signatures.length,
  };
  if (!seal) return base;
  const request = await requestOf(services, seal.messageDigest);
  const ours =
    (seal.signer && seal.signatureValid && (await isServiceCertificate(services, seal.signer.fingerprint))) ||
    request !== null;
  const modifiedAfterSealing = !seal.digestMatches || !seal.signatureValid;
  const changes = inspection.changes;
  const updatedAfterSealing =
    changes === null
      ? seal.end !== inspection.length
      : Object.values(changes).some((count) => count > 0) ||
        inspection.signatures.some((s) => s.end > seal.end && !s.signatureValid);
  const intact = !modifiedAfterSealing && !updatedAfterSealing;
  return {
    ...base,
    status: "sealed",
    sealedByThisService: ours,
    intact,
    modifiedAfterSealing,
    updatedAfterSealing,
    changes,
    signer: seal.signer,
    sealedAt: sealedAt(seal, inspection),
    padesLevel: padesLevel(seal, inspection, intact),
    request,
  };
}

/**
 * Whether a certificate fingerprint is one this service seals with: the environment's, the
 * development certificate, or an organization's uploaded seal (`/verify`, across organizations
 * by design: it names no organization's data).
 */
async function isServiceCertificate(services: Services, fingerprint: string): Promise<boolean> {
  if (loadSigningIdentity(services.config).fingerprint === fingerprint) return true;
  return isOrganizationSealCertificate(services, fingerprint);
}
