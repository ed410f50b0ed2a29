import { expect, test, type Browser } from "@playwright/test";
import { createActiveTemplate, createEmbedSession, requestFormBySms, smsPortalLink, staffSignIn, startSmsGateway, type SmsGateway, type Staff } from "./forms-support";
import { makeConsentPdf, requestSignature, startFileServer, type FileServer } from "./signing-support";

/** The budget for JavaScript on the first load of a form page, encoded bytes. */
const FORM_PAGE_JS_BUDGET = 150 * 1024;
const FIELD = { page: 1, x: 60, y: 640, width: 240, height: 80 };

let staff: Staff;
let files: FileServer;
let sms: SmsGateway;

test.beforeAll(async ({ browser }) => {
  files = await startFileServer({ "/consent.pdf": await makeConsentPdf(FIELD) });
  sms = await startSmsGateway();
  staff = await staffSignIn(browser, "E2E page weight");
});
test.afterAll(async () => {
  await Promise.all([files?.close(), staff?.context.close(), sms?.close()]);
});

/**
 * JavaScript a phone downloads on the first visit: a new context (empty cache), the page until
 * the network is idle, the encoded (compressed) body bytes of every script response.
 */
async function firstLoadJsBytes(browser: Browser, url: string, ready: string): Promise<{ bytes: number; scripts: string[] }> {
  const context = await browser.newContext({ viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true });
  try {
    const page = await context.newPage();
    const sizes: Array<Promise<{ url: string; bytes: number }>> = [];
    page.on("requestfinished", (request) => {
      if (request.resourceType() === "script") sizes.push(request.sizes().then((size) => ({ url: request.url(), bytes: size.responseBodySize })));
    });
    await page.goto(url, { waitUntil: "networkidle" });
    await expect(page.getByRole("heading", { level: 1, name: ready })).toBeVisible();
    await page.waitForLoadState("networkidle");
    const measured = await Promise.all(sizes);
    return { bytes: measured.reduce((sum, script) => sum + script.bytes, 0), scripts: measured.map((script) => `${script.bytes}\t${new URL(script.url).pathname}`) };
  } finally {
    await context.close();
  }
}

test("JavaScript on the first load: the form pages stay within 150 KB (the signing portal is reported)", async ({ browser, request }) => {
  const title = `Page weight form ${Date.now()}`;
  const identifier = await createActiveTemplate(request, staff, title, [
    { id: "1", type: "text", key: "fullName", label: "Full name", required: true },
    { id: "2", type: "date", key: "birthDate", label: "Date of birth" },
    { id: "3", type: "signature", key: "signature", label: "Signature" },
  ]);
  const session = await createEmbedSession(request, staff, identifier);
  const phone = "+491701234590";
  await requestFormBySms(request, staff, { phone, rnummer: `R-${Date.now()}`, templateIdentifier: identifier });
  const smsLink = await smsPortalLink(sms, phone);
  const signing = await requestSignature(request, staff.token, { pdfUrl: files.url("/consent.pdf"), field: FIELD, title: "Consent to anaesthesia", patientId: `P-weight-${Date.now()}` });

  const pages = [
    { name: "/embed", url: session.embedUrl, ready: title, budget: FORM_PAGE_JS_BUDGET },
    { name: "/f", url: smsLink, ready: "Please confirm who you are", budget: FORM_PAGE_JS_BUDGET },
    { name: "/sign", url: signing.signingLink, ready: "Consent to anaesthesia", budget: null },
  ];
  const results: Array<{ name: string; bytes: number; budget: number | null; scripts: string[] }> = [];
  for (const { name, url, ready, budget } of pages) results.push({ name, budget, ...(await firstLoadJsBytes(browser, url, ready)) });

  for (const { name, bytes, scripts } of results) {
    console.log(`page-weight ${name} ${bytes}`);
    if (process.env.E2E_PAGE_WEIGHT_DETAILS) console.log(scripts.join("\n"));
  }
  for (const { name, bytes, budget, scripts } of results) {
    expect(bytes, `${name}: no script measured`).toBeGreaterThan(0);
    if (budget !== null) expect.soft(bytes, `${name} loads ${bytes} bytes of JavaScript (budget ${budget}):\n${scripts.join("\n")}`).toBeLessThanOrEqual(budget);
  }
});
