import { auditLog, sql } from "@clinsign/db";
import type { OrgContext } from "../context";
import { timestampFacts } from "../pdf-seal/ltv";
import type { SealInputs } from "./seal-inputs";
import type { SealedPdf } from "./sealed-pdf";

/**
 * Sealing's metadata JSON (seal.ts): what was signed, by whom, when, with which certificate and
 * seal, and the request's own audited steps.
 */

/** The request's own steps (not the webhook entries that name it) for the metadata JSON. */
async function eventsOf(ctx: OrgContext, signatureId: string) {
  const rows = await ctx.scope
    .select(
      auditLog,
      sql`(${auditLog.metadata}->>'signatureId') = ${signatureId}`,
      sql`${auditLog.action} like 'signature.%'`,
    )
    .orderBy(auditLog.seq);
  return rows.map((row) => ({
    action: row.action,
    at: row.createdAt.toISOString(),
    actor_type: row.actorType,
    ip: row.ip,
    user_agent: row.userAgent,
  }));
}

/** metadata.json: what was signed, by whom, when, with which certificate and seal, and the request's events. */
export async function sealedMetadata(
  ctx: OrgContext,
  signed: SealInputs,
  made: { stampedSha256: string; sealed: SealedPdf; completedAt: Date },
): Promise<Buffer> {
  const { row, version, several, identity, documentId } = signed;
  const { stampedSha256, sealed, completedAt } = made;
  const { config } = ctx.services;
  const metadata = {
    signature_id: row.id,
    status: "completed",
    document: {
      id: documentId,
      name: signed.documentName,
      title: version.title,
      version: version.version,
      page_count: version.pageCount,
      // Additive (issue 19): the version's language and, when the patient got a document in
      // their language, the main document A1 named.
      ...(version.language && { language: version.language }),
      ...(documentId !== row.documentId && { requested_document_id: row.documentId }),
    },
    patient_id: row.patientId,
    institution_id: row.institutionExternalId,
    order_by: row.orderBy,
    timestamps: {
      created: row.createdAt.toISOString(),
      opened: row.openedAt?.toISOString() ?? null,
      signed: row.signedAt!.toISOString(),
      // Additive (issue 35): signed offline, the device's time of the signature; `signed` is the arrival.
      ...(row.signedOnDeviceAt && { signed_on_device: row.signedOnDeviceAt.toISOString() }),
      completed: completedAt.toISOString(),
      expires: row.expiresAt.toISOString(),
    },
    signer: {
      method: row.signatureMethod,
      typed_name: row.typedName,
      ip: row.signerIp,
      user_agent: row.signerUserAgent,
    },
    ...(several && { signing_order: row.signingOrder, signers: several.metadata }),
    sha256: { original: signed.originalSha256, stamped: stampedSha256, signed_pdf: sealed.sha256 },
    signature_fields: version.fields,
    certificate: {
      sha256_fingerprint: identity.fingerprint,
      subject: identity.subject,
      development: identity.development,
    },
    seal: {
      format: "PAdES",
      sub_filter: "ETSI.CAdES.detached",
      level: sealed.level,
      signature_timestamp: sealed.signatureTimestamp
        ? timestampFacts(sealed.signatureTimestamp, config.tsa!.url)
        : null,
      document_timestamps: sealed.documentTimestamp ? [timestampFacts(sealed.documentTimestamp, config.tsa!.url)] : [],
    },
    events: [
      ...(await eventsOf(ctx, row.id)),
      {
        action: "signature.completed",
        at: completedAt.toISOString(),
        actor_type: "system",
        ip: null,
        user_agent: null,
      },
    ],
  };
  return Buffer.from(JSON.stringify(metadata, null, 2) + "\n", "utf8");
}
