import { spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { expect, test, type Locator } from "@playwright/test";
import { PNG } from "pngjs";
import { expectAccessible } from "./forms-support";
import { A4, darkShare, drawWithMouse, makeConsentPdf } from "./signing-support";
import { hasHorizontalScroll, shot, signIn, watchCspViolations } from "./support";

/**
 * The Documents section end to end, as a clinic without an integration uses it: upload a PDF,
 * draw the signature field on page 2, activate it, create a request in the UI, let the patient
 * sign on a phone, and file the sealed PDF (checked with pdfsig, and the ink inside the drawn
 * field with pdftoppm).
 */

let work: string;
test.beforeAll(() => {
  work = mkdtempSync(join(tmpdir(), "clinsign-e2e-documents-"));
});
test.afterAll(() => {
  if (work) rmSync(work, { recursive: true, force: true });
});

/** Where the test drags on page 2, in PDF points from the top-left corner. */
const DRAG = { from: { x: 80, y: 600 }, to: { x: 320, y: 690 } };

/** The number the field editor beside the pages shows (the document has one field here). */
async function numberOf(editor: Locator, label: string): Promise<number> {
  return Number(await editor.getByLabel(label, { exact: true }).inputValue());
}

async function fieldNumbers(editor: Locator) {
  return {
    page: await numberOf(editor, "Page"),
    x: await numberOf(editor, "x"),
    y: await numberOf(editor, "y"),
    width: await numberOf(editor, "Width"),
    height: await numberOf(editor, "Height"),
  };
}

test.describe("Documents section", () => {
  test.use({ viewport: { width: 1280, height: 800 } });

  test("upload, draw a field on page 2, activate, request in the UI, sign on a phone, sealed PDF with the ink in the field", async ({
    page,
    browser,
  }) => {
    test.setTimeout(180_000);
    const cspViolations = watchCspViolations(page);
    await signIn(page);
    await page.getByRole("navigation", { name: "Main navigation" }).getByRole("link", { name: "Documents" }).click();
    await expect(page.getByRole("heading", { level: 1, name: "Documents" })).toBeVisible();
    await expectAccessible(page, "documents list");

    await page.getByRole("link", { name: "Add document" }).first().click();
    await expect(page.getByRole("heading", { level: 1, name: "Add a document" })).toBeVisible();
    // A file that is not a PDF is refused before anything is sent.
    await page
      .getByLabel("PDF file")
      .setInputFiles({ name: "notes.pdf", mimeType: "application/pdf", buffer: Buffer.from("just text") });
    await expect(page.getByText("This file is not a PDF.")).toBeVisible();

    const pdf = await makeConsentPdf({ x: 60, y: 640, width: 240, height: 80 });
    const upload = page.getByRole("form", { name: "Upload a PDF" });
    await page
      .getByLabel("PDF file")
      .setInputFiles({ name: "Narkose-Aufklaerung.pdf", mimeType: "application/pdf", buffer: pdf });
    const name = `Anaesthesia consent ${Date.now()}`;
    await upload.getByLabel("Name", { exact: true }).fill(name);

    // Draw the field on page 2 by dragging.
    const second = page.getByRole("figure", { name: "Page 2 of 2" });
    await second.scrollIntoViewIfNeeded();
    await expect(second).toHaveAttribute("data-rendered", "true");
    const frame = (await second.locator("canvas").boundingBox())!;
    const scale = frame.width / A4.width;
    await page.mouse.move(frame.x + DRAG.from.x * scale, frame.y + DRAG.from.y * scale);
    await page.mouse.down();
    await page.mouse.move(frame.x + DRAG.to.x * scale, frame.y + DRAG.to.y * scale, { steps: 10 });
    await page.mouse.up();
    const placed = page.getByTestId("placed-field");
    await expect(placed).toHaveCount(1);
    const drawn = await fieldNumbers(upload);
    expect(drawn.page).toBe(2);
    // Within two points of where the mouse went (a pixel is more than a point at this width).
    expect(Math.abs(drawn.x - DRAG.from.x)).toBeLessThan(2);
    expect(Math.abs(drawn.y - DRAG.from.y)).toBeLessThan(2);
    expect(Math.abs(drawn.width - (DRAG.to.x - DRAG.from.x))).toBeLessThan(2);
    expect(Math.abs(drawn.height - (DRAG.to.y - DRAG.from.y))).toBeLessThan(2);

    // Keyboard placement: one point right, ten points up, and one point wider.
    await placed.focus();
    await page.keyboard.press("ArrowRight");
    await page.keyboard.press("Shift+ArrowUp");
    await page.keyboard.press("Alt+ArrowRight");
    const field = await fieldNumbers(upload);
    expect(field).toEqual({ page: 2, x: drawn.x + 1, y: drawn.y - 10, width: drawn.width + 1, height: drawn.height });
    // A typed number that would leave the page is pulled back onto it.
    await upload.getByLabel("x", { exact: true }).fill("590");
    await upload.getByLabel("x", { exact: true }).blur();
    expect(await numberOf(upload, "x")).toBeCloseTo(A4.width - field.width, 1);
    await upload.getByLabel("x", { exact: true }).fill(String(field.x));
    await upload.getByLabel("x", { exact: true }).blur();
    expect(await fieldNumbers(upload)).toEqual(field);
    await expectAccessible(page, "new document with the field editor");

    await page.getByRole("button", { name: "Create document" }).click();
    await expect(page).toHaveURL(/\/documents\/[0-9a-f-]{36}\?created=1$/);
    const documentId = /\/documents\/([0-9a-f-]{36})/.exec(page.url())![1]!;
    await expect(page.getByRole("heading", { level: 1, name })).toBeVisible();
    await expect(page.getByText("The document was created as a draft.")).toBeVisible();
    // The stored field is the one placed, on the rendered stored PDF.
    await expect(page.getByRole("figure", { name: "Page 2 of 2" }).getByTestId("placed-field")).toHaveCount(1);
    expect(await fieldNumbers(page.getByRole("complementary", { name: "Signature fields" }))).toEqual(field);

    // One decision: it applies at once and says so under the choice (no Save button).
    await expect(page.getByText("Applies as soon as you choose: no Save needed.")).toBeVisible();
    await page.getByRole("radio", { name: /^Active/ }).check();
    await expect(page.getByText("Availability changed to “Active”.")).toBeVisible();
    await expect(page.getByTestId("availability-state")).toHaveText("Saved.");
    await expectAccessible(page, "document detail");

    // A request from the UI, for a patient at the desk: the dialog opens here, this document chosen.
    const documentUrl = page.url();
    await page.getByRole("button", { name: "New signature request" }).click();
    const dialog = page.getByRole("dialog", { name: "New signature request" });
    await expect(dialog).toBeVisible();
    expect(page.url()).toBe(documentUrl);
    await expect(dialog.getByLabel("Document * (required)", { exact: true })).toHaveValue(documentId);
    const patientId = `P-doc-${Date.now()}`;
    await dialog.getByLabel("Patient ID").fill(patientId);
    // Institutions used before are offered; a new one is typed after "Another institution…".
    const institution = dialog.getByLabel("Institution * (required)", { exact: true });
    await expect(institution.or(dialog.getByLabel("Institution ID"))).toBeVisible();
    if (await institution.isVisible()) {
      await institution.selectOption({ label: "Another institution…" });
      await expect(dialog.getByLabel("Institution ID")).toBeFocused();
    }
    await dialog.getByLabel("Institution ID").fill("station-3");
    await dialog.getByLabel("Ordered by").fill("Dr. Weber");
    await dialog.getByRole("button", { name: "Create request" }).click();
    const handOver = page.getByRole("dialog", { name: "Hand the request over" });
    await expect(handOver).toBeVisible();
    const link = await handOver.getByTestId("signing-link").inputValue();
    expect(link).toMatch(/\/sign\/[A-Za-z0-9_-]+$/);
    await expect(handOver.getByRole("img", { name: "QR code of the signing link" })).toBeVisible();
    await handOver.getByRole("button", { name: "Done" }).click();
    // The next request offers the institution just used.
    await page.getByRole("button", { name: "New signature request" }).click();
    await expect(
      dialog.getByLabel("Institution * (required)", { exact: true }).getByRole("option", { name: "station-3" }),
    ).toBeAttached();
    await expect(
      dialog.getByText("The institutions you used before or gave their own branding.", { exact: false }),
    ).toBeVisible();
    await dialog.getByRole("button", { name: "Close" }).click();

    // The patient signs on their phone.
    const phone = await browser.newContext({
      viewport: { width: 390, height: 844 },
      deviceScaleFactor: 2,
      isMobile: true,
      hasTouch: true,
      locale: "en-GB",
    });
    const patient = await phone.newPage();
    await patient.goto(link);
    await expect(patient.getByRole("heading", { level: 1, name })).toBeVisible();
    await expect(patient.getByRole("figure", { name: "Page 2 of 2" }).getByTestId("pdf-field")).toBeAttached();
    expect(await hasHorizontalScroll(patient)).toBe(false);
    const canvas = patient.getByRole("img", { name: /^Signature area/ });
    await canvas.scrollIntoViewIfNeeded();
    await drawWithMouse(patient, canvas);
    await patient.getByLabel("I have read the document and agree to sign it electronically.").check();
    await patient.getByRole("button", { name: "Sign document" }).click();
    await expect(patient.getByRole("heading", { level: 1, name: "Thank you — your document is signed" })).toBeVisible({
      timeout: 60_000,
    });
    await phone.close();

    // Back at the desk: completed in the list and in the timeline.
    await page.goto(`/signature-requests?document=${documentId}`);
    const row = page.getByRole("row").filter({ hasText: patientId });
    await expect(row.getByText("Completed")).toBeVisible();
    await row.getByRole("link", { name: "Open" }).click();
    await expect(page.getByRole("heading", { level: 2, name: "Timeline" })).toBeVisible();
    const timeline = page.getByRole("list", { name: "Timeline" });
    await expect(timeline.getByText("Signed", { exact: true })).toBeVisible();
    await expect(timeline.getByText("Sealed", { exact: true })).toBeVisible();

    const [download] = await Promise.all([
      page.waitForEvent("download"),
      page.getByRole("button", { name: "Download signed PDF" }).click(),
    ]);
    const file = join(work, "signed.pdf");
    await download.saveAs(file);
    const sig = spawnSync("pdfsig", [file], { encoding: "utf8" });
    expect(sig.stdout, sig.stderr).toContain("Signature is Valid");
    expect(sig.stdout).toContain("Total document signed");
    const prefix = join(work, "page");
    const render = spawnSync("pdftoppm", ["-r", "72", "-f", "2", "-l", "2", "-png", file, prefix], {
      encoding: "utf8",
    });
    expect(render.status, render.stderr).toBe(0);
    const pngFile = ["page-2.png", "page-02.png"].map((n) => join(work, n)).find((path) => existsSync(path))!;
    const png = PNG.sync.read(readFileSync(pngFile));
    // 72 dpi: one PDF point is one pixel, origin top-left, as the field was placed.
    expect(darkShare(png, field.x, field.y, field.width, field.height)).toBeGreaterThan(0.01);
    // Beside the field the page stays blank.
    expect(
      darkShare(png, field.x + field.width + 10, field.y, A4.width - field.x - field.width - 20, field.height),
    ).toBe(0);
    expect(cspViolations).toEqual([]);
  });

  test("the list at phone width, filters in the URL, and the refusal to delete a document with requests", async ({
    page,
  }) => {
    await page.setViewportSize({ width: 390, height: 844 });
    await signIn(page);
    await page.goto("/documents?availability=active");
    await expect(page.getByLabel("Availability")).toHaveValue("active");
    await expect(page.getByRole("table", { name: "Documents" })).toBeVisible();
    expect(await hasHorizontalScroll(page)).toBe(false);
    await expectAccessible(page, "documents list at 390 px");
    await page.getByRole("searchbox", { name: "Search by name" }).fill("Anaesthesia consent");
    await expect(page).toHaveURL(/q=Anaesthesia\+consent/);
    const first = page.getByRole("table", { name: "Documents" }).getByRole("link").first();
    await first.click();
    await expect(page.getByRole("heading", { level: 2, name: "Version history" })).toBeVisible();
    // At the desk's phone width too: the request dialog opens here with this document chosen.
    const documentId = /\/documents\/([0-9a-f-]{36})/.exec(page.url())![1]!;
    await page.getByRole("button", { name: "New signature request" }).click();
    const dialog = page.getByRole("dialog", { name: "New signature request" });
    await expect(dialog.getByLabel("Document * (required)", { exact: true })).toHaveValue(documentId);
    await shot(page, "document-new-request-en-390");
    await dialog.getByRole("button", { name: "Close" }).click();
    await page.getByRole("button", { name: "Deutsch" }).click();
    await page.getByRole("button", { name: "Neue Signaturanfrage" }).click();
    const dialogDe = page.getByRole("dialog", { name: "Neue Signaturanfrage" });
    await expect(dialogDe.getByLabel("Dokument * (Pflichtfeld)", { exact: true })).toHaveValue(documentId);
    expect(await hasHorizontalScroll(page)).toBe(false);
    await shot(page, "document-new-request-de-390");
    await page.setViewportSize({ width: 1280, height: 800 });
    await shot(page, "document-new-request-de-1280");
    await dialogDe.getByRole("button", { name: "Schließen" }).click();
    await page.getByRole("button", { name: "English" }).click();
    await page.setViewportSize({ width: 390, height: 844 });

    // The filing at the hospital (issue 34): by keyboard, saved apart from the content, kept.
    const filing = page.getByRole("form", { name: "Filing at the hospital" });
    const kdl = filing.getByLabel("Document type (KDL)");
    await expect(kdl).toHaveValue("");
    await expect(kdl.locator("option").first()).toHaveText("Default: Sonstige Einwilligung/Erklärung (AM050199)");
    await kdl.selectOption({ label: "Anästhesieaufklärungsbogen (AM010301)" });
    await filing.getByRole("radio", { name: /^Restricted/ }).focus();
    await page.keyboard.press("Space");
    await filing.getByRole("button", { name: "Save filing" }).press("Enter");
    await expect(filing.getByRole("status")).toHaveText("Filing saved.");
    expect(await hasHorizontalScroll(page)).toBe(false);
    await expectAccessible(page, "document filing at 390 px");
    await shot(page, "document-filing-en-390");
    await page.reload();
    await expect(kdl).toHaveValue("AM010301");
    await expect(filing.getByRole("radio", { name: /^Restricted/ })).toBeChecked();
    await page.getByRole("button", { name: "Deutsch" }).click();
    const ablage = page.getByRole("form", { name: "Ablage im Krankenhaus" });
    await expect(ablage.getByRole("radio", { name: /^Eingeschränkt/ })).toBeChecked();
    await ablage.getByRole("radio", { name: /^Normal/ }).check();
    await ablage.getByLabel("Dokumentart (KDL)").selectOption("");
    await ablage.getByRole("button", { name: "Ablage speichern" }).click();
    await expect(ablage.getByRole("status")).toHaveText("Ablage gespeichert.");
    await expectAccessible(page, "document filing, German, at 390 px");
    await shot(page, "document-filing-de-390");
    await page.getByRole("button", { name: "English" }).click();

    await page.getByRole("button", { name: "Delete" }).click();
    const confirm = page.getByRole("alertdialog");
    await confirm.getByRole("button", { name: "Delete document" }).click();
    await expect(confirm.getByText(/^Not deleted: /)).toBeVisible();
    await page.goBack();
    await expect(page.getByRole("searchbox", { name: "Search by name" })).toHaveValue("Anaesthesia consent");
  });
});
