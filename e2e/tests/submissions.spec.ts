import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { expect, test, type Page } from "@playwright/test";
import { createActiveTemplate, createEmbedSession, expectAccessible, staffSignIn, type Staff } from "./forms-support";
import { API_URL, hasHorizontalScroll, WEB_PORT } from "./support";

let staff: Staff;
let identifier: string;
let title: string;
const rnummer = `R-${Date.now()}`;

/** F10 through REST with an embed session: one ordinary answer and one that a spreadsheet would run as a formula. */
test.beforeAll(async ({ browser, request }) => {
  staff = await staffSignIn(browser, "E2E submissions");
  title = `Aufnahmebogen ${Date.now()}`;
  identifier = await createActiveTemplate(request, staff, title, [
    { id: "1", type: "text", key: "fullName", label: "Vollständiger Name", required: true },
    {
      id: "2",
      type: "select",
      key: "insurance",
      label: "Versicherung",
      options: [
        { value: "public", label: "Gesetzlich" },
        { value: "private", label: "Privat" },
      ],
    },
    { id: "3", type: "textarea", key: "notes", label: "Anmerkungen" },
  ]);
  for (const values of [
    { fullName: "Erika Mustermann", insurance: "private", notes: "=cmd|' /C calc'!A0" },
    { fullName: "Max Muster", insurance: "public" },
  ]) {
    const { sessionId } = await createEmbedSession(request, staff, identifier, { rnummer });
    const response = await request.post(`${API_URL}/api/embed/submit`, { data: { sessionId, values } });
    expect(response.status(), await response.text()).toBe(200);
  }
});
test.afterAll(async () => {
  await staff?.context.close();
});

async function findSubmission(page: Page) {
  await page.goto("/submissions");
  await expect(page.getByRole("heading", { level: 1, name: "Submissions" })).toBeVisible();
  await page.getByLabel("Form", { exact: true }).selectOption(identifier);
  await page.getByLabel("Case number", { exact: true }).fill(rnummer);
  await page.getByRole("button", { name: "Apply filters" }).click();
  await expect(page).toHaveURL(new RegExp(`template=${identifier}`));
  const table = page.getByRole("table", { name: "Submissions, newest first" });
  await expect(table.getByRole("row")).toHaveCount(3);
  return table;
}

for (const viewport of [
  { width: 1280, height: 800 },
  { width: 390, height: 844 },
]) {
  test(`find a submission by form and case number, open it, go back to the filtered list (${viewport.width}×${viewport.height})`, async () => {
    const page = await staff.context.newPage();
    await page.setViewportSize(viewport);
    const table = await findSubmission(page);
    // The list names the patient (the form's name field) with the case number, not other answers.
    const maxRow = table.getByRole("row").filter({ hasText: "Max Muster" });
    await expect(maxRow).toContainText(`Max MusterCase number ${rnummer}`);
    await expect(table.getByRole("columnheader", { name: "Name / case number" })).toBeVisible();
    await expect(table.getByText("Gesetzlich")).toHaveCount(0);
    await expect(table.getByText("rnummer")).toHaveCount(0);
    await expectAccessible(page, `submissions list ${viewport.width}`);
    expect(await hasHorizontalScroll(page)).toBe(false);

    await table
      .getByRole("link", { name: /^Open the submission of/ })
      .last()
      .click();
    await expect(page.getByRole("heading", { level: 1, name: /^Submission of/ })).toBeVisible();
    await expect(page.getByText("Vollständiger Name")).toBeVisible();
    await expect(page.getByText("Erika Mustermann")).toBeVisible();
    await expect(page.getByText("Privat", { exact: true })).toBeVisible();
    // After a client-side navigation Next.js streams the page title in after the content.
    await expect(page).toHaveTitle(/\S/);
    await expectAccessible(page, `submission detail ${viewport.width}`);

    await page.goBack();
    await expect(page).toHaveURL(new RegExp(`rnummer=${rnummer}`));
    await expect(page.getByLabel("Case number", { exact: true })).toHaveValue(rnummer);
    await page.close();
  });
}

/** Clicks "Export CSV" and reads the file: its BOM, then its lines. */
async function downloadCsv(page: Page, path: string): Promise<string[]> {
  const download = page.waitForEvent("download");
  await page.getByRole("link", { name: "Export CSV" }).click();
  await (await download).saveAs(path);
  const bytes = readFileSync(path);
  expect([...bytes.subarray(0, 3)]).toEqual([0xef, 0xbb, 0xbf]);
  return bytes.subarray(3).toString("utf8").split("\r\n").filter(Boolean);
}

test("download the filter as CSV (rows, Excel-safe) and one submission as a PDF", async () => {
  const page = await staff.context.newPage();
  await page.setViewportSize({ width: 1280, height: 800 });
  await findSubmission(page);
  const dir = mkdtempSync(join(tmpdir(), "clinsign-e2e-"));

  // The organization writes German (the default): ;-separated for German Excel, labels as headers,
  // times on the Berlin clock.
  const lines = await downloadCsv(page, join(dir, "export.csv"));
  expect(lines[0]).toBe(
    "Einreichungs-ID;Eingereicht (Europe/Berlin);Formular;Formularversion;Fallnummer;Mobilnummer;Quelle;Vollständiger Name;Versicherung;Anmerkungen",
  );
  expect(lines).toHaveLength(3);
  expect(lines.some((line) => line.endsWith(`;Erika Mustermann;Privat;'=cmd|' /C calc'!A0`))).toBe(true);
  expect(
    lines.some((line) => line.includes(`;${title};1;${rnummer};;Eingebettetes Formular;Max Muster;Gesetzlich;`)),
  ).toBe(true);
  expect(lines[1]).toMatch(/^[0-9a-f-]{36};\d{2}\.\d{2}\.\d{4} \d{2}:\d{2}:\d{2};/);

  await page
    .getByRole("link", { name: /^Open the submission of/ })
    .last()
    .click();
  await expect(page.getByRole("heading", { level: 1, name: /^Submission of/ })).toBeVisible();
  const id = page.url().split("/").pop()!;
  const pdfDownload = page.waitForEvent("download");
  await page.getByRole("link", { name: "Download PDF" }).click();
  const pdfPath = join(dir, "submission.pdf");
  await (await pdfDownload).saveAs(pdfPath);
  const text = execFileSync("pdftotext", ["-layout", pdfPath, "-"], { encoding: "utf8" });
  for (const expected of [
    title,
    "Vollständiger Name",
    "Erika Mustermann",
    "Versicherung",
    "Privat",
    "Anmerkungen",
    rnummer,
    `Einreichung ${id}`,
    "Demo Clinic",
  ]) {
    expect(text).toContain(expected);
  }
  expect(text).toMatch(/SHA-256 [0-9a-f]{64}/);
  await page.close();
});

test("the clinic's output language and time zone, set on the Settings page, shape the CSV and the detail", async () => {
  const page = await staff.context.newPage();
  await page.setViewportSize({ width: 1280, height: 800 });
  const dir = mkdtempSync(join(tmpdir(), "clinsign-e2e-"));
  const setOutputs = async (language: string, zone: string, days: string) => {
    await page.goto("/settings");
    await page.getByLabel("Language of outputs").selectOption({ label: language });
    await page.getByLabel("Time zone").selectOption(zone);
    await page.getByLabel("Download period of the signed copy (days)").fill(days);
    await page.getByRole("button", { name: "Save changes" }).click();
    await expect(page.getByRole("status").filter({ hasText: "Settings saved." })).toBeVisible();
  };
  await setOutputs("English", "America/New_York", "90");
  try {
    await page.reload();
    await expect(page.getByLabel("Language of outputs")).toHaveValue("en");
    await expect(page.getByLabel("Time zone")).toHaveValue("America/New_York");
    await expect(page.getByLabel("Country of national phone numbers")).toHaveValue("DE");
    await expect(page.getByLabel("Download period of the signed copy (days)")).toHaveValue("90");
    await expectAccessible(page, "settings with outputs");
    await page.screenshot({ path: join(dir, "settings-en.png"), fullPage: true });

    await findSubmission(page);
    const lines = await downloadCsv(page, join(dir, "export-en.csv"));
    expect(lines[0]).toBe(
      "Submission ID,Submitted (America/New_York),Form,Form version,Case number,Mobile number,Source,Vollständiger Name,Versicherung,Anmerkungen",
    );
    expect(lines[1]).toMatch(/^[0-9a-f-]{36},\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2},/);
    expect(lines.some((line) => line.includes(",Embedded form,Max Muster,Gesetzlich,"))).toBe(true);

    // The detail shows the submission on the clinic's clock, with the zone named.
    await page
      .getByRole("link", { name: /^Open the submission of/ })
      .last()
      .click();
    await expect(page.getByRole("heading", { level: 1, name: /^Submission of/ })).toBeVisible();
    await expect(page.getByRole("definition").filter({ hasText: /EST|EDT|GMT-[45]/ })).toBeVisible();
  } finally {
    await setOutputs("German", "Europe/Berlin", "30");
  }
  await page.close();
});

test("pages fetched as prefetches carry their CSP and X-Frame-Options", async () => {
  for (const headers of [{ purpose: "prefetch" }, { "sec-purpose": "prefetch" }] as Record<string, string>[]) {
    const response = await staff.context.request.get(`http://localhost:${WEB_PORT}/submissions`, {
      headers,
      maxRedirects: 0,
    });
    expect(response.status(), JSON.stringify(headers)).toBe(200);
    expect(response.headers()["content-security-policy"]).toMatch(/script-src 'self' 'nonce-[^']+'/);
    expect(response.headers()["x-frame-options"]).toBe("DENY");
  }
  // The router's own prefetch (an RSC request; Next first redirects it to its cache-busting URL).
  const router = await staff.context.request.get(`http://localhost:${WEB_PORT}/submissions`, {
    headers: { "next-router-prefetch": "1", rsc: "1" },
  });
  expect(router.status()).toBe(200);
  expect(router.headers()["content-security-policy"]).toMatch(/script-src 'self' 'nonce-[^']+'/);
  expect(router.headers()["x-frame-options"]).toBe("DENY");
  // Signed out, a prefetch is sent to the login page like any other request, with the headers too.
  const signedOut = await staff.context.browser()!.newContext();
  const response = await signedOut.request.get(`http://localhost:${WEB_PORT}/submissions`, {
    headers: { purpose: "prefetch" },
    maxRedirects: 0,
  });
  expect(response.status()).toBe(307);
  expect(response.headers()["location"]).toContain("/login");
  expect(response.headers()["content-security-policy"]).toBeTruthy();
  expect(response.headers()["x-frame-options"]).toBe("DENY");
  await signedOut.close();
});

for (const lang of ["en", "de"] as const) {
  test(`screenshots of the submissions list, a detail and the settings (${lang}, 1280×800)`, async ({ browser }) => {
    const context = await browser.newContext({
      baseURL: `http://localhost:${WEB_PORT}`,
      locale: lang === "de" ? "de-DE" : "en-GB",
      storageState: await staff.context.storageState(),
    });
    await context.addCookies([{ name: "lang", value: lang, url: `http://localhost:${WEB_PORT}` }]);
    const page = await context.newPage();
    await page.setViewportSize({ width: 1280, height: 800 });
    const dir = process.env.E2E_SCREENSHOTS ?? mkdtempSync(join(tmpdir(), "clinsign-shots-"));
    await page.goto(`/submissions?template=${identifier}`);
    const table = page.getByRole("table");
    await expect(table.getByText("Max Muster")).toBeVisible();
    await expect(
      table.getByRole("columnheader", { name: lang === "de" ? "Name / Fallnummer" : "Name / case number" }),
    ).toBeVisible();
    expect(await hasHorizontalScroll(page)).toBe(false);
    await page.screenshot({ path: join(dir, `submissions-${lang}.png`) });
    await table.getByRole("row").filter({ hasText: "Erika Mustermann" }).getByRole("link").click();
    await expect(page).toHaveURL(/\/submissions\/[0-9a-f-]{36}$/);
    await expect(
      page.getByRole("heading", { level: 1, name: lang === "de" ? /^Einsendung vom/ : /^Submission of/ }),
    ).toBeVisible();
    await page.screenshot({ path: join(dir, `submission-${lang}.png`), fullPage: true });
    await page.goto("/settings");
    await expect(page.getByLabel(lang === "de" ? "Sprache der Ausgaben" : "Language of outputs")).toHaveValue("de");
    expect(await hasHorizontalScroll(page)).toBe(false);
    await page.screenshot({ path: join(dir, `settings-${lang}.png`), fullPage: true });
    await context.close();
  });
}
