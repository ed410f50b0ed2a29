import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { expect, test, type Page } from "@playwright/test";
import { createActiveTemplate, createEmbedSession, expectAccessible, staffSignIn, type Staff } from "./forms-support";
import { API_URL, hasHorizontalScroll } from "./support";

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
    { id: "2", type: "select", key: "insurance", label: "Versicherung", options: [{ value: "public", label: "Gesetzlich" }, { value: "private", label: "Privat" }] },
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
  await page.getByLabel("Case number (rnummer)").fill(rnummer);
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
    await expect(table.getByText("Max Muster")).toHaveCount(0); // the list shows facts, not answers
    await expectAccessible(page, `submissions list ${viewport.width}`);
    expect(await hasHorizontalScroll(page)).toBe(false);

    await table.getByRole("link", { name: /^Open the submission of/ }).last().click();
    await expect(page.getByRole("heading", { level: 1, name: /^Submission of/ })).toBeVisible();
    await expect(page.getByText("Vollständiger Name")).toBeVisible();
    await expect(page.getByText("Erika Mustermann")).toBeVisible();
    await expect(page.getByText("Privat", { exact: true })).toBeVisible();
    await expectAccessible(page, `submission detail ${viewport.width}`);

    await page.goBack();
    await expect(page).toHaveURL(new RegExp(`rnummer=${rnummer}`));
    await expect(page.getByLabel("Case number (rnummer)")).toHaveValue(rnummer);
    await page.close();
  });
}

test("download the filter as CSV (rows, Excel-safe) and one submission as a PDF", async () => {
  const page = await staff.context.newPage();
  await page.setViewportSize({ width: 1280, height: 800 });
  await findSubmission(page);
  const dir = mkdtempSync(join(tmpdir(), "clinsign-e2e-"));

  const csvDownload = page.waitForEvent("download");
  await page.getByRole("link", { name: "Export CSV" }).click();
  const csvPath = join(dir, "export.csv");
  await (await csvDownload).saveAs(csvPath);
  const bytes = readFileSync(csvPath);
  expect([...bytes.subarray(0, 3)]).toEqual([0xef, 0xbb, 0xbf]);
  const lines = bytes.subarray(3).toString("utf8").split("\r\n").filter(Boolean);
  expect(lines[0]).toBe("submission_id,submitted_at,template,template_version,rnummer,phone,actor_type,fullName,insurance,notes");
  expect(lines).toHaveLength(3);
  expect(lines.some((line) => line.endsWith(`,Erika Mustermann,Privat,'=cmd|' /C calc'!A0`))).toBe(true);
  expect(lines.some((line) => line.includes(",Max Muster,Gesetzlich,"))).toBe(true);

  await page.getByRole("link", { name: /^Open the submission of/ }).last().click();
  await expect(page.getByRole("heading", { level: 1, name: /^Submission of/ })).toBeVisible();
  const id = page.url().split("/").pop()!;
  const pdfDownload = page.waitForEvent("download");
  await page.getByRole("link", { name: "Download PDF" }).click();
  const pdfPath = join(dir, "submission.pdf");
  await (await pdfDownload).saveAs(pdfPath);
  const text = execFileSync("pdftotext", ["-layout", pdfPath, "-"], { encoding: "utf8" });
  for (const expected of [title, "Vollständiger Name", "Erika Mustermann", "Versicherung", "Privat", "Anmerkungen", rnummer, `Submission ${id}`]) {
    expect(text).toContain(expected);
  }
  expect(text).toMatch(/SHA-256 [0-9a-f]{64}/);
  await page.close();
});
