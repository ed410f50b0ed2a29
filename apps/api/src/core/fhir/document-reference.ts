import { and, documentVersions, eq, signatureRequests } from "@clinsign/db";
import type { OrgContext } from "../context";
import { metadataJsonUrl, signedPdfUrl } from "../signatures/request-read";
import { pinnedDocumentIdOf } from "../signatures/request-read";
import { digestsAsFhir, storedDigests, type AttachmentSource } from "./questionnaire-response";
import { CLINSIGN, sha256Ni, systems, type FhirJson } from "../fhir-mapping/resources";

type SignatureRequestRecord = typeof signatureRequests.$inferSelect;

/** The title, description and language of the document version a request signed (its pinned one). */
export async function signedVersionOf(ctx: OrgContext, row: SignatureRequestRecord) {
  if (!row.pinnedVersion) return undefined;
  const [version] = await ctx.scope
    .query({
      title: documentVersions.title,
      description: documentVersions.description,
      language: documentVersions.language,
    })
    .from(documentVersions)
    .where(
      and(eq(documentVersions.documentId, pinnedDocumentIdOf(row)), eq(documentVersions.version, row.pinnedVersion)),
    )
    .limit(1);
  return version;
}

/**
 * A sealed PDF (a completed signature request) as a DocumentReference: the SHA-256 of the sealed
 * bytes as its master identifier (RFC 6920 `ni:` name) and as an attachment extension beside
 * FHIR's SHA-1 `hash`; the signature request as identifier and related reference; the patient
 * identifier as A1 was given it; the signing time as the attachment's creation.
 */
export async function sealedPdfToDocumentReference(
  ctx: OrgContext,
  row: SignatureRequestRecord,
  files?: AttachmentSource,
): Promise<FhirJson> {
  const apiUrl = ctx.services.config.publicApiUrl;
  const sid = systems(apiUrl);
  const version = await signedVersionOf(ctx, row);
  const digests = row.signedPdfKey
    ? await (files ? files.digests(row.signedPdfKey) : storedDigests(ctx, row.signedPdfKey))
    : null;
  // The API's download URLs by default; the access export names the files' paths in its ZIP.
  const pdfUrl = files && row.signedPdfKey ? files.url(row.signedPdfKey) : signedPdfUrl(ctx, row.id);
  const metadataUrl = files && row.metadataKey ? files.url(row.metadataKey) : metadataJsonUrl(ctx, row.id);
  const signedAt = (row.signedAt ?? row.completedAt)!.toISOString();
  const requestRef = { system: sid.signatureRequest, value: row.id };
  return {
    resourceType: "DocumentReference",
    id: row.id,
    meta: { lastUpdated: row.completedAt!.toISOString() },
    masterIdentifier: { system: "urn:ietf:rfc:3986", value: sha256Ni(row.signedPdfSha256!) },
    identifier: [requestRef],
    status: "current",
    docStatus: "final",
    type: { text: version?.title ?? "Signed document" },
    subject: { identifier: { system: sid.patientId, value: row.patientId } },
    date: row.completedAt!.toISOString(),
    ...(version?.description && { description: version.description }),
    content: [
      {
        attachment: {
          contentType: "application/pdf",
          // The language the signed document is written in (issue 19), a BCP 47 code.
          ...(version?.language && { language: version.language }),
          ...(pdfUrl && { url: pdfUrl }),
          ...(digests && { size: digests.size, hash: digestsAsFhir(digests).hash }),
          extension: [{ url: CLINSIGN.sha256, valueString: row.signedPdfSha256! }],
          title: `signed-${row.id}.pdf`,
          creation: signedAt,
        },
        format: {
          system: "http://ihe.net/fhir/ihe.formatcode.fhir/CodeSystem/formatcode",
          code: "urn:ihe:iti:xds:2017:mimeTypeSufficient",
        },
      },
      {
        attachment: {
          contentType: "application/json",
          ...(metadataUrl && { url: metadataUrl }),
          ...(row.metadataSha256 && {
            extension: [{ url: CLINSIGN.sha256, valueString: row.metadataSha256 }],
          }),
          title: `metadata-${row.id}.json`,
          creation: signedAt,
        },
      },
    ],
    context: {
      period: { end: signedAt },
      related: [{ identifier: requestRef, display: "signature request" }],
    },
  };
}
