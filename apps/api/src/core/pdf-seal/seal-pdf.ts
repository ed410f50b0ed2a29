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
import { languageEndonyms, type PatientLanguage } from "@clinsign/contracts/language-list";
import type { SigningOrder } from "@clinsign/contracts";
import { PageText, PdfFonts, type FontRole, type Rgb, type TextDirection } from "../pdf-worker/pdf-text";
import { auditPageTexts, fill, rightToLeft, roleName, statusName, type AuditPageTexts } from "./audit-page-texts";

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

export interface AuditPageFacts {
  title: string;
  signatureId: string;
  documentId: string;
  version: number;
  /** The document version's language (issue 19), named on the page when set. */
  documentLanguage?: PatientLanguage | null;
  /** Who signed: the one patient (typed name or drawn), or several signers (rows in `signers`). */
  signature:
    { kind: "typed"; name: string } | { kind: "drawn" } | { kind: "several"; count: number; order: SigningOrder };
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
  /** The time stamp authority's host (the time stamp is made after this page is drawn); null: none. */
  tsaHost: string | null;
  /** The page's language: the one the patient signed in (audit-page-texts.ts). */
  language: PatientLanguage;
  /** The organization's language, beside each label when it differs. */
  clinicLanguage: PatientLanguage;
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

const A4: [number, number] = [595.28, 841.89];
const GREY: Rgb = [0.3, 0.3, 0.3];
const LIGHT: Rgb = [0.45, 0.45, 0.45];

/**
 * Appends the audit page (who, when, from where, hashes before and after stamping); returns it.
 * Written in the signer's language (right to left for Arabic) with the clinic's language beside
 * each label; names and values in any script (pdf-text.ts).
 */
async function drawAuditPage(doc: PDFDocument, facts: AuditPageFacts): Promise<PDFPage> {
  const t = auditPageTexts[facts.language];
  const clinic = facts.clinicLanguage === facts.language ? null : auditPageTexts[facts.clinicLanguage];
  const direction: TextDirection = rightToLeft(facts.language) ? "rtl" : "ltr";
  const clinicDirection: TextDirection = rightToLeft(facts.clinicLanguage) ? "rtl" : "ltr";
  const page = doc.addPage(A4);
  let text = new PageText(page);
  let y = 780;
  /** Several signers can fill more than a page: continue on another one (the seal's widget stays on the first). */
  const room = (needed: number) => {
    if (y - needed >= 48) return;
    text.finish(doc);
    text = new PageText(doc.addPage(A4));
    y = 780;
  };
  const left = 56;
  const width = A4[0] - 2 * left;
  const iso = (date: Date | null) => date?.toISOString() ?? "-";
  /** A label in the page's language, and in the clinic's beside it. */
  type Label = (texts: AuditPageTexts) => string;
  const signature = facts.signature;
  const signerRows: [Label, string, FontRole?][] = facts.signers
    ? facts.signers.map((signer, i) => [
        (texts) => fill(texts.signerN, { n: i + 1, role: roleName(texts, signer.role) }),
        signer.signedAt
          ? `${signer.name ?? "-"}; ${signer.method === "typed" ? t.typedName : t.handwritten}; ${fill(t.signedAtIp, { time: iso(signer.signedAt), ip: signer.ip ?? "-" })}; ${signer.userAgent ?? "-"}`
          : `${signer.name ?? "-"}; ${fill(t.notSigned, { status: statusName(t, signer.status) })}`,
      ])
    : [
        [
          (texts) => texts.signer,
          signature.kind === "typed"
            ? fill(t.typedSigner, { name: signature.name })
            : fill(t.drawnSigner, { id: facts.patientId }),
        ],
        [(texts) => texts.signed, iso(facts.signedAt)],
        [(texts) => texts.ipAddress, facts.ip ?? "-"],
        [(texts) => texts.userAgent, facts.userAgent ?? "-"],
      ];
  const several: [Label, string][] =
    signature.kind === "several"
      ? [[(texts) => texts.signer, fill(t.severalSigners, { n: signature.count, order: t.order[signature.order] })]]
      : [];
  const rows: [Label, string, FontRole?][] = [
    [(texts) => texts.document, fill(t.titleVersion, { title: facts.title, version: facts.version })],
    [(texts) => texts.documentId, facts.documentId],
    ...(facts.documentLanguage
      ? [
          [
            (texts: AuditPageTexts) => texts.documentLanguage,
            `${languageEndonyms[facts.documentLanguage]} (${facts.documentLanguage})`,
          ] as [Label, string],
        ]
      : []),
    [(texts) => texts.signatureId, facts.signatureId],
    ...several,
    ...signerRows.slice(0, facts.signers ? 0 : 1),
    [(texts) => texts.patientId, facts.patientId],
    [(texts) => texts.institution, facts.institutionId],
    [(texts) => texts.orderedBy, facts.orderBy],
    [(texts) => texts.requested, iso(facts.createdAt)],
    [(texts) => texts.opened, iso(facts.openedAt)],
    ...signerRows.slice(facts.signers ? 0 : 1),
    [(texts) => texts.shaOriginal, facts.originalSha256, "mono"],
    [(texts) => texts.shaStamped, facts.stampedSha256, "mono"],
    [(texts) => texts.sealedWith, facts.certificate + (facts.development ? t.development : "")],
    [(texts) => texts.trustedTime, facts.tsaHost ? fill(t.tsa, { host: facts.tsaHost }) : t.noTsa],
  ];
  const labels = rows.map(([label]) => [label(t), clinic ? label(clinic) : null] as const);
  const fonts = await PdfFonts.embed(doc, [
    { role: "bold", texts: [t.title, clinic?.title ?? "", ...labels.flat().filter((label) => label !== null)] },
    {
      role: "regular",
      texts: [t.closing, clinic?.closing ?? "", ...rows.filter(([, , role]) => !role).map(([, value]) => value)],
    },
    { role: "mono", texts: rows.filter(([, , role]) => role === "mono").map(([, value]) => value) },
  ]);
  /** One line at the start of the page's direction; returns its width. */
  const line = (value: string, role: FontRole, size: number, color?: Rgb, dir = direction, indent = 0) => {
    const shaped = fonts.shape(value, role, dir);
    const lineWidth = shaped.width * size;
    const x = direction === "rtl" ? left + width - indent - lineWidth : left + indent;
    text.write(shaped, { x, y, size, ...(color && { color }) });
    return lineWidth;
  };
  /** A label, and the clinic's word for it after it (lighter, smaller). */
  const label = (own: string, clinicLabel: string | null, size: number, color?: Rgb) => {
    const ownWidth = line(own, "bold", size, color);
    if (clinicLabel) line(clinicLabel, "bold", size * 0.8, LIGHT, clinicDirection, ownWidth + size);
  };
  label(t.title, clinic?.title ?? null, 18);
  y -= 28;
  rows.forEach(([, value, font], i) => {
    const role = font ?? "regular";
    const size = font ? 8.5 : 10;
    const lines = fonts.wrap(value, role, size, width);
    room(13 + lines.length * (size + 4));
    const [own, clinicLabel] = labels[i]!;
    label(own, clinicLabel, 9, GREY);
    y -= 13;
    for (const valueLine of lines) {
      line(valueLine, role, size);
      y -= size + 4;
    }
    y -= 6;
  });
  for (const [closing, dir] of [
    [t.closing, direction],
    ...(clinic ? [[clinic.closing, clinicDirection] as const] : []),
  ] as const) {
    y -= 6;
    const lines = fonts.wrap(closing, "regular", 8.5, width);
    room(lines.length * 12 + 4);
    for (const closingLine of lines) {
      line(closingLine, "regular", 8.5, [0.35, 0.35, 0.35], dir);
      y -= 12;
    }
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
