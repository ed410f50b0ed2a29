import { randomUUID } from "node:crypto";
import { createServer, type Server } from "node:http";
import { expect, type APIRequestContext, type Locator, type Page } from "@playwright/test";
import type { PNG } from "pngjs";
import { SignJWT } from "jose";
import { PDFDocument, rgb, StandardFonts } from "pdf-lib";
import { API_URL, FILE_SERVER_PORT } from "./support";

/**
 * The stand-in for a hospital's document store: the API fetches `document_bloburl` from here.
 * playwright.config.ts allows exactly this address in OUTBOUND_ALLOW_HOSTS.
 */
export const FILE_SERVER_ORIGIN = `http://127.0.0.1:${FILE_SERVER_PORT}`;

/** A4 in PDF points. */
export const A4 = { width: 595.28, height: 841.89 };

/** A two-page consent form; page 1 leaves the signature area blank. */
export async function makeConsentPdf(field: { x: number; y: number; width: number; height: number }): Promise<Buffer> {
  const doc = await PDFDocument.create();
  const font = await doc.embedFont(StandardFonts.Helvetica);
  const bold = await doc.embedFont(StandardFonts.HelveticaBold);
  const first = doc.addPage([A4.width, A4.height]);
  // pdf-lib draws from the bottom-left; the field is given from the top-left.
  const top = (y: number) => A4.height - y;
  first.drawText("Consent to anaesthesia", { x: 60, y: top(90), size: 20, font: bold });
  const lines = [
    "I have been informed about the planned anaesthesia, its risks and alternatives.",
    "I had the opportunity to ask questions, and all my questions were answered.",
    "I consent to the anaesthesia described in this form.",
  ];
  lines.forEach((line, i) => first.drawText(line, { x: 60, y: top(140 + i * 22), size: 11, font }));
  first.drawText("Signature of the patient:", { x: field.x, y: top(field.y - 12), size: 10, font });
  first.drawLine({
    start: { x: field.x, y: top(field.y + field.height + 2) },
    end: { x: field.x + field.width, y: top(field.y + field.height + 2) },
    thickness: 0.5,
    color: rgb(0.4, 0.4, 0.4),
  });
  const second = doc.addPage([A4.width, A4.height]);
  second.drawText("Information sheet (page 2)", { x: 60, y: top(90), size: 16, font: bold });
  second.drawText("Please keep a copy of this document for your records.", { x: 60, y: top(130), size: 11, font });
  return Buffer.from(await doc.save());
}

export interface FileServer {
  url(path: string): string;
  close(): Promise<void>;
}

export async function startFileServer(files: Record<string, Buffer>): Promise<FileServer> {
  const server: Server = createServer((req, res) => {
    const body = files[new URL(req.url ?? "/", FILE_SERVER_ORIGIN).pathname];
    if (!body) return void res.writeHead(404).end("not found");
    res.writeHead(200, { "content-type": "application/pdf", "content-length": body.length }).end(body);
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(FILE_SERVER_PORT, "127.0.0.1", resolve);
  });
  return {
    url: (path) => `${FILE_SERVER_ORIGIN}${path}`,
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** Settings → session verification → shared secret (HS256), through the admin UI. */
export async function useHs256Verification(page: Page, secret: string): Promise<void> {
  await page.goto("/settings");
  await expect(page.getByRole("heading", { level: 1, name: "Settings" })).toBeVisible();
  await page.getByRole("radio", { name: /Shared secret \(HS256\)/ }).check();
  await page.getByLabel("Shared secret", { exact: true }).fill(secret);
  await page.getByRole("button", { name: "Save changes" }).click();
  await expect(page.getByRole("status").filter({ hasText: "Settings saved." })).toBeVisible();
}

/** API tokens → create, through the admin UI; returns the token shown once. */
export async function createApiToken(page: Page, name: string): Promise<string> {
  await page.goto("/tokens");
  await expect(page.getByRole("heading", { level: 1, name: "API tokens" })).toBeVisible();
  await page.getByLabel("Token name").fill(name);
  await page.getByRole("button", { name: "Create token" }).click();
  const dialog = page.getByRole("dialog", { name: "Your new API token" });
  await expect(dialog).toBeVisible();
  const token = await dialog.getByTestId("new-token").inputValue();
  await dialog.getByRole("button", { name: "I have copied it" }).click();
  await expect(dialog).toBeHidden();
  return token;
}

export interface SigningRequest {
  signatureId: string;
  signingLink: string;
}

/** A6 (register the PDF) then A1 (ask the patient to sign it), over REST with the token. */
export async function requestSignature(
  request: APIRequestContext,
  token: string,
  options: {
    pdfUrl: string;
    field: { page: number; x: number; y: number; width: number; height: number };
    title: string;
    patientId: string;
    institutionId?: string;
    expiresInMs?: number;
  },
): Promise<SigningRequest> {
  const headers = { authorization: `Bearer ${token}` };
  const document = await request.post(`${API_URL}/documents`, {
    headers,
    data: {
      document_name: options.title,
      document_description: "Please read the form and sign it before your appointment.",
      account_name: "e2e",
      signingfield_koordinates: options.field,
      document_bloburl: options.pdfUrl,
    },
  });
  expect(document.status(), await document.text()).toBe(201);
  const { document_id: documentId } = (await document.json()) as { document_id: string };

  const created = await request.post(`${API_URL}/signature-requests`, {
    headers,
    data: {
      patient_id: options.patientId,
      document_id: documentId,
      institution_id: options.institutionId ?? "e2e-clinic",
      expiration_date: new Date(Date.now() + (options.expiresInMs ?? 3_600_000)).toISOString(),
      order_by: "dr.e2e",
    },
  });
  expect(created.status(), await created.text()).toBe(201);
  const body = (await created.json()) as { signature_id: string; signing_link: string };
  return { signatureId: body.signature_id, signingLink: body.signing_link };
}

/** The patient portal's side of A4: a short-lived HS256 JWT for the patient. */
export async function patientSessionJwt(secret: string, patientId: string): Promise<string> {
  return new SignJWT({})
    .setProtectedHeader({ alg: "HS256", typ: "JWT" })
    .setSubject(patientId)
    .setIssuedAt()
    .setExpirationTime("5m")
    .setJti(randomUUID())
    .sign(new TextEncoder().encode(secret));
}

/** A4: confirms the patient's portal session and returns the one-time link into the signing page. */
export async function verifySession(
  request: APIRequestContext,
  token: string,
  input: { patientId: string; signatureId: string; sessionToken: string },
): Promise<string> {
  const response = await request.post(`${API_URL}/signature-requests/verify-session`, {
    headers: { authorization: `Bearer ${token}` },
    data: { patient_id: input.patientId, signature_id: input.signatureId, session_token: input.sessionToken },
  });
  expect(response.status(), await response.text()).toBe(200);
  const body = (await response.json()) as { valid: boolean; redirect_url: string | null };
  expect(body.valid).toBe(true);
  expect(body.redirect_url).toMatch(/\/sign\/ticket\/[A-Za-z0-9_-]+$/);
  return body.redirect_url!;
}

/** One stroke with the mouse across a signature canvas (the desktop path). */
export async function drawWithMouse(page: Page, canvas: Locator): Promise<void> {
  // The pad takes strokes once the page has hydrated: one drawn before is lost, as it would be on
  // a slow phone (issue 35's "pad ready" goal). So the stroke is drawn again, as a person would,
  // until the pad holds ink (at most three times); callers still assert the ink themselves.
  for (let attempt = 1; attempt <= 3; attempt++) {
    await stroke(page, canvas);
    try {
      await expect(canvas).toHaveAttribute("data-has-ink", "true", { timeout: 3_000 });
      return;
    } catch {
      // Not hydrated yet, or a pad that takes no ink (disabled): the caller's assertion decides.
    }
  }
}

async function stroke(page: Page, canvas: Locator): Promise<void> {
  // Where the pad is now: pdf.js can draw the document's pages above it after the last stroke.
  await canvas.scrollIntoViewIfNeeded();
  const box = (await canvas.boundingBox())!;
  await page.mouse.move(box.x + box.width * 0.2, box.y + box.height * 0.75);
  await page.mouse.down();
  await page.mouse.move(box.x + box.width * 0.5, box.y + box.height * 0.3, { steps: 12 });
  await page.mouse.move(box.x + box.width * 0.85, box.y + box.height * 0.7, { steps: 12 });
  await page.mouse.up();
}

/** Share of dark pixels in a rectangle of a PNG. */
export function darkShare(png: PNG, x0: number, y0: number, width: number, height: number): number {
  let dark = 0;
  for (let y = Math.round(y0); y < Math.round(y0 + height); y++) {
    for (let x = Math.round(x0); x < Math.round(x0 + width); x++) {
      const i = (y * png.width + x) * 4;
      const lum = 0.2126 * png.data[i]! + 0.7152 * png.data[i + 1]! + 0.0722 * png.data[i + 2]!;
      if (lum < 128) dark++;
    }
  }
  return dark / (Math.round(width) * Math.round(height));
}

/**
 * Waits until the API has drawn the page images of a signing link's document (a job right after
 * A6), by opening the link as the signing page does: the page then shows images, not pdf.js.
 */
export async function waitForPageImages(request: APIRequestContext, signingLink: string): Promise<void> {
  const token = signingLink.slice(signingLink.lastIndexOf("/") + 1);
  await expect
    .poll(
      async () => {
        // The preview reads the link without opening it: the request stays as the patient will find it.
        const input = encodeURIComponent(JSON.stringify({ token }));
        const response = await request.get(`${API_URL}/trpc/signing.preview?input=${input}`);
        const body = (await response.json()) as { result?: { data?: { pageImages?: unknown } } };
        return Boolean(body.result?.data?.pageImages);
      },
      { message: "the page images of the document", timeout: 60_000 },
    )
    .toBe(true);
}
