import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { expect, test, type Locator, type Page } from "@playwright/test";
import { PNG } from "pngjs";
import { expectAccessible, staffSignIn } from "./forms-support";
import { API_URL, hasHorizontalScroll, signIn, WEB_PORT, watchCspViolations, PATIENT_LANGUAGE_SWITCH } from "./support";
import {
  A4,
  createApiToken,
  darkShare,
  drawWithMouse,
  makeConsentPdf,
  patientSessionJwt,
  requestSignature,
  startFileServer,
  useHs256Verification,
  verifySession,
  waitForPageImages,
  type FileServer,
} from "./signing-support";

/** The signature field on page 1, in PDF points from the top-left corner. */
const FIELD = { page: 1, x: 60, y: 640, width: 240, height: 80 };
const JWT_SECRET = "e2e-portal-shared-secret-0123456789";
const TITLE = "Consent to anaesthesia";

let files: FileServer;
let work: string;

test.beforeAll(async () => {
  files = await startFileServer({ "/consent.pdf": await makeConsentPdf(FIELD) });
  work = mkdtempSync(join(tmpdir(), "clinsign-e2e-signing-"));
});
test.afterAll(async () => {
  await files?.close();
  if (work) rmSync(work, { recursive: true, force: true });
});

/** Sets up the organization through the admin UI once per test that needs it; returns the API token. */
async function adminSetup(page: Page): Promise<string> {
  await signIn(page);
  await useHs256Verification(page, JWT_SECRET);
  const token = await createApiToken(page, `E2E signing ${Date.now()}`);
  // The patient is not the staff member: nothing of the admin session may help them.
  await page.context().clearCookies();
  return token;
}

/** One finger stroke on the canvas, as touch events (Chromium turns them into pointer events). */
async function drawWithFinger(page: Page, canvas: Locator): Promise<void> {
  const box = (await canvas.boundingBox())!;
  const cdp = await page.context().newCDPSession(page);
  const at = (fx: number, fy: number) => [{ x: box.x + box.width * fx, y: box.y + box.height * fy, id: 1 }];
  await cdp.send("Input.dispatchTouchEvent", { type: "touchStart", touchPoints: at(0.1, 0.6) });
  for (let i = 1; i <= 24; i++) {
    const fx = 0.1 + (0.8 * i) / 24;
    const fy = 0.6 - 0.3 * Math.sin((i / 24) * Math.PI * 3);
    await cdp.send("Input.dispatchTouchEvent", { type: "touchMove", touchPoints: at(fx, fy) });
  }
  await cdp.send("Input.dispatchTouchEvent", { type: "touchEnd", touchPoints: [] });
  await cdp.detach();
}

test.describe("patient signature portal on a phone", () => {
  test.use({ viewport: { width: 390, height: 844 }, deviceScaleFactor: 2, isMobile: true, hasTouch: true });

  test("A4 ticket → read → draw → consent → sign → download a sealed PDF with the ink in the field", async ({
    page,
    request,
  }) => {
    const token = await adminSetup(page);
    const patientId = `P-e2e-${Date.now()}`;
    const { signatureId } = await requestSignature(request, token, {
      pdfUrl: files.url("/consent.pdf"),
      field: FIELD,
      title: TITLE,
      patientId,
    });
    const redirectUrl = await verifySession(request, token, {
      patientId,
      signatureId,
      sessionToken: await patientSessionJwt(JWT_SECRET, patientId),
    });
    expect(redirectUrl.startsWith(`http://localhost:${WEB_PORT}/sign/ticket/`)).toBe(true);

    const cspViolations = watchCspViolations(page);
    await page.goto(redirectUrl);

    // The document, page by page, with the field outlined where its coordinates say.
    await expect(page.getByRole("heading", { level: 1, name: TITLE })).toBeVisible();
    const firstPage = page.getByRole("figure", { name: "Page 1 of 2" });
    await expect(firstPage).toHaveAttribute("data-rendered", "true");
    await expect(page.getByRole("figure", { name: "Page 2 of 2" })).toBeAttached();
    // Page images, or pdf.js's canvas while the images are still being drawn: the field lines up on either.
    const frame = (await firstPage.locator("canvas, img").first().boundingBox())!;
    const field = (await page.getByTestId("pdf-field").boundingBox())!;
    expect(frame.width).toBeLessThanOrEqual(390);
    const scale = frame.width / A4.width;
    expect(field.x - frame.x).toBeCloseTo(FIELD.x * scale, 0);
    expect(field.y - frame.y).toBeCloseTo(FIELD.y * scale, 0);
    expect(field.width).toBeCloseTo(FIELD.width * scale, 0);
    expect(field.height).toBeCloseTo(FIELD.height * scale, 0);
    expect(await hasHorizontalScroll(page)).toBe(false);

    // Nothing to submit yet.
    const signButton = page.getByRole("button", { name: "Sign document" });
    await expect(signButton).toBeDisabled();

    const canvas = page.getByRole("img", { name: /^Signature area/ });
    await canvas.scrollIntoViewIfNeeded();
    await drawWithFinger(page, canvas);
    await expect(canvas).toHaveAttribute("data-has-ink", "true");
    await drawWithMouse(page, canvas);
    await expect(signButton).toBeDisabled();
    await page.getByLabel("I have read the document and agree to sign it electronically.").check();
    await expect(signButton).toBeEnabled();

    // A double tap submits once (the API would sign only once anyway).
    await signButton.dblclick();
    await expect(page.getByRole("heading", { level: 1, name: "Thank you — your document is signed" })).toBeVisible({
      timeout: 30_000,
    });
    const downloadButton = page.getByRole("button", { name: "Download signed PDF" });
    const [download] = await Promise.all([page.waitForEvent("download"), downloadButton.click()]);
    expect(download.suggestedFilename()).toBe(`signed-${TITLE}.pdf`);
    const file = join(work, "signed.pdf");
    await download.saveAs(file);
    expect(readFileSync(file).subarray(0, 5).toString()).toBe("%PDF-");
    expect(cspViolations).toEqual([]);

    // A reload keeps the confirmation (the ticket was used; the session lives in this tab).
    await page.reload();
    await expect(page.getByRole("button", { name: "Download signed PDF" })).toBeVisible();

    // The sealed PDF, checked with poppler and qpdf.
    const sig = spawnSync("pdfsig", [file], { encoding: "utf8" });
    expect(sig.stdout, sig.stderr).toContain("Signature is Valid");
    expect(sig.stdout).toContain("Total document signed");
    const check = spawnSync("qpdf", ["--check", file], { encoding: "utf8" });
    expect(check.status, check.stdout + check.stderr).toBe(0);
    const prefix = join(work, "page");
    const render = spawnSync("pdftoppm", ["-r", "72", "-f", "1", "-l", "1", "-png", file, prefix], {
      encoding: "utf8",
    });
    expect(render.status, render.stderr).toBe(0);
    const pngFile = ["page-1.png", "page-01.png"]
      .map((name) => join(work, name))
      .find((path) => spawnSync("test", ["-f", path]).status === 0)!;
    const png = PNG.sync.read(readFileSync(pngFile));
    expect(Math.abs(png.width - A4.width)).toBeLessThan(1);
    // 72 dpi: one PDF point is one pixel, origin top-left, like the field's coordinates.
    const ink = darkShare(png, FIELD.x, FIELD.y, FIELD.width, FIELD.height);
    expect(ink).toBeGreaterThan(0.01);
    // Beside the field (same size, to the right) the page stays blank.
    expect(darkShare(png, FIELD.x + FIELD.width + 20, FIELD.y, FIELD.width, FIELD.height)).toBe(0);
  });

  test("typed name is the keyboard path; declining asks for confirmation and ends the request", async ({
    page,
    request,
  }) => {
    const token = await adminSetup(page);
    const signed = await requestSignature(request, token, {
      pdfUrl: files.url("/consent.pdf"),
      field: FIELD,
      title: "Typed consent",
      patientId: "P-e2e-typed",
    });
    const cspViolations = watchCspViolations(page);

    // The bare signing link (verification is configured but not required here).
    await page.goto(signed.signingLink);
    await expect(page.getByRole("heading", { level: 1, name: "Typed consent" })).toBeVisible();
    await page.getByRole("radio", { name: "Type your name" }).check();
    await page.getByLabel("Your full name").fill("Erika Mustermann");
    await page.getByLabel("I have read the document and agree to sign it electronically.").check();

    // While the sealed PDF is still being made the page says so, and asks again every 2 s.
    let sealingAnswers = 0;
    await page.route("**/trpc/signing.status?**", async (route) => {
      sealingAnswers++;
      await route.fulfill({
        json: [
          {
            result: {
              data: {
                state: "sealing",
                signedCopy: "preparing",
                signedCopyUntil: new Date(Date.now() + 30 * 86_400_000).toISOString(),
              },
            },
          },
        ],
      });
    });
    await page.getByRole("button", { name: "Sign document" }).press("Enter");
    await expect(page.getByRole("heading", { level: 1, name: "Finishing your document…" })).toBeFocused();
    await expect(page.getByRole("status").filter({ hasText: "Your signature has been received." })).toBeVisible();
    await expect.poll(() => sealingAnswers, { timeout: 10_000 }).toBeGreaterThanOrEqual(2);
    await page.unroute("**/trpc/signing.status?**");
    await expect(page.getByRole("heading", { level: 1, name: "Thank you — your document is signed" })).toBeVisible({
      timeout: 30_000,
    });
    await expect(page.getByRole("heading", { level: 1 })).toBeFocused();
    await expect(page.getByRole("button", { name: "Download signed PDF" })).toBeVisible();

    const declined = await requestSignature(request, token, {
      pdfUrl: files.url("/consent.pdf"),
      field: FIELD,
      title: "Declined consent",
      patientId: "P-e2e-decline",
    });
    await page.goto(declined.signingLink);
    await expect(page.getByRole("heading", { level: 1, name: "Declined consent" })).toBeVisible();
    await page.getByRole("button", { name: "Decline to sign" }).click();
    const dialog = page.getByRole("alertdialog", { name: "Decline to sign this document?" });
    await expect(dialog).toBeVisible();
    await dialog.getByLabel("Reason (optional)").fill("I would like to talk to my doctor first.");
    await dialog.getByRole("button", { name: "Decline", exact: true }).click();
    await expect(page.getByRole("heading", { level: 1, name: "You declined to sign" })).toBeVisible();
    await page.reload();
    await expect(page.getByRole("heading", { level: 1, name: "You declined to sign" })).toBeVisible();
    expect(cspViolations).toEqual([]);
  });
});

/** Two fingers on the element moving apart (a pinch-out), as touch events through CDP. */
async function pinchOut(page: Page, target: Locator): Promise<void> {
  const box = (await target.boundingBox())!;
  const viewport = page.viewportSize()!;
  const cx = box.x + box.width / 2;
  const cy = Math.min(box.y + box.height / 2, viewport.height / 2);
  const cdp = await page.context().newCDPSession(page);
  const points = (spread: number) => [
    { x: cx - spread, y: cy, id: 1 },
    { x: cx + spread, y: cy, id: 2 },
  ];
  await cdp.send("Input.dispatchTouchEvent", { type: "touchStart", touchPoints: points(40) });
  for (let spread = 45; spread <= 120; spread += 5)
    await cdp.send("Input.dispatchTouchEvent", { type: "touchMove", touchPoints: points(spread) });
  await cdp.send("Input.dispatchTouchEvent", { type: "touchEnd", touchPoints: [] });
  await cdp.detach();
}

test.describe("the signer's copy and reading on a phone (390 × 844)", () => {
  test.use({ viewport: { width: 390, height: 844 }, deviceScaleFactor: 2, isMobile: true, hasTouch: true });

  test("the link opened again after signing offers the copy until a date; after the period it says whom to ask", async ({
    page,
    request,
    browser,
  }) => {
    const staff = await staffSignIn(browser, "E2E signed copy");
    try {
      const signed = await requestSignature(request, staff.token, {
        pdfUrl: files.url("/consent.pdf"),
        field: FIELD,
        title: "Copy consent",
        patientId: `P-e2e-copy-${Date.now()}`,
      });
      await page.goto(signed.signingLink);
      await expect(page.getByRole("heading", { level: 1, name: "Copy consent" })).toBeVisible();
      await page.getByRole("radio", { name: "Type your name" }).check();
      await page.getByLabel("Your full name").fill("Erika Mustermann");
      await page.getByLabel("I have read the document and agree to sign it electronically.").check();
      await page.getByRole("button", { name: "Sign document" }).click();
      await expect(page.getByRole("heading", { level: 1, name: "Thank you — your document is signed" })).toBeVisible({
        timeout: 30_000,
      });
      await expect(
        page.getByRole("status").filter({ hasText: /You can download your signed copy here until/ }),
      ).toBeVisible();
      await page.screenshot({ path: test.info().outputPath("copy-done-en.png"), fullPage: true });

      // Days later, on another phone: the same link, no session in this tab.
      const later = await browser.newContext({
        viewport: { width: 390, height: 844 },
        deviceScaleFactor: 2,
        isMobile: true,
        hasTouch: true,
        locale: "en-GB",
      });
      const patient = await later.newPage();
      await patient.goto(signed.signingLink);
      await expect(patient.getByRole("heading", { level: 1, name: "This document is already signed" })).toBeVisible();
      await expect(patient.getByText(/You can download your signed copy here until/)).toBeVisible();
      const [download] = await Promise.all([
        patient.waitForEvent("download"),
        patient.getByRole("button", { name: "Download signed PDF" }).click(),
      ]);
      expect(download.suggestedFilename()).toBe("signed-Copy consent.pdf");
      const file = join(work, "copy.pdf");
      await download.saveAs(file);
      expect(readFileSync(file).subarray(0, 5).toString()).toBe("%PDF-");
      expect(await hasHorizontalScroll(patient)).toBe(false);
      await expectAccessible(patient, "signing portal: already signed, copy available");
      await patient.screenshot({ path: test.info().outputPath("copy-already-signed-en.png"), fullPage: true });
      await patient.getByRole("combobox", { name: PATIENT_LANGUAGE_SWITCH }).selectOption("de");
      await expect(
        patient.getByRole("heading", { level: 1, name: "Dieses Dokument ist bereits unterschrieben" }),
      ).toBeVisible();
      await expect(patient.getByRole("button", { name: "Unterschriebenes PDF herunterladen" })).toBeVisible();
      await patient.screenshot({ path: test.info().outputPath("copy-already-signed-de.png"), fullPage: true });
      await patient.getByRole("combobox", { name: PATIENT_LANGUAGE_SWITCH }).selectOption("en");

      // The download is in the audit log: who (the portal, for this request) and when.
      const audit = await staff.context.request.get("/trpc/audit.entries", {
        params: { input: JSON.stringify({ action: "signature.copy_downloaded" }) },
      });
      expect(audit.status(), await audit.text()).toBe(200);
      expect(await audit.text()).toContain(signed.signatureId);

      // After the period (the organization's signedCopyDays; 0 = no online copy): whom to ask.
      const setDays = async (days: number) => {
        const response = await staff.context.request.post("/trpc/organization.update", {
          data: { signedCopyDays: days },
        });
        expect(response.status(), await response.text()).toBe(200);
      };
      await setDays(0);
      try {
        await patient.goto(signed.signingLink);
        await expect(
          patient.getByRole("heading", { level: 1, name: "Your signed copy is no longer available here" }),
        ).toBeVisible();
        await expect(patient.getByText(/please ask the practice or clinic that sent you this link/)).toBeVisible();
        await expect(patient.getByRole("button", { name: "Download signed PDF" })).toHaveCount(0);
        await expectAccessible(patient, "signing portal: copy expired");
        await patient.screenshot({ path: test.info().outputPath("copy-expired-en.png"), fullPage: true });
        await patient.getByRole("combobox", { name: PATIENT_LANGUAGE_SWITCH }).selectOption("de");
        await expect(
          patient.getByRole("heading", { level: 1, name: "Ihre unterschriebene Kopie ist hier nicht mehr verfügbar" }),
        ).toBeVisible();
        await patient.screenshot({ path: test.info().outputPath("copy-expired-de.png"), fullPage: true });
        await patient.getByRole("combobox", { name: PATIENT_LANGUAGE_SWITCH }).selectOption("en");
      } finally {
        await setDays(30);
        await later.close();
      }
    } finally {
      await staff.context.close();
    }
  });

  test("reading the document: zoom buttons and pinch enlarge the text, Go to the signature skips the pages; axe-clean", async ({
    page,
    request,
    browser,
  }) => {
    const staff = await staffSignIn(browser, "E2E reading");
    await staff.context.close();
    const signing = await requestSignature(request, staff.token, {
      pdfUrl: files.url("/consent.pdf"),
      field: FIELD,
      title: TITLE,
      patientId: `P-e2e-zoom-${Date.now()}`,
    });
    await waitForPageImages(request, signing.signingLink);
    await page.goto(signing.signingLink);
    const firstPage = page.getByRole("figure", { name: "Page 1 of 2" });
    await expect(firstPage).toHaveAttribute("data-rendered", "true");
    const viewer = page.getByTestId("document-viewer");
    const image = firstPage.locator("img");
    const fitWidth = (await image.boundingBox())!.width;
    expect(fitWidth).toBeLessThanOrEqual(390);
    // At the screen's width, 11 pt body text is about 6 px: far too small to read.
    expect((11 * fitWidth) / A4.width).toBeLessThan(7);

    const tools = page.getByRole("group", { name: "Reading tools" });
    await expect(tools.getByRole("button", { name: "Zoom out" })).toBeDisabled();
    await tools.getByRole("button", { name: "Zoom in" }).click();
    await tools.getByRole("button", { name: "Zoom in" }).press("Enter");
    await expect(viewer).toHaveAttribute("data-zoom", "2");
    await expect(tools.getByText("Zoom 200 %")).toBeVisible();
    await expect.poll(async () => (await image.boundingBox())!.width).toBeCloseTo(fitWidth * 2, -1);
    // The page is shown from its largest image now (sharp), not the phone-sized one stretched.
    await expect.poll(() => image.evaluate((i: HTMLImageElement) => i.currentSrc)).toMatch(/-1200\.webp$/);
    // The document scrolls sideways inside its frame; the page itself does not.
    expect(await hasHorizontalScroll(page)).toBe(false);
    expect(await viewer.evaluate((v) => v.scrollWidth > v.clientWidth)).toBe(true);
    // Keyboard users scroll the zoomed pages sideways with the arrow keys.
    const pages = page.getByRole("region", { name: /^The document’s pages/ });
    await pages.focus();
    const before = await viewer.evaluate((v) => v.scrollLeft);
    await page.keyboard.press("ArrowRight");
    await expect.poll(() => viewer.evaluate((v) => v.scrollLeft)).toBeGreaterThan(before);
    await expectAccessible(page, "signing portal: document zoomed");
    await page.screenshot({ path: test.info().outputPath("reading-zoom-200-en.png") });

    await tools.getByRole("button", { name: "Fit to width" }).click();
    await expect(viewer).toHaveAttribute("data-zoom", "1");
    // Two fingers apart inside the document zoom it (and not the page).
    await firstPage.scrollIntoViewIfNeeded();
    await pinchOut(page, viewer);
    await expect.poll(async () => Number(await viewer.getAttribute("data-zoom"))).toBeGreaterThan(1.5);
    expect(await hasHorizontalScroll(page)).toBe(false);

    // "Go to the signature" skips the pages and puts the focus on the signature form.
    await page.evaluate(() => window.scrollTo(0, 0));
    await tools.getByRole("button", { name: "Go to the signature" }).click();
    const signHeading = page.getByRole("heading", { level: 2, name: "Your signature" });
    await expect(signHeading).toBeFocused();
    await expect(signHeading).toBeInViewport();

    await page.getByRole("combobox", { name: PATIENT_LANGUAGE_SWITCH }).selectOption("de");
    await page.evaluate(() => window.scrollTo(0, 0));
    const werkzeuge = page.getByRole("group", { name: "Lesehilfen" });
    await expect(werkzeuge.getByRole("button", { name: "Vergrößern" })).toBeVisible();
    await expect(werkzeuge.getByRole("button", { name: "Zur Unterschrift" })).toBeVisible();
    await page.screenshot({ path: test.info().outputPath("reading-de.png") });
    await page.getByRole("combobox", { name: PATIENT_LANGUAGE_SWITCH }).selectOption("en");
  });

  test("the pages arrive as images sized for the phone; pdf.js and the PDF load only for “Show the original PDF”", async ({
    page,
    request,
    browser,
  }) => {
    const staff = await staffSignIn(browser, "E2E page images");
    await staff.context.close();
    const signing = await requestSignature(request, staff.token, {
      pdfUrl: files.url("/consent.pdf"),
      field: FIELD,
      title: TITLE,
      patientId: `P-e2e-images-${Date.now()}`,
    });
    await waitForPageImages(request, signing.signingLink);
    const fetched: string[] = [];
    page.on("request", (sent) => fetched.push(sent.url()));
    await page.goto(signing.signingLink);
    const firstPage = page.getByRole("figure", { name: "Page 1 of 2" });
    await expect(firstPage).toHaveAttribute("data-rendered", "true");
    await expect(page.getByRole("figure", { name: "Page 2 of 2" })).toBeAttached();

    // A 390 px phone at 2× gets the 800 px image, with its size known before it arrives.
    const image = firstPage.locator("img");
    await expect.poll(() => image.evaluate((i: HTMLImageElement) => i.currentSrc)).toMatch(/\/1-800\.webp$/);
    expect(await image.getAttribute("width")).toBe("1200");
    expect(await image.getAttribute("height")).toBe("1697");
    const served = await request.get(await image.evaluate((i: HTMLImageElement) => i.currentSrc));
    expect(served.headers()["content-type"]).toBe("image/webp");
    expect(served.headers()["cache-control"]).toBe("private, max-age=31536000, immutable");

    // The field lines up on the image as it did on pdf.js's canvas.
    const frame = (await image.boundingBox())!;
    const field = (await page.getByTestId("pdf-field").boundingBox())!;
    const scale = frame.width / A4.width;
    expect(field.x - frame.x).toBeCloseTo(FIELD.x * scale, 0);
    expect(field.y - frame.y).toBeCloseTo(FIELD.y * scale, 0);
    expect(field.width).toBeCloseTo(FIELD.width * scale, 0);

    // Screen readers get each page's text.
    await expect(firstPage.locator(".cs-visually-hidden")).not.toBeEmpty();

    // The signature pad is there and takes ink; nothing of pdf.js or the PDF was downloaded.
    const pad = page.getByRole("img", { name: /^Signature area/ });
    await pad.scrollIntoViewIfNeeded();
    await drawWithMouse(page, pad);
    await expect(pad).toHaveAttribute("data-has-ink", "true");
    const pdfjs = (url: string) => /pdf\.worker|\/sign\/pdfjs\/|signing\.document/.test(url);
    expect(fetched.filter(pdfjs)).toEqual([]);
    await expectAccessible(page, "signing portal: page images");
    await page.screenshot({ path: test.info().outputPath("page-images-en.png"), fullPage: true });

    // Asked for, the original PDF is drawn by pdf.js in place of the images. While it loads, a
    // sheet of each page's size holds the pages' place: the pad below does not move when they come.
    const readingTools = page.getByRole("group", { name: "Reading tools" });
    const padBelowTools = async () => {
      const [tools, padBox] = [(await readingTools.boundingBox())!, (await pad.boundingBox())!];
      return padBox.y - (tools.y + tools.height);
    };
    const withImages = await padBelowTools();
    let release = () => {};
    const held = new Promise<void>((resolve) => (release = resolve));
    await page.route(/signing\.document/, async (route) => {
      await held;
      await route.continue();
    });
    await page.evaluate(() => window.scrollTo(0, 0));
    await page.getByRole("button", { name: "Show the original PDF" }).click();
    await expect(page.getByRole("status").filter({ hasText: "Loading the document" })).toBeVisible();
    expect(Math.abs((await padBelowTools()) - withImages)).toBeLessThanOrEqual(2);
    await expect(page.locator("[data-placeholder-page]")).toHaveCount(2);
    await page.screenshot({ path: test.info().outputPath("original-pdf-loading-en.png") });
    release();
    await expect(firstPage.locator("canvas")).toBeVisible();
    await expect(firstPage).toHaveAttribute("data-rendered", "true");
    expect(Math.abs((await padBelowTools()) - withImages)).toBeLessThanOrEqual(2);
    expect(fetched.some((url) => /pdf\.worker/.test(url))).toBe(true);
    expect(fetched.some((url) => /signing\.document/.test(url))).toBe(true);
  });

  test("page 1 comes with the page's first HTML: drawn before any script runs, and the link is not opened by it", async ({
    browser,
    request,
  }) => {
    const staff = await staffSignIn(browser, "E2E first HTML");
    await staff.context.close();
    const patientId = `P-e2e-first-html-${Date.now()}`;
    const signing = await requestSignature(request, staff.token, {
      pdfUrl: files.url("/consent.pdf"),
      field: FIELD,
      title: TITLE,
      patientId,
    });
    await waitForPageImages(request, signing.signingLink);

    // Scripts off: what is on the screen is what the server's HTML drew.
    const context = await browser.newContext({ javaScriptEnabled: false, viewport: { width: 390, height: 844 } });
    const page = await context.newPage();
    await page.goto(signing.signingLink);
    await expect(page.getByRole("heading", { level: 1, name: TITLE })).toBeVisible();
    const image = page.getByRole("figure", { name: "Page 1 of 2" }).locator("img");
    await expect(image).toBeVisible();
    await expect.poll(() => image.evaluate((i: HTMLImageElement) => i.complete && i.naturalWidth)).toBeGreaterThan(0);
    // The field's outline needs the script to be placed: until then it is not drawn at all (never misplaced).
    await expect(page.getByTestId("pdf-field")).toBeHidden();
    await page.screenshot({ path: test.info().outputPath("first-html-390.png") });
    await context.close();

    // Showing it opened nothing: the request still waits for the patient (A2 lists it as pending).
    const listed = await request.get(`${API_URL}/signature-requests?patient_id=${patientId}`, {
      headers: { authorization: `Bearer ${staff.token}` },
    });
    expect(listed.status()).toBe(200);
    expect(((await listed.json()) as { status: string }[]).map((r) => r.status)).toEqual(["pending"]);
  });
});

test.describe("link problems, on a small phone (360 × 740)", () => {
  test.use({ viewport: { width: 360, height: 740 }, isMobile: true, hasTouch: true });

  test("unknown links, used tickets and expired links get clear pages, in English and German", async ({
    page,
    request,
  }) => {
    await page.goto(`/sign/${"x".repeat(43)}`);
    await expect(page.getByRole("heading", { level: 1, name: "This link does not work" })).toBeVisible();
    expect(await hasHorizontalScroll(page)).toBe(false);
    await page.goto("/sign/ticket/not-a-ticket");
    await expect(page.getByRole("heading", { level: 1, name: "This link does not work" })).toBeVisible();

    await page.getByRole("combobox", { name: PATIENT_LANGUAGE_SWITCH }).selectOption("de");
    await expect(page.getByRole("heading", { level: 1, name: "Dieser Link funktioniert nicht" })).toBeVisible();
    await page.getByRole("combobox", { name: PATIENT_LANGUAGE_SWITCH }).selectOption("en");
    await expect(page.getByRole("heading", { level: 1, name: "This link does not work" })).toBeVisible();

    const token = await adminSetup(page);
    const expiring = await requestSignature(request, token, {
      pdfUrl: files.url("/consent.pdf"),
      field: FIELD,
      title: "Short-lived consent",
      patientId: "P-e2e-expired",
      expiresInMs: 3_000,
    });
    // A ticket works once: a second visit with the same ticket is an unknown link.
    const ticketUrl = await verifySession(request, token, {
      patientId: "P-e2e-expired",
      signatureId: expiring.signatureId,
      sessionToken: await patientSessionJwt(JWT_SECRET, "P-e2e-expired"),
    });
    await page.goto(ticketUrl);
    await expect(page.getByRole("heading", { level: 1, name: "Short-lived consent" })).toBeVisible();
    await page
      .context()
      .newPage()
      .then(async (other) => {
        await other.goto(ticketUrl);
        await expect(other.getByRole("heading", { level: 1, name: "This link does not work" })).toBeVisible();
        await other.close();
      });

    await page.waitForTimeout(3_500);
    await page.goto(expiring.signingLink);
    await expect(page.getByRole("heading", { level: 1, name: "This link has expired" })).toBeVisible();
    expect(await hasHorizontalScroll(page)).toBe(false);
  });
});
