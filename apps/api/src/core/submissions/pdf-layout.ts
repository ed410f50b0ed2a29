/**
 * The layout of a submission PDF: text and images in, PDF bytes out. It decodes the patient's
 * signature image, so it runs only in the PDF worker (core/pdf-worker, task
 * `renderSubmissionPdf`), never on the request thread; pdf.ts gathers and words what it shows.
 */
import {
  fitsPixelBudget,
  readImageSize,
  SIGNATURE_IMAGE_LIMITS,
  type ImageFormat,
} from "@clinsign/contracts/image-header";
import { PDFDocument, rgb, StandardFonts, type PDFFont, type PDFImage, type PDFPage } from "pdf-lib";

/** Everything the PDF shows, already in the organization's language and time zone. */
export interface SubmissionPdfContent {
  /** The document's title in its metadata. */
  documentTitle: string;
  createdAt: Date;
  organizationName: string;
  title: string;
  /** Grey lines under the title: when, reference, form version. */
  facts: string[];
  answers: SubmissionPdfAnswer[];
  /** The first footer line of each page; `{page}` and `{pages}` are filled in. */
  pageFooter: string;
  sha256: string;
}

export interface SubmissionPdfAnswer {
  label: string;
  /** One paragraph each; for an image, what is shown when it cannot be drawn. */
  texts: string[];
  image?: { format: ImageFormat; bytes: Uint8Array };
}

const A4: [number, number] = [595.28, 841.89];
const MARGIN = 56;
const FOOTER_SPACE = 48;
const WIDTH = A4[0] - 2 * MARGIN;

/** Standard fonts speak WinAnsi: anything else (emoji, CJK, controls) becomes "?". */
const printable = (text: string) => text.normalize("NFC").replace(/[^\x20-\x7E\xA0-\xFF]/g, "?");

function wrap(text: string, font: PDFFont, size: number): string[] {
  const lines: string[] = [];
  for (const paragraph of text.split(/\r\n?|\n/)) {
    let line = "";
    for (const word of printable(paragraph).split(" ")) {
      const candidate = line ? `${line} ${word}` : word;
      if (font.widthOfTextAtSize(candidate, size) <= WIDTH) {
        line = candidate;
        continue;
      }
      if (line) lines.push(line);
      // A word wider than the page (an id, a URL) is cut where it reaches the margin.
      let rest = word;
      while (font.widthOfTextAtSize(rest, size) > WIDTH) {
        let cut = rest.length - 1;
        while (cut > 1 && font.widthOfTextAtSize(rest.slice(0, cut), size) > WIDTH) cut--;
        lines.push(rest.slice(0, cut));
        rest = rest.slice(cut);
      }
      line = rest;
    }
    lines.push(line);
  }
  return lines;
}

/** Writes top to bottom, starting a new page when the next block does not fit. */
class Writer {
  page: PDFPage;
  y = A4[1] - MARGIN;
  constructor(readonly doc: PDFDocument) {
    this.page = doc.addPage(A4);
  }
  room(height: number) {
    if (this.y - height < MARGIN + FOOTER_SPACE) {
      this.page = this.doc.addPage(A4);
      this.y = A4[1] - MARGIN;
    }
  }
  text(text: string, font: PDFFont, size: number, color = rgb(0, 0, 0)) {
    for (const line of wrap(text, font, size)) {
      this.room(size + 4);
      this.page.drawText(line, { x: MARGIN, y: this.y - size, size, font, color });
      this.y -= size + 4;
    }
  }
  image(image: PDFImage, maxWidth: number, maxHeight: number) {
    const scale = Math.min(maxWidth / image.width, maxHeight / image.height, 1);
    const width = image.width * scale;
    const height = image.height * scale;
    this.room(height + 4);
    this.page.drawRectangle({
      x: MARGIN,
      y: this.y - height - 4,
      width: width + 8,
      height: height + 8,
      borderColor: rgb(0.8, 0.8, 0.8),
      borderWidth: 0.5,
    });
    this.page.drawImage(image, { x: MARGIN + 4, y: this.y - height, width, height });
    this.y -= height + 12;
  }
  gap(points: number) {
    this.y -= points;
  }
}

/**
 * The image, or null when it is not one we draw: its header is measured before anything decodes
 * it (submissions stored before the budget was checked at submit may hold any size).
 */
async function embedImage(
  doc: PDFDocument,
  image: NonNullable<SubmissionPdfAnswer["image"]>,
): Promise<PDFImage | null> {
  const size = readImageSize(image.bytes);
  if (!size || size.format !== image.format || !fitsPixelBudget(size, SIGNATURE_IMAGE_LIMITS)) return null;
  try {
    return image.format === "png" ? await doc.embedPng(image.bytes) : await doc.embedJpg(image.bytes);
  } catch {
    return null;
  }
}

/**
 * One submission as a PDF a clinic files in the patient record: the clinic's name, the form's
 * title and facts, each field label with its value, the signature image, and on every page a
 * footer with the submission id and the SHA-256 of its canonical JSON.
 */
export async function layoutSubmissionPdf(content: SubmissionPdfContent): Promise<Uint8Array> {
  const doc = await PDFDocument.create();
  doc.setTitle(printable(content.documentTitle));
  doc.setAuthor(printable(content.organizationName));
  doc.setCreator("ClinSign");
  doc.setCreationDate(content.createdAt);
  const regular = await doc.embedFont(StandardFonts.Helvetica);
  const bold = await doc.embedFont(StandardFonts.HelveticaBold);
  const mono = await doc.embedFont(StandardFonts.Courier);
  const grey = rgb(0.35, 0.35, 0.35);
  const w = new Writer(doc);

  w.text(content.organizationName, bold, 11, grey);
  w.gap(6);
  w.text(content.title, bold, 18);
  w.gap(4);
  for (const fact of content.facts) w.text(fact, regular, 10, grey);
  w.gap(14);

  for (const answer of content.answers) {
    w.room(32);
    w.text(answer.label, bold, 10, grey);
    const image = answer.image ? await embedImage(doc, answer.image) : null;
    if (image) w.image(image, 240, 100);
    else for (const text of answer.texts) w.text(text, regular, 11);
    w.gap(8);
  }

  const pages = doc.getPages();
  pages.forEach((page, index) => {
    const footer = content.pageFooter.replace("{page}", String(index + 1)).replace("{pages}", String(pages.length));
    page.drawLine({
      start: { x: MARGIN, y: MARGIN + 22 },
      end: { x: A4[0] - MARGIN, y: MARGIN + 22 },
      thickness: 0.5,
      color: rgb(0.8, 0.8, 0.8),
    });
    page.drawText(wrap(footer, regular, 8)[0]!, { x: MARGIN, y: MARGIN + 10, size: 8, font: regular, color: grey });
    page.drawText(`SHA-256 ${content.sha256}`, { x: MARGIN, y: MARGIN, size: 7, font: mono, color: grey });
  });
  return doc.save();
}
