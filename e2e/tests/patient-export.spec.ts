import { readFileSync } from "node:fs";
import { expect, test } from "@playwright/test";
import { createActiveTemplate, expectAccessible, staffSignIn } from "./forms-support";
import { API_URL, shot } from "./support";

/**
 * The patient access export from the Patient data page: after the check, "Download a copy (ZIP)"
 * posts the selector as a plain form and the browser saves the ZIP (index.html and manifest.json
 * with the patient's submissions). Nothing is erased, so the demo organization is left as it was
 * apart from the patient's own submissions made here.
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
  await expectAccessible(page, "patient data with the export");
  await shot(page, "patient-export");

  // Keyboard: the button takes the focus and Enter starts the download.
  await download.focus();
  const [file] = await Promise.all([page.waitForEvent("download"), page.keyboard.press("Enter")]);
  expect(file.suggestedFilename()).toMatch(/^patient-export-\d{4}-\d{2}-\d{2}\.zip$/);
  const zip = readFileSync((await file.path())!);
  expect(zip.subarray(0, 4).toString("latin1")).toBe("PK\x03\x04");
  // Stored entries' names are in the clear in a ZIP; the manifest is deflated, its name is not.
  expect(zip.includes(Buffer.from("manifest.json"))).toBe(true);
  expect(zip.includes(Buffer.from("index.html"))).toBe(true);
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
