/**
 * The work the PDF worker does, by name. Everything here parses documents that came from
 * customers, so it runs only in the worker (see run.ts), never on the request thread.
 */
import { PDFDocument } from "pdf-lib";
import { readPdfPages } from "../documents/pdf-pages";
import { renderPdfPages } from "../documents/page-render";
import { inspectSignedPdf } from "../pdf-seal/inspect-pdf";
import { openP12 } from "../pdf-seal/open-p12";
import { prepareSeal } from "../pdf-seal/seal-pdf";
import { layoutSubmissionPdf } from "../submissions/pdf-layout";

export const pdfTasks = {
  /** A6: is it a PDF we can stamp and seal later, and what are its page sizes? */
  readPages: (input: { bytes: Uint8Array }) => readPdfPages(input.bytes),
  /** The signing page's page images (WebP at a few widths) and each page's text, a batch of pages. */
  renderPages: renderPdfPages,
  /** Sealing: stamp, audit page and signature placeholder (the signature itself stays outside). */
  prepareSeal,
  /** A submission as a PDF for staff: it decodes the patient's signature image. */
  renderSubmissionPdf: layoutSubmissionPdf,
  /** `/verify`: signatures, timestamps, DSS and later updates of a PDF anyone may send. */
  inspectSignedPdf,
  /** An admin's organization seal upload: a PKCS#12 whose key derivation the file itself sets. */
  openP12,
};

/**
 * Seals a blank page of our own, so that a spare worker has compiled pdf-lib's code paths and
 * unpacked the standard fonts' metrics before a customer's document arrives. No customer data.
 *
 * Latin-1 only: shaping a first line in Noto Sans parses its substitution and positioning tables,
 * 0.75 s of CPU for the three scripts against 0.1 s for this, in every spare, and a spare serves
 * one task of any kind (page images, /verify, German seals). A seal in Turkish, Cyrillic or Arabic
 * parses the fonts it draws with in its own task (docs/performance.md, "The PDF worker's spare").
 */
export async function warmUp(): Promise<void> {
  const blank = await PDFDocument.create();
  blank.addPage([595.28, 841.89]);
  const at = new Date(0);
  await prepareSeal({
    original: await blank.save(),
    fields: [{ page: 1, x: 56, y: 56, width: 180, height: 50 }],
    png: null,
    typedName: "warm-up",
    facts: {
      title: "warm-up",
      signatureId: "-",
      documentId: "-",
      version: 1,
      signature: { kind: "typed", name: "warm-up" },
      language: "en",
      clinicLanguage: "de",
      patientId: "-",
      institutionId: "-",
      orderBy: "-",
      createdAt: at,
      openedAt: at,
      signedAt: at,
      ip: null,
      userAgent: null,
      originalSha256: "-",
      certificate: "-",
      development: true,
      tsaHost: null,
    },
    placeholder: { reason: "-", location: "-", contactInfo: "-", signingTime: at, name: "-" },
  });
}

export type PdfTasks = typeof pdfTasks;
export type PdfTaskName = keyof PdfTasks;
export type PdfTaskInput<K extends PdfTaskName> = Parameters<PdfTasks[K]>[0];
export type PdfTaskOutput<K extends PdfTaskName> = Awaited<ReturnType<PdfTasks[K]>>;

/** What the worker receives. */
export interface PdfWorkerData {
  task: PdfTaskName;
  input: unknown;
  /** No stream may decode to more than this (pdf-lib inflates object streams while loading). */
  maxDecodedBytes: number;
}

/** What the worker says when its code is loaded and the task begins. */
export interface PdfWorkerStarted {
  started: true;
}

/** What the worker answers. */
export type PdfWorkerReply = { ok: true; output: unknown } | { ok: false; message: string; limit?: "memory" };
