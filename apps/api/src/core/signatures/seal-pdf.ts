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
import {
  ParseSpeeds,
  PDFContentStream,
  PDFDocument,
  PDFName,
  PDFRawStream,
  StandardFonts,
  type PDFFont,
  type PDFPage,
} from "pdf-lib";
import { pdflibAddPlaceholder } from "@signpdf/placeholder-pdf-lib";
import { SUBFILTER_ETSI_CADES_DETACHED } from "@signpdf/utils";
import type { SignatureFieldRect } from "@clinsign/db";

/** Standard fonts speak WinAnsi: anything else (emoji, CJK, controls) becomes "?". */
export function printable(text: string): string {
  return text.normalize("NFC").replace(/[^\x20-\x7E\xA0-\xFF]/g, "?");
}

/**
 * Widths of single characters at size 1, per font of one document. The glyphs are shown without
 * kerning (Tj), so a line is as wide as the sum of its characters' widths.
 */
const charWidths = new WeakMap<PDFFont, Map<string, number>>();

function charWidth(font: PDFFont, char: string): number {
  let widths = charWidths.get(font);
  if (!widths) charWidths.set(font, (widths = new Map()));
  let width = widths.get(char);
  if (width === undefined) widths.set(char, (width = font.widthOfTextAtSize(char, 1)));
  return width;
}

/**
 * Breaks text into lines no wider than maxWidth, preferring the last space in the second half of a
 * line. The line's width grows character by character: measuring the whole line again for every
 * character (quadratic) was more than half of the audit page's time.
 */
export function wrap(text: string, font: PDFFont, size: number, maxWidth: number): string[] {
  const lines: string[] = [];
  let line = "";
  let lineWidth = 0;
  for (const char of printable(text)) {
    const advance = charWidth(font, char) * size;
    if (line && lineWidth + advance > maxWidth) {
      const cut = line.lastIndexOf(" ");
      if (cut > line.length / 2) {
        lines.push(line.slice(0, cut));
        line = line.slice(cut + 1) + char;
      } else {
        lines.push(line);
        line = char;
      }
      lineWidth = 0;
      for (const c of line) lineWidth += charWidth(font, c) * size;
    } else {
      line += char;
      lineWidth += advance;
    }
  }
  if (line) lines.push(line);
  return lines.length ? lines : [""];
}

/** The field rectangle in PDF user space (bottom-left origin, MediaBox offset included). */
function fieldBox(page: PDFPage, rect: SignatureFieldRect) {
  const box = page.getMediaBox();
  return { x: box.x + rect.x, y: box.y + box.height - rect.y - rect.height, width: rect.width, height: rect.height };
}

/** Red, green, blue from 0 to 1. */
type Rgb = readonly [number, number, number];
/** The typed name's colour: dark blue, like ink. */
const INK: Rgb = [0.05, 0.1, 0.35];

/** A number as content streams take it: no exponent, at most three decimals. */
const pdfNumber = (value: number) => String(Math.round(value * 1000) / 1000);

/**
 * Single lines of text on one page, written directly as content-stream operators and added as one
 * stream. PDFPage.drawText builds an object per operator and operand, and adds a new entry to the
 * page's font resources on every call (about 50 for the audit page): together most of the audit
 * page's time. Here each font gets one resource entry per page, and each line is one string.
 */
class PageText {
  private readonly operators: string[] = ["q"];
  private readonly fontKeys = new Map<PDFFont, string>();

  constructor(private readonly page: PDFPage) {}

  /**
   * The text must be printable() already: a standard font's WinAnsi encoding is Latin-1 for those
   * characters, so each character's code is its byte.
   */
  write(text: string, options: { x: number; y: number; size: number; font: PDFFont; color?: Rgb }): void {
    let key = this.fontKeys.get(options.font);
    if (!key) {
      key = this.page.node.newFontDictionary(options.font.name, options.font.ref).toString();
      this.fontKeys.set(options.font, key);
    }
    const [red, green, blue] = options.color ?? [0, 0, 0];
    const hex = Buffer.from(text, "latin1").toString("hex");
    this.operators.push(
      `BT ${key} ${pdfNumber(options.size)} Tf ${pdfNumber(red)} ${pdfNumber(green)} ${pdfNumber(blue)} rg ${pdfNumber(options.x)} ${pdfNumber(options.y)} Td <${hex}> Tj ET`,
    );
  }

  /** Adds what was written to the page, as one deflated content stream after its others. */
  finish(doc: PDFDocument): void {
    this.operators.push("Q");
    const contents = deflateSync(Buffer.from(this.operators.join("\n"), "latin1"));
    this.page.node.addContentStream(doc.context.register(doc.context.stream(contents, { Filter: "FlateDecode" })));
  }
}

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
  fields: SignatureFieldRect[];
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

/** Draws each signature into its fields. */
async function drawSignatures(doc: PDFDocument, input: StampInput): Promise<void> {
  for (const stamp of input.stamps ?? [input]) await drawSignature(doc, stamp);
}

/** Draws the signature (image, or the typed name) into every field, scaled to fit and centred. */
async function drawSignature(doc: PDFDocument, input: SignatureStamp): Promise<void> {
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
  const font = await doc.embedFont(StandardFonts.TimesRomanItalic);
  const name = printable(input.typedName ?? "");
  const nameWidth = font.widthOfTextAtSize(name, 1);
  const texts = new Map<PDFPage, PageText>();
  for (const rect of input.fields) {
    const page = doc.getPage(rect.page - 1);
    const box = fieldBox(page, rect);
    const size = Math.max(4, Math.min(box.height * 0.7, (box.width * 0.95) / Math.max(nameWidth, 1)));
    const text = texts.get(page) ?? texts.set(page, new PageText(page)).get(page)!;
    text.write(name, {
      x: box.x + (box.width - nameWidth * size) / 2,
      y: box.y + (box.height - size * 0.7) / 2,
      size,
      font,
      color: INK,
    });
  }
  for (const text of texts.values()) text.finish(doc);
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
  /** What trusted time the seal carries (the time stamp is made after this page is drawn). */
  trustedTime: string;
  /** Several signers: every signer, in signing order (replaces the one signer's time and address). */
  signers?: AuditPageSigner[];
}

/** One signer on the audit page. */
export interface AuditPageSigner {
  role: string;
  /** The name where known (a link signer's as staff entered it, a staff user's, a typed name). */
  name: string | null;
  status: string;
  method: string | null;
  signedAt: Date | null;
  ip: string | null;
  userAgent: string | null;
}

/** Appends the audit page (who, when, from where, hashes before and after stamping); returns it. */
async function drawAuditPage(doc: PDFDocument, facts: AuditPageFacts): Promise<PDFPage> {
  const page = doc.addPage([595.28, 841.89]);
  const regular = await doc.embedFont(StandardFonts.Helvetica);
  const bold = await doc.embedFont(StandardFonts.HelveticaBold);
  const mono = await doc.embedFont(StandardFonts.Courier);
  let text = new PageText(page);
  /** Several signers can fill more than a page: continue on another one (the seal's widget stays on the first). */
  const room = (needed: number) => {
    if (y - needed >= 48) return;
    text.finish(doc);
    text = new PageText(doc.addPage([595.28, 841.89]));
    y = 780;
  };
  const left = 56;
  const width = 595.28 - 2 * left;
  let y = 780;
  text.write("Signature audit trail", { x: left, y, size: 18, font: bold });
  y -= 28;
  const signerRows: [string, string, PDFFont?][] = facts.signers
    ? facts.signers.map((signer, i) => [
        `Signer ${i + 1}: ${signer.role}`,
        signer.signedAt
          ? `${signer.name ?? "-"}; ${signer.method === "typed" ? "typed name" : "handwritten signature"}; signed ${signer.signedAt.toISOString()} (UTC); IP ${signer.ip ?? "-"}; ${signer.userAgent ?? "-"}`
          : `${signer.name ?? "-"}; ${signer.status} (not signed)`,
      ])
    : [
        ["Signer", facts.signer],
        ["Signed (UTC)", facts.signedAt.toISOString()],
        ["IP address", facts.ip ?? "-"],
        ["User agent", facts.userAgent ?? "-"],
      ];
  const rows: [string, string, PDFFont?][] = [
    ["Document", `${facts.title} (version ${facts.version})`],
    ["Document id", facts.documentId],
    ["Signature id", facts.signatureId],
    ...signerRows.slice(0, facts.signers ? 0 : 1),
    ["Patient id", facts.patientId],
    ["Institution", facts.institutionId],
    ["Ordered by", facts.orderBy],
    ["Requested (UTC)", facts.createdAt.toISOString()],
    ["Opened (UTC)", facts.openedAt?.toISOString() ?? "-"],
    ...signerRows.slice(facts.signers ? 0 : 1),
    ["SHA-256 of the original", facts.originalSha256, mono],
    ["SHA-256 after stamping", facts.stampedSha256, mono],
    ["Sealed with", facts.certificate + (facts.development ? " (development certificate, not trusted)" : "")],
    ["Trusted time", facts.trustedTime],
  ];
  for (const [label, value, font] of rows) {
    const valueFont = font ?? regular;
    const size = font ? 8.5 : 10;
    const lines = wrap(value, valueFont, size, width);
    room(13 + lines.length * (size + 4));
    text.write(printable(label), { x: left, y, size: 9, font: bold, color: [0.3, 0.3, 0.3] });
    y -= 13;
    for (const line of lines) {
      text.write(line, { x: left, y, size, font: valueFont });
      y -= size + 4;
    }
    y -= 6;
  }
  y -= 6;
  room(40);
  for (const line of wrap(
    "This page was added by the service after the signature was stamped into the document. The whole file, this page included, is sealed with a PAdES digital signature; any later change breaks the seal.",
    regular,
    8.5,
    width,
  )) {
    text.write(line, { x: left, y, size: 8.5, font: regular, color: [0.35, 0.35, 0.35] });
    y -= 12;
  }
  text.finish(doc);
  return page;
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
