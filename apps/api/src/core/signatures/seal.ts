import { PDFDocument, rgb, StandardFonts, type PDFFont, type PDFPage } from "pdf-lib";
import { auditLog, eq, signatureRequests, sql, type SignatureFieldRect } from "@clinsign/db";
import { inTransaction, systemContext, type OrgContext, type Services } from "../context";
import { sha256Hex } from "../crypto";
import { findDocument, findVersion } from "../documents/documents";
import { loadSigningIdentity, sealPdf } from "./pades";
import { recordSignatureEvent } from "./events";
import { metadataJsonUrl, signedPdfUrl, type SignatureRequestRow } from "./requests";

/** Job kind of sealing retries. */
export const SEAL_JOB = "signature.seal";

/** Standard fonts speak WinAnsi: anything else (emoji, CJK, controls) becomes "?". */
function printable(text: string): string {
  return text.normalize("NFC").replace(/[^\x20-\x7E\xA0-\xFF]/g, "?");
}

function wrap(text: string, font: PDFFont, size: number, maxWidth: number): string[] {
  const lines: string[] = [];
  let line = "";
  for (const char of printable(text)) {
    if (font.widthOfTextAtSize(line + char, size) > maxWidth) {
      const cut = line.lastIndexOf(" ");
      if (cut > line.length / 2) {
        lines.push(line.slice(0, cut));
        line = line.slice(cut + 1) + char;
        continue;
      }
      lines.push(line);
      line = char;
    } else line += char;
  }
  if (line) lines.push(line);
  return lines.length ? lines : [""];
}

/** The field rectangle in PDF user space (bottom-left origin, MediaBox offset included). */
function fieldBox(page: PDFPage, rect: SignatureFieldRect) {
  const box = page.getMediaBox();
  return { x: box.x + rect.x, y: box.y + box.height - rect.y - rect.height, width: rect.width, height: rect.height };
}

export interface StampInput {
  original: Buffer;
  fields: SignatureFieldRect[];
  png: Buffer | null;
  typedName: string | null;
}

/** Draws the signature (image, or the typed name) into every field, scaled to fit and centred. */
export async function stampSignature(input: StampInput): Promise<Buffer> {
  const doc = await PDFDocument.load(input.original, { updateMetadata: false });
  const image = input.png ? await doc.embedPng(input.png) : null;
  const font = await doc.embedFont(StandardFonts.TimesRomanItalic);
  for (const rect of input.fields) {
    const page = doc.getPage(rect.page - 1);
    const box = fieldBox(page, rect);
    if (image) {
      const scale = Math.min(box.width / image.width, box.height / image.height);
      const width = image.width * scale;
      const height = image.height * scale;
      page.drawImage(image, { x: box.x + (box.width - width) / 2, y: box.y + (box.height - height) / 2, width, height });
    } else {
      const name = printable(input.typedName ?? "");
      const size = Math.max(4, Math.min(box.height * 0.7, (box.width * 0.95) / Math.max(font.widthOfTextAtSize(name, 1), 1)));
      const width = font.widthOfTextAtSize(name, size);
      page.drawText(name, { x: box.x + (box.width - width) / 2, y: box.y + (box.height - size * 0.7) / 2, size, font, color: rgb(0.05, 0.1, 0.35) });
    }
  }
  return Buffer.from(await doc.save({ useObjectStreams: false }));
}

export interface AuditPageFacts {
  title: string;
  signatureId: string;
  documentId: string;
  version: number;
  signer: string;
  patientId: string;
  institutionId: string;
  orderBy: string;
  createdAt: Date;
  openedAt: Date | null;
  signedAt: Date;
  ip: string | null;
  userAgent: string | null;
  originalSha256: string;
  stampedSha256: string;
  certificate: string;
  development: boolean;
}

/** Appends the audit page (who, when, from where, hashes before and after stamping). */
export async function appendAuditPage(stamped: Buffer, facts: AuditPageFacts): Promise<Uint8Array> {
  const doc = await PDFDocument.load(stamped, { updateMetadata: false });
  const page = doc.addPage([595.28, 841.89]);
  const regular = await doc.embedFont(StandardFonts.Helvetica);
  const bold = await doc.embedFont(StandardFonts.HelveticaBold);
  const mono = await doc.embedFont(StandardFonts.Courier);
  const left = 56;
  const width = 595.28 - 2 * left;
  let y = 780;
  page.drawText("Signature audit trail", { x: left, y, size: 18, font: bold });
  y -= 28;
  const rows: [string, string, PDFFont?][] = [
    ["Document", `${facts.title} (version ${facts.version})`],
    ["Document id", facts.documentId],
    ["Signature id", facts.signatureId],
    ["Signer", facts.signer],
    ["Patient id", facts.patientId],
    ["Institution", facts.institutionId],
    ["Ordered by", facts.orderBy],
    ["Requested (UTC)", facts.createdAt.toISOString()],
    ["Opened (UTC)", facts.openedAt?.toISOString() ?? "-"],
    ["Signed (UTC)", facts.signedAt.toISOString()],
    ["IP address", facts.ip ?? "-"],
    ["User agent", facts.userAgent ?? "-"],
    ["SHA-256 of the original", facts.originalSha256, mono],
    ["SHA-256 after stamping", facts.stampedSha256, mono],
    ["Sealed with", facts.certificate + (facts.development ? " (development certificate, not trusted)" : "")],
  ];
  for (const [label, value, font] of rows) {
    page.drawText(label, { x: left, y, size: 9, font: bold, color: rgb(0.3, 0.3, 0.3) });
    y -= 13;
    const valueFont = font ?? regular;
    const size = font ? 8.5 : 10;
    for (const line of wrap(value, valueFont, size, width)) {
      page.drawText(line, { x: left, y, size, font: valueFont });
      y -= size + 4;
    }
    y -= 6;
  }
  y -= 6;
  for (const line of wrap(
    "This page was added by the service after the signature was stamped into the document. The whole file, this page included, is sealed with a PAdES digital signature; any later change breaks the seal.",
    regular,
    8.5,
    width,
  )) {
    page.drawText(line, { x: left, y, size: 8.5, font: regular, color: rgb(0.35, 0.35, 0.35) });
    y -= 12;
  }
  return doc.save({ useObjectStreams: false });
}

async function eventsOf(ctx: OrgContext, signatureId: string) {
  const rows = await ctx.scope.select(auditLog, sql`${auditLog.metadata}->>'signatureId' = ${signatureId}`).orderBy(auditLog.seq);
  return rows.map((row) => ({
    action: row.action,
    at: row.createdAt.toISOString(),
    actor_type: row.actorType,
    ip: row.ip,
    user_agent: row.userAgent,
  }));
}

/**
 * Produces the signed result of a request in `sealing`: stamps the signature into the pinned
 * version, appends the audit page, seals with PAdES, stores the signed PDF and the metadata
 * JSON, and marks the request `completed`. Safe to call twice: only one call can complete it,
 * a late one removes its files again. Throws when anything fails (the job retries).
 */
export async function sealSignatureRequest(services: Services, organizationId: string, requestId: string): Promise<"completed" | "skipped"> {
  const ctx: OrgContext = systemContext(services, organizationId, `seal-${requestId}`);
  const [row] = await ctx.scope.select(signatureRequests, eq(signatureRequests.id, requestId)).limit(1);
  if (!row || row.status !== "sealing") return "skipped";
  try {
    return await produceSealedResult(ctx, row);
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    await ctx.scope.update(
      signatureRequests,
      { sealAttempts: sql`${signatureRequests.sealAttempts} + 1`, sealError: message.slice(0, 1000), updatedAt: new Date() } as never,
      eq(signatureRequests.id, row.id),
    );
    throw error;
  }
}

async function produceSealedResult(ctx: OrgContext, row: SignatureRequestRow): Promise<"completed" | "skipped"> {
  const { storage, config } = ctx.services;
  const version = await findVersion(ctx, row.documentId, row.pinnedVersion!);
  const doc = await findDocument(ctx, row.documentId).catch(() => null);
  const original = await storage.get(version.storageKey);
  if (!original) throw new Error("the document's stored PDF is missing");
  const originalSha256 = sha256Hex(original);
  if (originalSha256 !== version.sha256) throw new Error("the document's stored PDF does not match its SHA-256");
  const png = row.signatureMethod === "drawn" ? await storage.get(row.signatureImageKey!) : null;
  if (row.signatureMethod === "drawn" && !png) throw new Error("the stored signature image is missing");

  const stamped = await stampSignature({ original, fields: version.fields, png, typedName: row.typedName });
  const stampedSha256 = sha256Hex(stamped);
  const identity = loadSigningIdentity(config);
  const signer = row.signatureMethod === "typed" ? `${row.typedName} (typed name)` : `Patient ${row.patientId} (handwritten signature)`;
  const withAuditPage = await appendAuditPage(stamped, {
    title: version.title,
    signatureId: row.id,
    documentId: row.documentId,
    version: version.version,
    signer,
    patientId: row.patientId,
    institutionId: row.institutionExternalId,
    orderBy: row.orderBy,
    createdAt: row.createdAt,
    openedAt: row.openedAt,
    signedAt: row.signedAt!,
    ip: row.signerIp,
    userAgent: row.signerUserAgent,
    originalSha256,
    stampedSha256,
    certificate: `${identity.subject}, SHA-256 ${identity.fingerprint}`,
    development: identity.development,
  });
  const signed = await sealPdf(withAuditPage, identity, {
    reason: `Signed by patient ${printable(row.patientId)} (signature ${row.id})`,
    location: printable(row.institutionExternalId),
    contactInfo: "ClinSign",
    signingTime: new Date(),
  });
  const signedSha256 = sha256Hex(signed);
  const completedAt = new Date();
  const metadata = {
    signature_id: row.id,
    status: "completed",
    document: { id: row.documentId, name: doc?.name ?? null, title: version.title, version: version.version, page_count: version.pageCount },
    patient_id: row.patientId,
    institution_id: row.institutionExternalId,
    order_by: row.orderBy,
    timestamps: {
      created: row.createdAt.toISOString(),
      opened: row.openedAt?.toISOString() ?? null,
      signed: row.signedAt!.toISOString(),
      completed: completedAt.toISOString(),
      expires: row.expiresAt.toISOString(),
    },
    signer: { method: row.signatureMethod, typed_name: row.typedName, ip: row.signerIp, user_agent: row.signerUserAgent },
    sha256: { original: originalSha256, stamped: stampedSha256, signed_pdf: signedSha256 },
    signature_fields: version.fields,
    certificate: { sha256_fingerprint: identity.fingerprint, subject: identity.subject, development: identity.development },
    seal: { format: "PAdES", sub_filter: "ETSI.CAdES.detached" },
    events: [...(await eventsOf(ctx, row.id)), { action: "signature.completed", at: completedAt.toISOString(), actor_type: "system", ip: null, user_agent: null }],
  };
  const metadataBytes = Buffer.from(JSON.stringify(metadata, null, 2) + "\n", "utf8");

  const files = await Promise.all([storage.put("signed", stamped), storage.put("signed", signed), storage.put("signed", metadataBytes)]);
  const [stampedFile, signedFile, metadataFile] = files;
  const done = await inTransaction(ctx, async (tx) => {
    const [updated] = await tx.scope
      .update(
        signatureRequests,
        {
          status: "completed",
          completedAt,
          originalSha256,
          stampedKey: stampedFile!.key,
          stampedSha256,
          signedPdfKey: signedFile!.key,
          signedPdfSha256: signedSha256,
          metadataKey: metadataFile!.key,
          metadataSha256: metadataFile!.sha256,
          sealError: null,
          updatedAt: completedAt,
        },
        eq(signatureRequests.id, row.id),
        eq(signatureRequests.status, "sealing"),
      )
      .returning({ id: signatureRequests.id });
    if (!updated) return false;
    await recordSignatureEvent(
      tx,
      "signature.completed",
      {
        signatureId: row.id,
        documentId: row.documentId,
        version: version.version,
        sha256: { original: originalSha256, stamped: stampedSha256, signedPdf: signedSha256 },
        certificateFingerprint: identity.fingerprint,
      },
      {
        patient_id: row.patientId,
        timestamp: completedAt.toISOString(),
        signed_pdf_url: signedPdfUrl(tx, row.id),
        metadata_json_url: metadataJsonUrl(tx, row.id),
      },
    );
    return true;
  });
  if (!done) {
    await Promise.all(files.map((f) => storage.delete(f.key).catch(() => {})));
    return "skipped";
  }
  return "completed";
}
