/**
 * What sealing does to the bytes of a document with pdf-lib: stamp the signature into its fields,
 * append the audit page, add the signature placeholder. Runs only inside the PDF worker
 * (core/pdf-worker), under its memory and time limits: the document came from a customer's URL.
 * No database or service imports here, so the worker stays small.
 */
import { createHash } from "node:crypto";
import { PDFDocument, rgb, StandardFonts, type PDFFont, type PDFPage } from "pdf-lib";
import { pdflibAddPlaceholder } from "@signpdf/placeholder-pdf-lib";
import { SUBFILTER_ETSI_CADES_DETACHED } from "@signpdf/utils";
import type { SignatureFieldRect } from "@clinsign/db";

/** Standard fonts speak WinAnsi: anything else (emoji, CJK, controls) becomes "?". */
export function printable(text: string): string {
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
  original: Uint8Array;
  fields: SignatureFieldRect[];
  png: Uint8Array | null;
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
export async function appendAuditPage(stamped: Uint8Array, facts: AuditPageFacts): Promise<Uint8Array> {
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

export interface SealPlaceholderOptions {
  reason: string;
  location: string;
  contactInfo: string;
  signingTime: Date;
  /** The signer's name in the signature dictionary (the certificate's subject). */
  name: string;
}

/** Room for an invisible PAdES (ETSI.CAdES.detached) signature over the whole document. */
export async function addSealPlaceholder(pdf: Uint8Array, options: SealPlaceholderOptions): Promise<Buffer> {
  const doc = await PDFDocument.load(pdf, { updateMetadata: false });
  pdflibAddPlaceholder({
    pdfDoc: doc,
    reason: options.reason,
    contactInfo: options.contactInfo,
    name: options.name.slice(0, 200),
    location: options.location,
    signingTime: options.signingTime,
    subFilter: SUBFILTER_ETSI_CADES_DETACHED,
    signatureLength: 16_384,
    appName: "ClinSign",
  });
  return Buffer.from(await doc.save({ useObjectStreams: false }));
}

export interface PrepareSealInput extends StampInput {
  /** The audit page's facts but the hash after stamping, which is computed here. */
  facts: Omit<AuditPageFacts, "stampedSha256">;
  placeholder: SealPlaceholderOptions;
}

export interface PreparedSeal {
  stamped: Uint8Array;
  stampedSha256: string;
  /** The stamped document with its audit page and an empty signature placeholder. */
  prepared: Uint8Array;
}

/** Stamp, audit page, placeholder: everything of sealing but the signature itself. */
export async function prepareSeal(input: PrepareSealInput): Promise<PreparedSeal> {
  const stamped = await stampSignature(input);
  const stampedSha256 = createHash("sha256").update(stamped).digest("hex");
  const withAuditPage = await appendAuditPage(stamped, { ...input.facts, stampedSha256 });
  return { stamped, stampedSha256, prepared: await addSealPlaceholder(withAuditPage, input.placeholder) };
}
