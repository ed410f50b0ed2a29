/**
 * What sealing does to the bytes of a document with pdf-lib: stamp the signature into its fields,
 * append the audit page, add the signature placeholder. Runs only inside the PDF worker
 * (core/pdf-worker), under its memory and time limits: the document came from a customer's URL.
 * No database or service imports here, so the worker stays small.
 *
 * The document is parsed once: the stamped version is saved from the loaded document, and the audit
 * page and the placeholder are added to that same document and saved again (docs/performance.md,
 * "Completion pipeline", for what each step costs).
 */
import { createHash } from "node:crypto";
import { deflateSync } from "node:zlib";
import { ParseSpeeds, PDFContentStream, PDFDocument, PDFName, PDFRawStream, type PDFPage } from "pdf-lib";
import { pdflibAddPlaceholder } from "@signpdf/placeholder-pdf-lib";
import { SUBFILTER_ETSI_CADES_DETACHED } from "@signpdf/utils";
import { PageText, type Rgb } from "../pdf-worker/page-text";
import { PdfFonts } from "../pdf-worker/pdf-text";
import { drawAuditPage, type AuditPageFacts } from "./audit-page";

/** Where a signature goes: PDF points from the page's top-left corner, page counted from 1 (a stored field fits). */
export interface FieldRect {
  page: number;
  x: number;
  y: number;
  width: number;
  height: number;
}

/**
 * Strings in the signature dictionary (reason, location) are PDF text strings that signpdf writes
 * as Latin-1: anything else becomes "?". Drawn text goes through pdf-text.ts instead.
 */
export function printable(text: string): string {
  return text.normalize("NFC").replace(/[^\x20-\x7E\xA0-\xFF]/g, "?");
}

/** The field rectangle in PDF user space (bottom-left origin, MediaBox offset included). */
function fieldBox(page: PDFPage, rect: FieldRect) {
  const box = page.getMediaBox();
  return { x: box.x + rect.x, y: box.y + box.height - rect.y - rect.height, width: rect.width, height: rect.height };
}

/** The typed name's colour: dark blue, like ink. */
const INK: Rgb = [0.05, 0.1, 0.35];

/**
 * Parsed in one go: pdf-lib's default pauses for a timer tick every 100 objects, which only helps a
 * thread that has other work; the worker has none and its deadline is enforced from outside.
 */
function loadForSealing(bytes: Uint8Array): Promise<PDFDocument> {
  return PDFDocument.load(bytes, { updateMetadata: false, parseSpeed: ParseSpeeds.Fastest });
}

/** Streams shorter than this stay uncompressed: deflate would not make them smaller. */
const MIN_DEFLATE_BYTES = 64;

/**
 * pdf-lib deflates the content streams it creates (drawing the signature image, the signature
 * widget's appearance, the q/Q around a page's original content) with pako, in JavaScript, allocating a fresh deflate state per
 * stream: about a sixth of the whole pipeline for a handful of small streams. This swaps each of
 * them for a raw stream deflated by Node's zlib. Call it right before saving, once nothing more
 * is drawn on those streams (a page keeps drawing into the object it created, not the swapped one).
 */
function deflateContentStreams(doc: PDFDocument): void {
  for (const [ref, object] of doc.context.enumerateIndirectObjects()) {
    if (!(object instanceof PDFContentStream)) continue;
    const contents = object.getUnencodedContents();
    // The stream's dictionary already says /Filter /FlateDecode; its /Length is set when written.
    const small = contents.length < MIN_DEFLATE_BYTES;
    if (small) object.dict.delete(PDFName.of("Filter"));
    doc.context.assign(ref, PDFRawStream.of(object.dict, small ? contents : deflateSync(contents)));
  }
}

/**
 * One full save without object streams: the signature's byte range must be found in plain text,
 * and no timer ticks between objects (see loadForSealing).
 */
async function saveForSealing(doc: PDFDocument): Promise<Uint8Array> {
  deflateContentStreams(doc);
  return doc.save({ useObjectStreams: false, objectsPerTick: Infinity, updateFieldAppearances: false });
}

/** One signature and the fields it goes into. */
export interface SignatureStamp {
  fields: FieldRect[];
  png: Uint8Array | null;
  typedName: string | null;
}

export interface StampInput extends SignatureStamp {
  original: Uint8Array;
  /**
   * Several signers (issue 20): each signer's signature with that signer's fields; when set, it
   * replaces `fields`/`png`/`typedName` (a one-patient request stamps those into every field).
   */
  stamps?: SignatureStamp[];
}

/** Draws each signature into its fields; typed names in any script share one set of fonts. */
async function drawSignatures(doc: PDFDocument, input: StampInput): Promise<void> {
  const stamps = input.stamps ?? [input];
  const typed = stamps.filter((stamp) => !stamp.png).map((stamp) => stamp.typedName ?? "");
  const fonts = typed.length ? await PdfFonts.embed(doc, [{ role: "italic", texts: typed }]) : null;
  for (const stamp of stamps) await drawSignature(doc, stamp, fonts);
}

/** Draws the signature (image, or the typed name) into every field, scaled to fit and centred. */
async function drawSignature(doc: PDFDocument, input: SignatureStamp, fonts: PdfFonts | null): Promise<void> {
  if (input.png) {
    const image = await doc.embedPng(input.png);
    for (const rect of input.fields) {
      const page = doc.getPage(rect.page - 1);
      const box = fieldBox(page, rect);
      const scale = Math.min(box.width / image.width, box.height / image.height);
      const width = image.width * scale;
      const height = image.height * scale;
      page.drawImage(image, {
        x: box.x + (box.width - width) / 2,
        y: box.y + (box.height - height) / 2,
        width,
        height,
      });
    }
    return;
  }
  if (!fonts) return;
  const name = fonts.shape(input.typedName ?? "", "italic", "auto");
  const texts = new Map<PDFPage, PageText>();
  for (const rect of input.fields) {
    const page = doc.getPage(rect.page - 1);
    const box = fieldBox(page, rect);
    const size = Math.max(4, Math.min(box.height * 0.7, (box.width * 0.95) / Math.max(name.width, 1)));
    const text = texts.get(page) ?? texts.set(page, new PageText(page)).get(page)!;
    text.write(name, {
      x: box.x + (box.width - name.width * size) / 2,
      y: box.y + (box.height - size * 0.7) / 2,
      size,
      color: INK,
    });
  }
  for (const text of texts.values()) text.finish(doc);
}

export interface SealPlaceholderOptions {
  reason: string;
  location: string;
  contactInfo: string;
  signingTime: Date;
  /** The signer's name in the signature dictionary (the certificate's subject). */
  name: string;
}

/**
 * Room for an invisible PAdES (ETSI.CAdES.detached) signature over the whole document. Its widget
 * sits on the audit page, so the customer's pages are not touched by the seal.
 */
function addSealPlaceholder(doc: PDFDocument, page: PDFPage, options: SealPlaceholderOptions): void {
  pdflibAddPlaceholder({
    pdfDoc: doc,
    pdfPage: page,
    reason: options.reason,
    contactInfo: options.contactInfo,
    name: options.name.slice(0, 200),
    location: options.location,
    signingTime: options.signingTime,
    subFilter: SUBFILTER_ETSI_CADES_DETACHED,
    signatureLength: 16_384,
    appName: "ClinSign",
  });
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

/**
 * Stamp, audit page, placeholder: everything of sealing but the signature itself. One parse, two
 * saves: the stamped file (its SHA-256 goes onto the audit page), then the same document with the
 * audit page and the placeholder.
 */
export async function prepareSeal(input: PrepareSealInput): Promise<PreparedSeal> {
  const doc = await loadForSealing(input.original);
  await drawSignatures(doc, input);
  const stamped = await saveForSealing(doc);
  const stampedSha256 = createHash("sha256").update(stamped).digest("hex");
  const auditPage = await drawAuditPage(doc, { ...input.facts, stampedSha256 });
  addSealPlaceholder(doc, auditPage, input.placeholder);
  return { stamped, stampedSha256, prepared: await saveForSealing(doc) };
}
