import { execFileSync } from "node:child_process";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { expect, type APIRequestContext, type Page } from "@playwright/test";
import { PDFDocument, PDFHexString, PDFName, PDFString, StandardFonts } from "pdf-lib";
import { createApiToken, requestSignature, type FileServer } from "./signing-support";
import { API_URL, signIn } from "./support";

/**
 * A PDF sealed by this service, made the way a patient makes one: staff create a token, the HIS
 * asks for a signature (A6, A1), the patient signs with a typed name, and the HIS downloads the
 * sealed PDF (A3's signed_pdf_url).
 */
export async function sealThroughSigningFlow(
  page: Page,
  request: APIRequestContext,
  files: FileServer,
  field: { page: number; x: number; y: number; width: number; height: number },
): Promise<Buffer> {
  await signIn(page);
  const token = await createApiToken(page, `E2E verify ${Date.now()}`);
  await page.context().clearCookies();
  const signed = await requestSignature(request, token, {
    pdfUrl: files.url("/consent.pdf"),
    field,
    title: "Verified consent",
    patientId: "P-e2e-verify",
  });
  await page.goto(signed.signingLink);
  await page.getByRole("radio", { name: "Type your name" }).check();
  await page.getByLabel("Your full name").fill("Erika Mustermann");
  await page.getByLabel("I have read the document and agree to sign it electronically.").check();
  await page.getByRole("button", { name: "Sign document" }).click();
  await expect(page.getByRole("heading", { level: 1, name: "Thank you — your document is signed" })).toBeVisible({
    timeout: 30_000,
  });
  const response = await request.get(`${API_URL}/signature-requests/${signed.signatureId}/signed.pdf`, {
    headers: { authorization: `Bearer ${token}` },
  });
  expect(response.status()).toBe(200);
  return Buffer.from(await response.body());
}

/** The same PDF with one letter of the seal's /Reason changed: a byte inside the signed range. */
export function withByteChanged(pdf: Buffer): Buffer {
  const changed = Buffer.from(pdf);
  const at = changed.indexOf("Signed by patient");
  expect(at).toBeGreaterThan(0);
  changed[at + 7] = "B".charCodeAt(0);
  return changed;
}

const PLACEHOLDER = 9_999_999_999;
const CONTENTS_BYTES = 8192;

/**
 * A PDF sealed elsewhere: a self-signed certificate of another organization (openssl), a
 * signature field with a /ByteRange placeholder (pdf-lib), and a detached CMS over the byte
 * ranges made by `openssl cms`.
 */
export async function signedElsewhere(dir: string): Promise<Buffer> {
  const key = join(dir, "foreign.key");
  const cert = join(dir, "foreign.crt");
  execFileSync(
    "openssl",
    [
      "req",
      "-x509",
      "-newkey",
      "rsa:2048",
      "-nodes",
      "-keyout",
      key,
      "-out",
      cert,
      "-days",
      "365",
      "-subj",
      "/CN=Other Hospital Seal/O=Other Hospital",
      "-addext",
      "keyUsage=digitalSignature,nonRepudiation",
    ],
    { stdio: "ignore" },
  );

  const doc = await PDFDocument.create();
  const font = await doc.embedFont(StandardFonts.Helvetica);
  const page = doc.addPage([595.28, 841.89]);
  page.drawText("A letter sealed by another hospital", { x: 60, y: 760, size: 18, font });
  const signature = doc.context.register(
    doc.context.obj({
      Type: "Sig",
      Filter: "Adobe.PPKLite",
      SubFilter: "ETSI.CAdES.detached",
      ByteRange: [0, PLACEHOLDER, PLACEHOLDER, PLACEHOLDER],
      Contents: PDFHexString.of("0".repeat(CONTENTS_BYTES * 2)),
      M: PDFString.fromDate(new Date()),
      Name: PDFString.of("Other Hospital"),
    }),
  );
  const widget = doc.context.register(
    doc.context.obj({
      Type: "Annot",
      Subtype: "Widget",
      FT: "Sig",
      Rect: [0, 0, 0, 0],
      T: PDFString.of("Signature1"),
      F: 132,
      P: page.ref,
      V: signature,
    }),
  );
  page.node.set(PDFName.of("Annots"), doc.context.obj([widget]));
  doc.catalog.set(PDFName.of("AcroForm"), doc.context.obj({ Fields: [widget], SigFlags: 3 }));
  let pdf = Buffer.from(await doc.save({ useObjectStreams: false }));

  // Fill in the byte ranges (same width as the placeholder), then sign what they cover.
  const match = new RegExp(`/ByteRange\\s*\\[\\s*0 ${PLACEHOLDER} ${PLACEHOLDER} ${PLACEHOLDER}\\s*\\]`).exec(
    pdf.toString("latin1"),
  );
  expect(match).not.toBeNull();
  const placeholder = match![0];
  const rangeAt = match!.index;
  const contentsAt = pdf.indexOf(`<${"0".repeat(CONTENTS_BYTES * 2)}>`);
  expect(rangeAt).toBeGreaterThan(0);
  const afterContents = contentsAt + CONTENTS_BYTES * 2 + 2;
  const ranges = `/ByteRange [ 0 ${contentsAt} ${afterContents} ${pdf.length - afterContents} ]`.padEnd(
    placeholder.length,
    " ",
  );
  pdf = Buffer.concat([
    pdf.subarray(0, rangeAt),
    Buffer.from(ranges, "latin1"),
    pdf.subarray(rangeAt + placeholder.length),
  ]);
  const content = join(dir, "content.bin");
  const cms = join(dir, "content.p7s");
  writeFileSync(content, Buffer.concat([pdf.subarray(0, contentsAt), pdf.subarray(afterContents)]));
  execFileSync("openssl", [
    "cms",
    "-sign",
    "-binary",
    "-md",
    "sha256",
    "-in",
    content,
    "-signer",
    cert,
    "-inkey",
    key,
    "-outform",
    "DER",
    "-out",
    cms,
  ]);
  const hex = readFileSync(cms)
    .toString("hex")
    .padEnd(CONTENTS_BYTES * 2, "0");
  pdf.write(hex, contentsAt + 1, "latin1");
  return pdf;
}
