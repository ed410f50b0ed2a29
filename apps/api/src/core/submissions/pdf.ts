import { PDFDocument, rgb, StandardFonts, type PDFFont, type PDFImage, type PDFPage } from "pdf-lib";
import type { OrgContext } from "../context";
import { sha256Hex } from "../crypto";
import { describeAnswers } from "./answers";
import { canonicalSubmission, findSubmission } from "./staff";

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
    this.page.drawRectangle({ x: MARGIN, y: this.y - height - 4, width: width + 8, height: height + 8, borderColor: rgb(0.8, 0.8, 0.8), borderWidth: 0.5 });
    this.page.drawImage(image, { x: MARGIN + 4, y: this.y - height, width, height });
    this.y -= height + 12;
  }
  gap(points: number) {
    this.y -= points;
  }
}

async function embedSignature(doc: PDFDocument, dataUrl: unknown): Promise<PDFImage | null> {
  if (typeof dataUrl !== "string") return null;
  const match = /^data:image\/(png|jpeg);base64,(.+)$/.exec(dataUrl);
  if (!match) return null;
  const bytes = Buffer.from(match[2]!, "base64");
  try {
    return match[1] === "png" ? await doc.embedPng(bytes) : await doc.embedJpg(bytes);
  } catch {
    return null;
  }
}

/**
 * One submission as a PDF a clinic files in the patient record: the form's title and reference,
 * each field label with its value (in the template version submitted), attachments listed by
 * name, the signature image, and on every page a footer with the submission id and the SHA-256
 * of its canonical JSON (the same hash the detail view shows).
 */
export async function renderSubmissionPdf(ctx: OrgContext, input: { id: string }): Promise<Uint8Array> {
  const row = await findSubmission(ctx, input.id);
  const answers = describeAnswers(ctx.services, ctx.scope.organizationId, row.templateSchema, row.values);
  const sha256 = sha256Hex(canonicalSubmission(row));

  const doc = await PDFDocument.create();
  doc.setTitle(`${row.templateTitle} - ${row.id}`);
  doc.setCreator("ClinSign");
  doc.setCreationDate(row.createdAt);
  const regular = await doc.embedFont(StandardFonts.Helvetica);
  const bold = await doc.embedFont(StandardFonts.HelveticaBold);
  const mono = await doc.embedFont(StandardFonts.Courier);
  const grey = rgb(0.35, 0.35, 0.35);
  const w = new Writer(doc);

  w.text(row.templateTitle, bold, 18);
  w.gap(4);
  w.text(`Submitted (UTC): ${row.createdAt.toISOString()}`, regular, 10, grey);
  if (row.rnummer) w.text(`Reference (rnummer): ${row.rnummer}`, regular, 10, grey);
  w.text(`Form: ${row.templateIdentifier}, version ${row.templateSchema.version}`, regular, 10, grey);
  w.gap(14);

  for (const answer of answers) {
    w.room(32);
    w.text(answer.label, bold, 10, grey);
    if (answer.type === "signature") {
      const image = await embedSignature(doc, answer.value);
      if (image) w.image(image, 240, 100);
      else w.text(answer.text || "-", regular, 11);
    } else if (answer.files) {
      if (answer.files.length === 0) w.text("-", regular, 11);
      for (const file of answer.files) w.text(`Attachment: ${file.name} (${file.type}, ${Math.max(1, Math.round(file.size / 1024))} KB)`, regular, 11);
    } else {
      w.text(answer.text || "-", regular, 11);
    }
    w.gap(8);
  }

  const pages = doc.getPages();
  pages.forEach((page, index) => {
    page.drawLine({ start: { x: MARGIN, y: MARGIN + 22 }, end: { x: A4[0] - MARGIN, y: MARGIN + 22 }, thickness: 0.5, color: rgb(0.8, 0.8, 0.8) });
    page.drawText(`Submission ${row.id}  -  page ${index + 1} of ${pages.length}`, { x: MARGIN, y: MARGIN + 10, size: 8, font: regular, color: grey });
    page.drawText(`SHA-256 ${sha256}`, { x: MARGIN, y: MARGIN, size: 7, font: mono, color: grey });
  });
  return doc.save();
}
