import { createHash } from "node:crypto";
import { KDL_DISPLAYS, type Confidentiality, type TemplateSchema } from "@clinsign/contracts";
import {
  and,
  desc,
  documents,
  eq,
  lt,
  signatureRequests,
  signatureSigners,
  submissions,
  type FhirDeliverySource,
} from "@clinsign/db";
import type { OrgContext } from "../context";
import { recordClassOf } from "../documents/record-class";
import { signedVersionOf } from "../fhir/document-reference";
import { submissionToQuestionnaireResponse } from "../fhir/questionnaire-response";
import { isikDocumentReference, type CodeAndDisplay } from "../fhir-mapping/isik-document";
import { isikQuestionnaireResponse } from "../fhir-mapping/isik-questionnaire-response";
import { provenance, type Signer } from "../fhir-mapping/provenance";
import { fullUrlOf, patientReference, pushBundle, type PatientLink } from "../fhir-mapping/push-bundle";
import { systems, type FhirJson } from "../fhir-mapping/resources";
import { codedObservations } from "../fhir-mapping/score-observations";
import { findSignatureBytes } from "../pdf-seal/byte-range";
import {
  findSignatureRequest,
  pinnedDocumentIdColumn,
  pinnedDocumentIdOf,
  type SignatureRequestRow,
} from "../signatures/request-read";
import { renderSubmissionPdf } from "../submissions/pdf";
import { findSubmission } from "../submissions/submission-reads";
import type { FhirPushTargetRow } from "./targets";

/** Why a source is not pushed at all: the delivery ends `failed` with this reason, never retried. */
export class NotPushable extends Error {
  constructor(message: string) {
    super(message);
    this.name = "NotPushable";
  }
}

type Target = Pick<FhirPushTargetRow, "patientIdSystem" | "rnummerSystem">;

/**
 * The transaction Bundle of one delivery (docs/fhir.md): for a completed signature request the
 * patient, the sealed PDF as ISiKDokumentenMetadaten (the bytes inline) and a Provenance carrying
 * the seal's CMS; for a submission the patient, the answers as ISiKFormulardaten, each coded score
 * as an Observation (SDC extraction) and a Provenance. Every entry a conditional create.
 */
export async function buildPushBundle(
  ctx: OrgContext,
  source: { kind: FhirDeliverySource; id: string },
  target: Target,
): Promise<FhirJson> {
  return source.kind === "signature_request"
    ? signatureRequestBundle(ctx, source.id, target)
    : submissionBundle(ctx, source.id, target);
}

async function signatureRequestBundle(ctx: OrgContext, id: string, target: Target): Promise<FhirJson> {
  const apiUrl = ctx.services.config.publicApiUrl;
  const row = await findSignatureRequest(ctx, id);
  if (row.status !== "completed" || !row.signedPdfKey || !row.signedPdfSha256)
    throw new NotPushable("the signature request has no sealed PDF");
  const pdf = await ctx.services.storage.get(row.signedPdfKey);
  if (!pdf) throw new Error(`the sealed PDF of ${row.id} is missing from storage`);
  const organization = await ctx.scope.organization();
  const version = await signedVersionOf(ctx, row);
  return sealedPdfBundle({
    apiUrl,
    requestId: row.id,
    patient: { system: target.patientIdSystem ?? systems(apiUrl).patientId, value: row.patientId },
    title: version?.title ?? "Signed document",
    description: version?.description || (version?.title ?? "Signed document"),
    language: version?.language ?? organization.locale,
    organization: organization.name,
    completedAt: row.completedAt!.toISOString(),
    signers: await signersOf(ctx, row.id),
    pdf,
    sha256Hex: row.signedPdfSha256,
    ...(await filingOf(ctx, row)),
  });
}

/** How the hospital files the PDF: the document's KDL type and confidentiality, and what it replaces. */
async function filingOf(
  ctx: OrgContext,
  row: SignatureRequestRow,
): Promise<Pick<SealedPdfFacts, "type" | "confidentiality" | "replacesRequestId">> {
  const [doc] = await ctx.scope
    .query({ kdlType: documents.kdlType, confidentiality: documents.confidentiality })
    .from(documents)
    .where(eq(documents.id, row.documentId));
  const recordClass = recordClassOf(doc ?? { kdlType: null, confidentiality: "N" });
  const replaced = await replacedRequestOf(ctx, row);
  return {
    ...(recordClass.kdlType && { type: { code: recordClass.kdlType, display: KDL_DISPLAYS[recordClass.kdlType] } }),
    confidentiality: recordClass.confidentiality,
    ...(replaced && { replacesRequestId: replaced }),
  };
}

/**
 * The request whose PDF this one replaces: the same patient's latest earlier completion of the
 * same document on an older version (a new version signed again, ISiK `relatesTo` `replaces`).
 */
async function replacedRequestOf(ctx: OrgContext, row: SignatureRequestRow): Promise<string | undefined> {
  if (!row.pinnedVersion || !row.completedAt) return undefined;
  const [earlier] = await ctx.scope
    .query({ id: signatureRequests.id })
    .from(signatureRequests)
    .where(
      and(
        eq(signatureRequests.documentId, row.documentId),
        // Version numbers count within one document: the language variant signed must be the same.
        eq(pinnedDocumentIdColumn, pinnedDocumentIdOf(row)),
        eq(signatureRequests.patientId, row.patientId),
        eq(signatureRequests.status, "completed"),
        lt(signatureRequests.pinnedVersion, row.pinnedVersion),
        lt(signatureRequests.completedAt, row.completedAt),
      ),
    )
    .orderBy(desc(signatureRequests.completedAt))
    .limit(1);
  return earlier?.id;
}

/** What the Bundle of one sealed PDF is made of, as read from the rows and the store. */
export interface SealedPdfFacts {
  apiUrl: string;
  requestId: string;
  patient: PatientLink;
  title: string;
  description: string;
  language: string;
  organization: string;
  completedAt: string;
  signers: Signer[];
  pdf: Buffer;
  sha256Hex: string;
  /** The document's KDL type; absent: the default. */
  type?: CodeAndDisplay;
  /** Absent: normal. */
  confidentiality?: Confidentiality;
  replacesRequestId?: string;
}

/**
 * The Bundle of a sealed PDF, from its facts alone (the bench times it): the patient, the
 * DocumentReference with the bytes inline, and the Provenance carrying the seal's CMS.
 */
export function sealedPdfBundle(facts: SealedPdfFacts): FhirJson {
  const { pdf, completedAt, patient } = facts;
  const document = isikDocumentReference({
    apiUrl: facts.apiUrl,
    requestId: facts.requestId,
    patient,
    title: facts.title,
    description: facts.description,
    language: facts.language,
    pdf: inlinePdf(pdf, facts.sha256Hex),
    sealedAt: completedAt,
    confidentiality: facts.confidentiality ?? "N",
    author: facts.organization,
    ...(facts.type && { type: facts.type }),
    ...(facts.replacesRequestId && { replacesRequestId: facts.replacesRequestId }),
  });
  const seal = sealCmsOf(pdf);
  const proof = provenance({
    targets: [fullUrlOf(document)],
    recorded: completedAt,
    patient: patientReference(patient),
    signers: facts.signers,
    organization: { name: facts.organization },
    ...(seal && { seal: { when: completedAt, cmsBase64: seal.toString("base64") } }),
  });
  return pushBundle({ patient, resources: [document, proof] });
}

/** A PDF carried inline (ISiK "Dokumentenbereitstellung"): its size, FHIR's SHA-1, our SHA-256 (known or computed), the bytes. */
function inlinePdf(pdf: Buffer, sha256Hex = createHash("sha256").update(pdf).digest("hex")) {
  return {
    size: pdf.length,
    sha1Base64: createHash("sha1").update(pdf).digest("base64"),
    sha256Hex,
    data: pdf.toString("base64"),
  };
}

/** Who signed: each signer's role and name with several signers, else the patient alone. */
async function signersOf(ctx: OrgContext, signatureRequestId: string): Promise<Signer[]> {
  const rows = await ctx.scope
    .query({ role: signatureSigners.role, name: signatureSigners.name, status: signatureSigners.status })
    .from(signatureSigners)
    .where(eq(signatureSigners.signatureRequestId, signatureRequestId))
    .orderBy(signatureSigners.position);
  const signed = rows.filter((r) => r.status === "signed");
  return signed.length ? signed.map((r) => ({ role: r.role, ...(r.name && { name: r.name }) })) : [{ role: "patient" }];
}

/**
 * The CMS SignedData of the PDF's seal: the first signature of the file (document time stamps of
 * B-LTA come after it in later revisions), its `/Contents` without the zero padding.
 */
function sealCmsOf(pdf: Buffer): Buffer | null {
  const [seal] = findSignatureBytes(pdf)
    .filter((s) => s.wellFormed)
    .sort((a, b) => a.at - b.at);
  return seal ? derOnly(seal.contents) : null;
}

/** A DER value's own bytes (tag, length, content), without what follows it. */
function derOnly(bytes: Buffer): Buffer {
  const first = bytes[1] ?? 0;
  if (first < 0x80) return bytes.subarray(0, 2 + first);
  const lengthBytes = first & 0x7f;
  const length = bytes.subarray(2, 2 + lengthBytes).reduce((sum, byte) => sum * 256 + byte, 0);
  return bytes.subarray(0, 2 + lengthBytes + length);
}

async function submissionBundle(ctx: OrgContext, id: string, target: Target): Promise<FhirJson> {
  const apiUrl = ctx.services.config.publicApiUrl;
  const row = await findSubmission(ctx, id);
  const reason = notPushableSubmission(row);
  if (reason) throw new NotPushable(reason);
  const patient: PatientLink = { system: target.rnummerSystem ?? systems(apiUrl).rnummer, value: row.rnummer! };
  const response = isikQuestionnaireResponse(await submissionToQuestionnaireResponse(ctx, row), {
    patient,
    questionnaireTitle: row.templateTitle,
  });
  // The schema stored with the submission was validated when its template was saved.
  const schema = row.templateSchema as TemplateSchema;
  const observations = codedObservations({ schema }, row.values, { response });
  const organization = await ctx.scope.organization();
  const signedForm = await signedFormDocument(ctx, row, schema, {
    patient,
    organization,
    response: fullUrlOf(response),
  });
  const patientAnswered = row.actorType === "embed_session" || row.actorType === "sms_recipient";
  const proof = provenance({
    targets: [response, ...observations, ...signedForm].map(fullUrlOf),
    recorded: row.createdAt.toISOString(),
    patient: patientReference(patient),
    signers: patientAnswered ? [{ role: "patient" }] : [],
    organization: { name: organization.name },
  });
  return pushBundle({ patient, resources: [response, ...observations, ...signedForm, proof] });
}

/**
 * A form the patient signed by hand (a signature field answered) also goes as the PDF staff
 * download of it, with the drawing in place: an ISiK DocumentReference whose `context.related`
 * is the response, so the HIS files the signed page beside the answers. Not sealed: the
 * submission's own record is the response.
 */
async function signedFormDocument(
  ctx: OrgContext,
  row: Awaited<ReturnType<typeof findSubmission>>,
  schema: TemplateSchema,
  links: { patient: PatientLink; organization: { name: string; locale: string }; response: string },
): Promise<FhirJson[]> {
  const signed = schema.fields.some(
    (field) => field.type === "signature" && field.key !== undefined && typeof row.values[field.key] === "string",
  );
  if (!signed) return [];
  const pdf = Buffer.from(await renderSubmissionPdf(ctx, { id: row.id }));
  const apiUrl = ctx.services.config.publicApiUrl;
  return [
    isikDocumentReference({
      apiUrl,
      requestId: row.id,
      identifierSystem: systems(apiUrl).submission,
      patient: links.patient,
      title: row.templateTitle,
      description: row.templateTitle,
      language: row.language ?? links.organization.locale,
      pdf: inlinePdf(pdf),
      sealedAt: row.createdAt.toISOString(),
      confidentiality: "N",
      author: links.organization.name,
      questionnaireResponse: links.response,
    }),
  ];
}

/**
 * A submission the hospital could not file under a patient is not pushed: one without a case
 * number (an anonymous public form), or one whose case number the patient's browser typed and
 * nobody verified (issue 32).
 */
export function notPushableSubmission(
  row: Pick<typeof submissions.$inferSelect, "rnummer" | "rnummerPatientReported">,
): string | null {
  if (!row.rnummer) return "the submission names no patient (no case number)";
  if (row.rnummerPatientReported) return "the case number was typed by the patient and nobody verified it";
  return null;
}
