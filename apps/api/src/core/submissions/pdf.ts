/**
 * One submission as a PDF (the staff download): gathered and worded here, in the organization's
 * language and time zone, and laid out in the PDF worker (pdf-layout.ts), because drawing the
 * signature decodes an image a patient sent. The request thread only reads image headers.
 */
import { dataUrlImageSize, fitsPixelBudget, type OrganizationLocale, type SubmissionAnswer } from "@clinsign/contracts";
import type { OrgContext } from "../context";
import { sha256Hex } from "../crypto";
import { loadOrganization } from "../organizations/organizations";
import { runPdfTask } from "../pdf-worker/run";
import { answeredLabelsOf, describeAnswers } from "./answers";
import type { SubmissionPdfAnswer, SubmissionPdfContent } from "./pdf-layout";
import { canonicalSubmission, findSubmission } from "./submission-reads";

interface PdfWords {
  /** Intl locale for dates and numbers. */
  intl: string;
  submitted: string;
  reference: string;
  formVersion: string;
  answeredIn: string;
  yes: string;
  no: string;
  signature: string;
  signatureNotShown: string;
  attachment: (name: string, type: string, kb: number) => string;
  /** `{page}` and `{pages}` are filled in per page. */
  pageFooter: (id: string) => string;
}

const words: Record<OrganizationLocale, PdfWords> = {
  de: {
    intl: "de-DE",
    submitted: "Eingereicht",
    reference: "Referenz",
    formVersion: "Formularversion",
    answeredIn: "Beantwortet in",
    yes: "Ja",
    no: "Nein",
    signature: "[Unterschrift]",
    signatureNotShown: "[Unterschrift als Bild nicht darstellbar]",
    attachment: (name, type, kb) => `Anhang: ${name} (${type}, ${kb} KB)`,
    pageFooter: (id) => `Einreichung ${id}  -  Seite {page} von {pages}`,
  },
  en: {
    intl: "en-GB",
    submitted: "Submitted",
    reference: "Reference",
    formVersion: "Form version",
    answeredIn: "Answered in",
    yes: "Yes",
    no: "No",
    signature: "[signature]",
    signatureNotShown: "[signature image cannot be shown]",
    attachment: (name, type, kb) => `Attachment: ${name} (${type}, ${kb} KB)`,
    pageFooter: (id) => `Submission ${id}  -  page {page} of {pages}`,
  },
};

/** A moment as the clinic reads it: "26.11.2026, 14:03:05 (Europe/Berlin)". */
export function formatDateTime(at: Date, intl: string, timeZone: string): string {
  return `${new Intl.DateTimeFormat(intl, { dateStyle: "medium", timeStyle: "medium", timeZone }).format(at)} (${timeZone})`;
}

/** A calendar date answer ("2024-03-01") in the clinic's language; it has no time zone. */
function formatDate(value: string, intl: string): string {
  const at = new Date(`${value}T00:00:00Z`);
  return Number.isNaN(at.getTime())
    ? value
    : new Intl.DateTimeFormat(intl, { dateStyle: "medium", timeZone: "UTC" }).format(at);
}

/** A signature data URL as image bytes, when its header fits the budget (checked again in the worker). */
function signatureImage(value: unknown): SubmissionPdfAnswer["image"] {
  if (typeof value !== "string") return undefined;
  const size = dataUrlImageSize(value);
  if (!size || !fitsPixelBudget(size)) return undefined;
  return { format: size.format, bytes: new Uint8Array(Buffer.from(value.slice(value.indexOf(",") + 1), "base64")) };
}

function pdfAnswer(answer: SubmissionAnswer, w: PdfWords): SubmissionPdfAnswer {
  const { label, value } = answer;
  if (answer.type === "signature") {
    if (!value) return { label, texts: ["-"] };
    const image = signatureImage(value);
    return image ? { label, texts: [w.signatureNotShown], image } : { label, texts: [w.signatureNotShown] };
  }
  if (answer.files) {
    if (answer.files.length === 0) return { label, texts: ["-"] };
    return {
      label,
      texts: answer.files.map((file) => w.attachment(file.name, file.type, Math.max(1, Math.round(file.size / 1024)))),
    };
  }
  if (typeof value === "boolean") return { label, texts: [value ? w.yes : w.no] };
  if (answer.type === "date" && typeof value === "string" && /^\d{4}-\d{2}-\d{2}$/.test(value))
    return { label, texts: [formatDate(value, w.intl)] };
  if (answer.type === "number" && typeof value === "number") {
    return {
      label,
      texts: [new Intl.NumberFormat(w.intl, { maximumFractionDigits: 20, useGrouping: false }).format(value)],
    };
  }
  return { label, texts: [answer.text || "-"] };
}

/** A language's name in the clinic's language ("Türkisch", "Arabic"). */
export const languageName = (code: string, intl: string) =>
  new Intl.DisplayNames([intl], { type: "language" }).of(code) ?? code;

// The PDF's standard fonts speak WinAnsi: Turkish letters outside it are written as their Latin
// base letter; a label that still does not fit (Arabic, Cyrillic) is left out, the German one stays.
const LATIN_FALLBACK: Record<string, string> = { ı: "i", İ: "I", ş: "s", Ş: "S", ğ: "g", Ğ: "G" };
function winAnsiLabel(text: string): string | null {
  const latin = text.normalize("NFC").replace(/[ıİşŞğĞ]/g, (c) => LATIN_FALLBACK[c]!);
  return /^[\x20-\x7E\xA0-\xFF]*$/.test(latin) ? latin : null;
}

/** The default language's label, then the one the patient read where it differs and can be printed. */
function bothLabels(answer: SubmissionAnswer): string {
  const answered = answer.answeredLabel ? winAnsiLabel(answer.answeredLabel) : null;
  return answered ? `${answer.label} / ${answered}` : answer.label;
}

/** What the PDF of one submission shows, worded for its organization. */
export async function submissionPdfContent(ctx: OrgContext, input: { id: string }): Promise<SubmissionPdfContent> {
  const row = await findSubmission(ctx, input.id);
  const organization = await loadOrganization(ctx);
  const w = words[organization.locale] ?? words.de;
  const answers = describeAnswers(ctx, row.templateSchema, row.values, undefined, answeredLabelsOf(row));
  const otherLanguage = row.language && row.templateLanguage && row.language !== row.templateLanguage;
  return {
    documentTitle: `${row.templateTitle} - ${row.id}`,
    createdAt: row.createdAt,
    organizationName: organization.name,
    title: row.templateTitle,
    facts: [
      `${w.submitted}: ${formatDateTime(row.createdAt, w.intl, organization.timeZone)}`,
      ...(row.rnummer ? [`${w.reference}: ${row.rnummer}`] : []),
      `${w.formVersion}: ${row.templateSchema.version}`,
      ...(otherLanguage ? [`${w.answeredIn}: ${languageName(row.language!, w.intl)}`] : []),
    ],
    answers: answers.map((answer) => ({ ...pdfAnswer(answer, w), label: bothLabels(answer) })),
    pageFooter: w.pageFooter(row.id),
    sha256: sha256Hex(canonicalSubmission(row)),
  };
}

/**
 * The submission PDF, laid out in the PDF worker under its memory limit and deadline. If the
 * worker cannot finish it (an image that still costs more than the limits), the PDF is made
 * again without images, so staff always get the answers.
 */
export async function renderSubmissionPdf(ctx: OrgContext, input: { id: string }): Promise<Uint8Array> {
  const content = await submissionPdfContent(ctx, input);
  const limits = ctx.services.config.pdfWorker;
  try {
    return await runPdfTask(limits, "renderSubmissionPdf", content);
  } catch (error) {
    if (!content.answers.some((answer) => answer.image)) throw error;
    ctx.services.log.warn(
      { submissionId: input.id, err: error instanceof Error ? error.message : String(error) },
      "submission PDF made again without images",
    );
    return runPdfTask(limits, "renderSubmissionPdf", {
      ...content,
      answers: content.answers.map(({ image: _image, ...answer }) => answer),
    });
  }
}
