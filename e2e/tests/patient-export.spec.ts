import { readFileSync } from "node:fs";
import { inflateRawSync } from "node:zlib";
import { expect, test } from "@playwright/test";
import { createActiveTemplate, expectAccessible, staffSignIn } from "./forms-support";
import { API_URL, shot, WEB_PORT } from "./support";

/** One entry of a ZIP, read through its central directory (stored or deflated, no ZIP64). */
function zipEntry(zip: Buffer, name: string): Buffer | null {
  const end = zip.lastIndexOf(Buffer.from([0x50, 0x4b, 0x05, 0x06]));
  let at = zip.readUInt32LE(end + 16);
  for (let n = zip.readUInt16LE(end + 10); n > 0; n--) {
    const method = zip.readUInt16LE(at + 10);
    const size = zip.readUInt32LE(at + 20);
    const nameLength = zip.readUInt16LE(at + 28);
    const skip = nameLength + zip.readUInt16LE(at + 30) + zip.readUInt16LE(at + 32);
    const offset = zip.readUInt32LE(at + 42);
    if (zip.toString("utf8", at + 46, at + 46 + nameLength) === name) {
      const start = offset + 30 + zip.readUInt16LE(offset + 26) + zip.readUInt16LE(offset + 28);
      const data = zip.subarray(start, start + size);
      return method === 8 ? inflateRawSync(data) : data;
    }
    at += 46 + skip;
  }
  return null;
}

/**
 * The patient access export from the Patient data page: after the check, the overview's language is
 * preselected from the patient's records; staff choose Turkish, "Download a copy (ZIP)" posts the
 * selector and the language as a plain form and the browser saves the ZIP: index.html (the page the
 * patient reads, in Turkish), the submission as a PDF and manifest.json. Nothing is erased, so the
 * demo organization is left as it was apart from the patient's own submissions made here.
 */
test("an admin downloads a patient's data as one ZIP from the Patient data page", async ({ browser, request }) => {
  const staff = await staffSignIn(browser, "patient export");
  const rnummer = `R-EXPORT-${Date.now()}`;
  const identifier = await createActiveTemplate(request, staff, "Export intake", [
    { id: "name", key: "name", label: "Name", type: "text" },
  ]);
  const submitted = await request.post(`${API_URL}/api/embed/submit`, {
    data: {
      token: staff.token,
      orgId: staff.orgId,
      templateIdentifier: identifier,
      rnummer,
      values: { name: "Erika Export" },
    },
  });
  expect(submitted.status(), await submitted.text()).toBe(200);
  const { submissionId } = (await submitted.json()) as { submissionId: string };

  const page = staff.page;
  await page.setViewportSize({ width: 1280, height: 800 });
  await page.goto("/patient-data");
  await page.getByLabel("Case number").fill(rnummer);
  await page.getByRole("button", { name: "Check what is held" }).click();
  const download = page.getByRole("button", { name: "Download a copy (ZIP)" });
  await expect(download).toBeVisible();
  // The language of the patient's page: preselected from what the patient answered in (the form's German).
  const language = page.getByLabel("Language of the patient's overview page");
  await expect(language).toHaveValue("de");
  await expect(page.getByText("Preselected: the language the patient last used.")).toBeVisible();
  await expectAccessible(page, "patient data with the export");
  await download.scrollIntoViewIfNeeded();
  await shot(page, "patient-export");
  await language.selectOption({ label: "Türkçe" });
  await expect(page.getByText("Preselected:")).toHaveCount(0);

  // Keyboard: the button takes the focus and Enter starts the download.
  await download.focus();
  const [file] = await Promise.all([page.waitForEvent("download"), page.keyboard.press("Enter")]);
  expect(file.suggestedFilename()).toMatch(/^patient-export-\d{4}-\d{2}-\d{2}\.zip$/);
  const zip = readFileSync((await file.path())!);
  expect(zip.subarray(0, 4).toString("latin1")).toBe("PK\x03\x04");
  const manifest = JSON.parse(zipEntry(zip, "manifest.json")!.toString("utf8")) as { language: string };
  expect(manifest.language).toBe("tr");
  const pdf = zipEntry(zip, `forms/${submissionId}.pdf`)!;
  expect(pdf.subarray(0, 5).toString("latin1")).toBe("%PDF-");

  // The page the patient reads, in Turkish, as a phone shows it: the form in words, its PDF linked.
  const html = zipEntry(zip, "index.html")!.toString("utf8");
  const reader = await staff.context.newPage();
  await reader.setViewportSize({ width: 390, height: 844 });
  await reader.setContent(html);
  await expect(reader.locator("html")).toHaveAttribute("lang", "tr");
  await expect(reader.getByRole("heading", { level: 1 })).toContainText("tarafından saklanan verileriniz");
  await expect(reader.getByRole("heading", { name: "“Export intake” formu" })).toBeVisible();
  await expect(reader.getByRole("link", { name: "Yanıtlarınız (PDF)" })).toHaveAttribute(
    "href",
    `forms/${submissionId}.pdf`,
  );
  await expect(reader.locator("body")).not.toContainText(submissionId);
  await expectAccessible(reader, "the export's overview page (Turkish, 390 px)");
  await shot(reader, "patient-export-overview-tr");
  await reader.close();
  // German on a phone: the same choice in German, nothing wider than the screen.
  const german = await browser.newContext({
    baseURL: `http://localhost:${WEB_PORT}`,
    viewport: { width: 390, height: 844 },
    locale: "de-DE",
    storageState: await staff.context.storageState(),
  });
  await german.addCookies([{ name: "lang", value: "de", url: `http://localhost:${WEB_PORT}` }]);
  const phone = await german.newPage();
  await phone.goto("/patient-data");
  await phone.getByLabel("Fallnummer").fill(rnummer);
  await phone.getByRole("button", { name: "Gespeicherte Daten prüfen" }).click();
  await expect(phone.getByLabel("Sprache der Übersichtsseite für die Person")).toHaveValue("de");
  await expect(phone.getByText("Vorausgewählt: die Sprache, die die Person zuletzt genutzt hat.")).toBeVisible();
  expect(await phone.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth)).toBe(true);
  await expectAccessible(phone, "patient data with the export (German, 390 px)");
  await phone.getByRole("button", { name: "Kopie herunterladen (ZIP)" }).scrollIntoViewIfNeeded();
  await shot(phone, "patient-export-de-390");
  await german.close();

  // The page stays as it was: nothing erased, the report still there.
  await expect(page.getByRole("button", { name: "Erase permanently" })).toBeVisible();

  // The export is in the audit log, with counts and without the case number.
  const audit = await staff.context.request.get("/trpc/audit.entries", {
    params: { input: JSON.stringify({ action: "patient.exported", limit: 5 }) },
  });
  expect(audit.status()).toBe(200);
  const entries = (await audit.json()) as { result: { data: { items: { metadata: unknown }[] } } };
  const latest = JSON.stringify(entries.result.data.items[0]!.metadata);
  expect(latest).toContain('"submissions":1');
  expect(latest).not.toContain(rnummer);
  expect(latest).not.toContain(submissionId);
  await staff.context.close();
});
