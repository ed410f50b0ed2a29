import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { expect, test, type Page } from "@playwright/test";
import { PNG } from "pngjs";
import { expectAxeClean, expectPageLanguage, useLanguage } from "./axe-support";
import { createActiveTemplate, createEmbedSession, staffSignIn, type Staff } from "./forms-support";
import { patientTexts } from "./patient-texts";
import {
  A4,
  darkShare,
  drawWithMouse,
  makeConsentPdf,
  requestSignature,
  startFileServer,
  type FileServer,
} from "./signing-support";
import { hasHorizontalScroll, shot } from "./support";

// A patient signs in Arabic (the whole page right to left, the document not mirrored) and in
// Turkish (chosen with the language switch on the page); the sealed PDF is the same either way.

const FIELD = { page: 1, x: 60, y: 640, width: 240, height: 80 };
const TITLE = "Consent to anaesthesia";

let staff: Staff;
let files: FileServer;
let work: string;

test.beforeAll(async ({ browser }) => {
  files = await startFileServer({ "/consent.pdf": await makeConsentPdf(FIELD) });
  staff = await staffSignIn(browser, "E2E signing languages");
  work = mkdtempSync(join(tmpdir(), "clinsign-e2e-languages-"));
});
test.afterAll(async () => {
  await Promise.all([files?.close(), staff?.context.close()]);
  if (work) rmSync(work, { recursive: true, force: true });
});

/**
 * The field is drawn where its PDF coordinates say, from the page's left edge, in any language.
 * The page is an image drawn ahead of time once the version's page images are ready, and a pdf.js
 * canvas until then: which one a test meets depends on how fast the images were made.
 */
async function expectFieldWhereThePdfSaysIt(page: Page): Promise<void> {
  const firstPage = page.locator('figure[data-page="1"]');
  await expect(firstPage).toHaveAttribute("data-rendered", "true");
  const frame = (await firstPage.locator("canvas, img").first().boundingBox())!;
  const field = (await page.getByTestId("pdf-field").boundingBox())!;
  const scale = frame.width / A4.width;
  expect(field.x - frame.x).toBeCloseTo(FIELD.x * scale, 0);
  expect(field.y - frame.y).toBeCloseTo(FIELD.y * scale, 0);
}

/**
 * Downloads the signed copy and checks the seal, the ink in the field (not mirrored), and that its
 * audit page is written in the language the patient signed in (`auditTitle`).
 */
async function expectSealedWithInk(page: Page, downloadLabel: string, name: string, auditTitle: string): Promise<void> {
  const [download] = await Promise.all([
    page.waitForEvent("download"),
    page.getByRole("button", { name: downloadLabel }).click(),
  ]);
  const file = join(work, `${name}.pdf`);
  await download.saveAs(file);
  const sig = spawnSync("pdfsig", [file], { encoding: "utf8" });
  expect(sig.stdout, sig.stderr).toContain("Signature is Valid");
  expect(sig.stdout).toContain("Total document signed");
  const prefix = join(work, name);
  const render = spawnSync("pdftoppm", ["-r", "72", "-f", "1", "-l", "1", "-png", file, prefix], { encoding: "utf8" });
  expect(render.status, render.stderr).toBe(0);
  const pngFile = [`${name}-1.png`, `${name}-01.png`]
    .map((f) => join(work, f))
    .find((path) => spawnSync("test", ["-f", path]).status === 0)!;
  const png = PNG.sync.read(readFileSync(pngFile));
  expect(darkShare(png, FIELD.x, FIELD.y, FIELD.width, FIELD.height)).toBeGreaterThan(0.01);
  expect(darkShare(png, FIELD.x + FIELD.width + 20, FIELD.y, FIELD.width, FIELD.height)).toBe(0);
  // The audit page is the sealed PDF's last page (after the document's own pages).
  const pages = /Pages:\s+(\d+)/.exec(spawnSync("pdfinfo", [file], { encoding: "utf8" }).stdout)![1]!;
  const audit = spawnSync("pdftotext", ["-f", pages, "-l", pages, file, "-"], { encoding: "utf8" }).stdout;
  expect(audit).toContain(auditTitle);
}

test.describe("signing in Arabic and Turkish on a phone", () => {
  test.use({ viewport: { width: 390, height: 844 }, deviceScaleFactor: 2 });

  test("Arabic: the whole page right to left and in Arabic; the document and the pad are not mirrored", async ({
    page,
    context,
    request,
  }) => {
    const ar = patientTexts.ar;
    const signing = await requestSignature(request, staff.token, {
      pdfUrl: files.url("/consent.pdf"),
      field: FIELD,
      title: TITLE,
      patientId: `P-ar-${Date.now()}`,
    });
    await useLanguage(context, "ar");
    await page.goto(signing.signingLink);
    await expectPageLanguage(page, "ar");
    await expect(page.getByRole("heading", { level: 1, name: TITLE })).toBeVisible();
    await expect(page).toHaveTitle(new RegExp(`^${ar.signing.pageTitle}`));
    await expect(page.getByRole("combobox", { name: ar.shell.language })).toHaveValue("ar");
    await expect(page.getByText(ar.signing.steps)).toBeVisible();
    await expect(page.getByRole("heading", { name: ar.signing.signHeading })).toBeVisible();
    await expectFieldWhereThePdfSaysIt(page);
    // The page runs right to left; the page of the document and the signature pad do not.
    expect(await page.locator("main").evaluate((el) => getComputedStyle(el).direction)).toBe("rtl");
    const firstPageDrawing = page.locator('figure[data-page="1"]').locator("canvas, img").first();
    expect(await firstPageDrawing.evaluate((el) => getComputedStyle(el).direction)).toBe("ltr");
    const canvas = page.getByRole("img", { name: ar.signing.padLabel });
    expect(await canvas.evaluate((el) => getComputedStyle(el).direction)).toBe("ltr");
    // The start edge is on the right: the headings sit at the right edge of their column.
    const headingBox = (await page.getByRole("heading", { name: ar.signing.signHeading }).boundingBox())!;
    expect(headingBox.x + headingBox.width).toBeGreaterThan(390 - 60);
    expect(await hasHorizontalScroll(page)).toBe(false);
    await shot(page, "signing-ar-390");
    await page.setViewportSize({ width: 320, height: 700 });
    expect(await hasHorizontalScroll(page)).toBe(false);
    await shot(page, "signing-ar-320");
    await page.setViewportSize({ width: 390, height: 844 });

    const signButton = page.getByRole("button", { name: ar.signing.signButton });
    await expect(signButton).toBeDisabled();
    await canvas.scrollIntoViewIfNeeded();
    await drawWithMouse(page, canvas);
    await expect(canvas).toHaveAttribute("data-has-ink", "true");
    await page.getByLabel(ar.signing.consent).check();
    await signButton.click();
    await expect(page.getByRole("heading", { level: 1, name: ar.signing.completedTitle })).toBeVisible({
      timeout: 30_000,
    });
    await expectPageLanguage(page, "ar");
    await expectAxeClean(page, "signing portal: signed (ar)");
    await expectSealedWithInk(page, ar.signing.download, "signed-ar", "سجل");
  });

  test("Turkish: chosen on the page, remembered, and the document signed in Turkish", async ({
    page,
    context,
    request,
  }) => {
    const trTexts = patientTexts.tr;
    const signing = await requestSignature(request, staff.token, {
      pdfUrl: files.url("/consent.pdf"),
      field: FIELD,
      title: TITLE,
      patientId: `P-tr-${Date.now()}`,
    });
    await useLanguage(context, "en");
    await page.goto(signing.signingLink);
    await expectPageLanguage(page, "en");
    await expect(page.getByRole("button", { name: "Sign document" })).toBeVisible();

    // The switch offers each language in its own name; Turkish comes in at once, without a reload.
    const select = page.getByRole("combobox", { name: "Language" });
    await expect(select.locator("option")).toHaveText([
      "Deutsch",
      "English",
      "Türkçe",
      "العربية",
      "Русский",
      "Українська",
      "Polski",
    ]);
    await select.selectOption("tr");
    await expect(page.getByRole("button", { name: trTexts.signing.signButton })).toBeVisible();
    await expectPageLanguage(page, "tr");
    await expect(page).toHaveTitle(new RegExp(`^${trTexts.signing.pageTitle}`));
    expect((await context.cookies()).find((c) => c.name === "lang")?.value).toBe("tr");

    // Remembered: the page comes back in Turkish from the server.
    await page.reload();
    await expectPageLanguage(page, "tr");
    await expect(page.getByRole("combobox", { name: trTexts.shell.language })).toHaveValue("tr");
    await expect(page.getByText(trTexts.signing.steps)).toBeVisible();
    await expectFieldWhereThePdfSaysIt(page);
    await shot(page, "signing-tr-390");
    await page.setViewportSize({ width: 320, height: 700 });
    expect(await hasHorizontalScroll(page)).toBe(false);
    await shot(page, "signing-tr-320");
    await page.setViewportSize({ width: 390, height: 844 });

    const canvas = page.getByRole("img", { name: trTexts.signing.padLabel });
    await canvas.scrollIntoViewIfNeeded();
    await drawWithMouse(page, canvas);
    await page.getByLabel(trTexts.signing.consent).check();
    await page.getByRole("button", { name: trTexts.signing.signButton }).click();
    await expect(page.getByRole("heading", { level: 1, name: trTexts.signing.completedTitle })).toBeVisible({
      timeout: 30_000,
    });
    // The copy's date in Turkish (tr-TR: "26 Ara 2026 14:44").
    await expect(page.getByText(/\d{1,2} (Oca|Şub|Mar|Nis|May|Haz|Tem|Ağu|Eyl|Eki|Kas|Ara)\S* \d{4}/)).toBeVisible();
    await expectSealedWithInk(page, trTexts.signing.download, "signed-tr", "İmza denetim kaydı");
    await useLanguage(context, "en");
  });

  test("a form in Arabic and Turkish, at 390 and 320 px; staff pages stay in English or German", async ({
    page,
    context,
    request,
  }) => {
    const title = `Anamnese ${Date.now()}`;
    const identifier = await createActiveTemplate(request, staff, title, [
      { id: "1", type: "text", key: "fullName", label: "Full name", required: true },
      { id: "2", type: "date", key: "born", label: "Date of birth" },
      { id: "3", type: "signature", key: "signature", label: "Signature" },
    ]);
    const embedSession = await createEmbedSession(request, staff, identifier);
    for (const lang of ["ar", "tr"] as const) {
      await page.setViewportSize({ width: 390, height: 844 });
      await useLanguage(context, lang);
      await page.goto(embedSession.embedUrl);
      await expectPageLanguage(page, lang);
      await expect(page.getByRole("heading", { level: 1, name: title })).toBeVisible();
      await expect(page.getByRole("button", { name: patientTexts[lang].forms.submit })).toBeVisible();
      await shot(page, `form-${lang}-390`);
      await page.setViewportSize({ width: 320, height: 700 });
      expect(await hasHorizontalScroll(page)).toBe(false);
      await shot(page, `form-${lang}-320`);
    }

    // A patient language in the cookie: the staff sign-in page falls back (Accept-Language).
    await useLanguage(context, "tr");
    await page.goto("/login");
    await expect(page.locator("html")).toHaveAttribute("lang", "en");
    await expect(page.locator("html")).toHaveAttribute("dir", "ltr");
    await expect(page.getByLabel("E-mail address")).toBeVisible();
    await useLanguage(context, "en");
  });
});
