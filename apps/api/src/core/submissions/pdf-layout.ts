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
import { PDFDocument, rgb, type PDFImage, type PDFPage } from "pdf-lib";
import { PageText, type Rgb } from "../pdf-worker/page-text";
import { cleanText, PdfFonts, type FontRole } from "../pdf-worker/pdf-text";

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

/** Writes top to bottom, starting a new page when the next block does not fit. */
class Writer {
  page: PDFPage;
  y = A4[1] - MARGIN;
  /** The text of each page, added to it when the document is done (`finish`). */
  readonly texts = new Map<PDFPage, PageText>();
  constructor(
    readonly doc: PDFDocument,
    readonly fonts: PdfFonts,
  ) {
    this.page = this.addPage();
  }
  private addPage(): PDFPage {
    const page = this.doc.addPage(A4);
    this.texts.set(page, new PageText(page));
    return page;
  }
  room(height: number) {
    if (this.y - height < MARGIN + FOOTER_SPACE) {
      this.page = this.addPage();
      this.y = A4[1] - MARGIN;
    }
  }
  /** Text in any script, each paragraph in its own direction (an Arabic answer reads right to left). */
  text(text: string, role: FontRole, size: number, color: Rgb = [0, 0, 0]) {
    for (const line of this.fonts.wrap(text, role, size, WIDTH)) {
      this.room(size + 4);
      this.texts
        .get(this.page)!
        .write(this.fonts.shape(line, role, "auto"), { x: MARGIN, y: this.y - size, size, color });
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
  // Metadata strings: PDF text strings, which pdf-lib writes in any script.
  doc.setTitle(cleanText(content.documentTitle));
  doc.setAuthor(cleanText(content.organizationName));
  doc.setCreator("ClinSign");
  doc.setCreationDate(content.createdAt);
  const fonts = await PdfFonts.embed(doc, [
    { role: "bold", texts: [content.organizationName, content.title, ...content.answers.map((a) => a.label)] },
    { role: "regular", texts: [...content.facts, content.pageFooter, ...content.answers.flatMap((a) => a.texts)] },
    { role: "mono", texts: [content.sha256] },
  ]);
  const grey: Rgb = [0.35, 0.35, 0.35];
  const w = new Writer(doc, fonts);

  w.text(content.organizationName, "bold", 11, grey);
  w.gap(6);
  w.text(content.title, "bold", 18);
  w.gap(4);
  for (const fact of content.facts) w.text(fact, "regular", 10, grey);
  w.gap(14);

  for (const answer of content.answers) {
    w.room(32);
    w.text(answer.label, "bold", 10, grey);
    const image = answer.image ? await embedImage(doc, answer.image) : null;
    if (image) w.image(image, 240, 100);
    else for (const text of answer.texts) w.text(text, "regular", 11);
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
    const text = w.texts.get(page)!;
    const firstLine = fonts.wrap(footer, "regular", 8, WIDTH)[0]!;
    text.write(fonts.shape(firstLine, "regular", "auto"), { x: MARGIN, y: MARGIN + 10, size: 8, color: grey });
    text.write(fonts.shape(`SHA-256 ${content.sha256}`, "mono"), { x: MARGIN, y: MARGIN, size: 7, color: grey });
    text.finish(doc);
  });
  return doc.save();
}
