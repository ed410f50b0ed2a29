import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { expect, test } from "@playwright/test";
import { PDFDocument, StandardFonts } from "pdf-lib";
import { expectPageLanguage, useLanguage } from "./axe-support";
import { expectAccessible, staffSignIn, type Staff } from "./forms-support";
import { patientTexts } from "./patient-texts";
import { A4, drawWithMouse, startFileServer, type FileServer } from "./signing-support";
import { API_URL, hasHorizontalScroll, shot } from "./support";

// Issue 19: a request with the consent in German (main), Turkish and Arabic. A patient whose
// signing page is in Turkish gets the Turkish document; switching the page to German later keeps
// it; the sealed copy is the Turkish PDF and its audit page names the document's language.

const FIELD = { page: 1, x: 60, y: 640, width: 240, height: 80 };
const TITLES = { de: "Einwilligung in die Narkose", tr: "Anestezi onamı", ar: "الموافقة على التخدير" } as const;

/** A one-page consent whose text says which language's file it is (ASCII: the standard font's). */
async function consentPdf(marker: string): Promise<Buffer> {
  const doc = await PDFDocument.create();
  const font = await doc.embedFont(StandardFonts.Helvetica);
  const page = doc.addPage([A4.width, A4.height]);
  page.drawText(marker, { x: 60, y: A4.height - 90, size: 18, font });
  page.drawText("Signature of the patient:", { x: FIELD.x, y: A4.height - FIELD.y + 12, size: 10, font });
  return Buffer.from(await doc.save());
}

let staff: Staff;
let files: FileServer;
let work: string;

test.beforeAll(async ({ browser }) => {
  files = await startFileServer({
    "/de.pdf": await consentPdf("CONSENT-DE Einwilligung"),
    "/tr.pdf": await consentPdf("CONSENT-TR Anestezi onami"),
    "/ar.pdf": await consentPdf("CONSENT-AR"),
  });
  staff = await staffSignIn(browser, "E2E document languages");
  work = mkdtempSync(join(tmpdir(), "clinsign-e2e-doclang-"));
});
test.afterAll(async () => {
  await Promise.all([files?.close(), staff?.context.close()]);
  if (work) rmSync(work, { recursive: true, force: true });
});

test.describe("documents in the patient's language on a phone", () => {
  test.use({ viewport: { width: 390, height: 844 }, deviceScaleFactor: 2 });

  test("a Turkish page gets the Turkish document, keeps it in German, and seals it", async ({
    page,
    context,
    request,
  }) => {
    const headers = { authorization: `Bearer ${staff.token}` };
    const ids: Record<keyof typeof TITLES, string> = { de: "", tr: "", ar: "" };
    for (const language of ["de", "tr", "ar"] as const) {
      const created = await request.post(`${API_URL}/documents`, {
        headers,
        data: {
          document_name: TITLES[language],
          signingfield_koordinates: FIELD,
          document_bloburl: files.url(`/${language}.pdf`),
          language,
        },
      });
      expect(created.status(), await created.text()).toBe(201);
      ids[language] = ((await created.json()) as { document_id: string }).document_id;
    }
    const a1 = await request.post(`${API_URL}/signature-requests`, {
      headers,
      data: {
        patient_id: `P-doclang-${Date.now()}`,
        document_id: ids.de,
        institution_id: "e2e-clinic",
        expiration_date: new Date(Date.now() + 3_600_000).toISOString(),
        order_by: "dr.e2e",
        documents_by_language: { tr: ids.tr, ar: ids.ar },
      },
    });
    expect(a1.status(), await a1.text()).toBe(201);
    const { signature_id: signatureId, signing_link: signingLink } = (await a1.json()) as {
      signature_id: string;
      signing_link: string;
    };

    // The page in Turkish (the `lang` cookie the language switch sets): the Turkish document.
    const tr = patientTexts.tr;
    await useLanguage(context, "tr");
    await page.goto(signingLink);
    await expectPageLanguage(page, "tr");
    await expect(page.getByRole("heading", { level: 1, name: TITLES.tr })).toBeVisible();
    await expect(page.getByRole("button", { name: tr.signing.signButton })).toBeVisible();
    expect(await hasHorizontalScroll(page)).toBe(false);
    await expectAccessible(page, "signing portal: the Turkish document (tr)");
    await shot(page, "signing-document-tr-390");

    // The patient switches to German and comes back later: the pinned Turkish document stays.
    await page.getByRole("combobox", { name: tr.shell.language }).selectOption("de");
    await expectPageLanguage(page, "de");
    await page.reload();
    await expectPageLanguage(page, "de");
    await expect(page.getByRole("heading", { level: 1, name: TITLES.tr })).toBeVisible();
    await page.getByRole("combobox", { name: patientTexts.de.shell.language }).selectOption("tr");
    await expectPageLanguage(page, "tr");

    const canvas = page.getByRole("img", { name: tr.signing.padLabel });
    await canvas.scrollIntoViewIfNeeded();
    await drawWithMouse(page, canvas);
    await page.getByLabel(tr.signing.consent).check();
    await page.getByRole("button", { name: tr.signing.signButton }).click();
    await expect(page.getByRole("heading", { level: 1, name: tr.signing.completedTitle })).toBeVisible({
      timeout: 30_000,
    });
    await expectAccessible(page, "signing portal: signed the Turkish document (tr)");

    // The seal is valid, the signed pages are the Turkish PDF's, the audit page names its language.
    const [download] = await Promise.all([
      page.waitForEvent("download"),
      page.getByRole("button", { name: tr.signing.download }).click(),
    ]);
    const file = join(work, "signed-tr-document.pdf");
    await download.saveAs(file);
    const sig = spawnSync("pdfsig", [file], { encoding: "utf8" });
    expect(sig.stdout, sig.stderr).toContain("Signature is Valid");
    expect(sig.stdout).toContain("Total document signed");
    const first = spawnSync("pdftotext", ["-f", "1", "-l", "1", file, "-"], { encoding: "utf8" }).stdout;
    expect(first).toContain("CONSENT-TR");
    expect(first).not.toContain("CONSENT-DE");
    const pages = /Pages:\s+(\d+)/.exec(spawnSync("pdfinfo", [file], { encoding: "utf8" }).stdout)![1]!;
    const audit = spawnSync("pdftotext", ["-f", pages, "-l", pages, file, "-"], { encoding: "utf8" }).stdout;
    expect(audit).toContain("İmza denetim kaydı");
    expect(audit).toContain("Belgenin dili");
    expect(audit).toContain("Türkçe (tr)");

    // Staff see which document the patient got.
    await staff.page.goto(`/signature-requests/${signatureId}`);
    const documents = staff.page.getByRole("definition").filter({ hasText: "The patient got this one" });
    await expect(documents).toBeVisible();
    await expect(documents.getByRole("listitem").filter({ hasText: "Türkçe (tr)" })).toContainText(
      "The patient got this one",
    );
    await expectAccessible(staff.page, "console: request with documents in several languages");
  });
});

test("staff name a document's language and offer a Turkish document in a new request (1280×800 English, 390×844 German)", async ({
  request,
}, testInfo) => {
  const run = Date.now();
  const headers = { authorization: `Bearer ${staff.token}` };
  const titles = { de: `Aufklärung ${run}`, tr: `Aydınlatma ${run}` };
  for (const language of ["de", "tr"] as const) {
    const created = await request.post(`${API_URL}/documents`, {
      headers,
      data: {
        document_name: titles[language],
        signingfield_koordinates: FIELD,
        document_bloburl: files.url(`/${language}.pdf`),
        language,
      },
    });
    expect(created.status(), await created.text()).toBe(201);
  }
  const page = staff.page;
  await page.setViewportSize({ width: 1280, height: 800 });

  // The list names each document's language.
  await page.goto(`/documents?q=${run}`);
  const list = page.getByRole("table", { name: "Documents" });
  await expect(list.getByRole("row").filter({ hasText: titles.tr })).toContainText("Türkçe (tr)");
  await expect(list.getByRole("row").filter({ hasText: titles.de })).toContainText("Deutsch (de)");

  // A new request: the German consent, and the Turkish one for patients whose page is in Turkish.
  await page.goto("/signature-requests");
  await page.getByRole("button", { name: "New request" }).click();
  const dialog = page.getByRole("dialog", { name: "New signature request" });
  await dialog.getByLabel("Patient ID").fill(`P-doclang-ui-${run}`);
  await dialog.getByLabel("Document * (required)", { exact: true }).selectOption({ label: `${titles.de} (v1)` });
  const known = dialog.getByLabel("Institution * (required)", { exact: true });
  if ((await known.count()) > 0) await known.selectOption({ label: "Another institution…" });
  await dialog.getByLabel("Institution ID").fill("e2e-doclang");
  await dialog.getByLabel("Ordered by").fill("Dr. E2E");
  await dialog.locator("summary", { hasText: "Documents in other languages" }).click();
  await dialog.getByLabel("Document in Türkçe (tr)").selectOption({ label: `${titles.tr} (v1) · Türkçe (tr)` });
  await expect(dialog.locator("summary", { hasText: "Documents in other languages (1)" })).toBeVisible();
  await expectAccessible(page, "the new-request form with a document in Turkish");
  await dialog.screenshot({ path: testInfo.outputPath("new-request-by-language-1280-en.png") });
  await dialog.getByRole("button", { name: "Create request" }).click();

  const handOver = page.getByRole("dialog", { name: "Hand the request over" });
  await handOver.getByRole("link", { name: "Open the request" }).click();
  await expect(page.getByRole("heading", { level: 1, name: "Signature request" })).toBeVisible();
  const byLanguage = page.getByRole("definition").filter({ hasText: titles.tr });
  await expect(byLanguage).toContainText("Main document");
  await expect(byLanguage).toContainText("Türkçe (tr)");
  await expect(byLanguage).toContainText("Not opened yet");
  await expectAccessible(page, "a request with a document in Turkish, not opened yet");
  await page.screenshot({ path: testInfo.outputPath("request-by-language-1280-en.png"), fullPage: true });

  // The same page in German on a phone.
  await page.setViewportSize({ width: 390, height: 844 });
  await page.context().addCookies([{ name: "lang", value: "de", url: page.url() }]);
  await page.reload();
  await expect(page.getByRole("heading", { level: 1, name: "Signaturanfrage" })).toBeVisible();
  await expect(page.getByRole("definition").filter({ hasText: titles.tr })).toContainText("Hauptdokument");
  expect(await hasHorizontalScroll(page)).toBe(false);
  await expectAccessible(page, "a request with a document in Turkish, in German on a phone");
  await page.screenshot({ path: testInfo.outputPath("request-by-language-390-de.png"), fullPage: true });
  await page.context().addCookies([{ name: "lang", value: "en", url: page.url() }]);
});
