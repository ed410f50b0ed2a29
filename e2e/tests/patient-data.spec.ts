import { expect, test, type APIRequestContext, type Page } from "@playwright/test";
import { createActiveTemplate, createEmbedSession, expectAccessible, staffSignIn, type Staff } from "./forms-support";
import { API_URL, hasHorizontalScroll, shot } from "./support";

/** One submission of a patient through the embed session door (the session's config names the patient). */
async function patientWithSubmission(request: APIRequestContext, staff: Staff, rnummer: string) {
  const template = await createActiveTemplate(request, staff, `Erasure ${rnummer}`, [
    { id: "1", type: "text", key: "note", label: "Note" },
  ]);
  const session = await createEmbedSession(request, staff, template, { rnummer });
  const response = await request.post(`${API_URL}/api/embed/submit`, {
    data: { sessionId: session.sessionId, values: { note: `Answer of ${rnummer}` } },
  });
  expect(response.status(), await response.text()).toBe(200);
}

/** A staff tRPC mutation with the admin's cookie (`POST /trpc/<path>`). */
async function staffMutation<T>(staff: Staff, path: string, input: unknown): Promise<T> {
  const response = await staff.context.request.post(`/trpc/${path}`, { data: input });
  const text = await response.text();
  expect(response.status(), `${path}: ${text}`).toBe(200);
  return (JSON.parse(text) as { result: { data: T } }).result.data;
}

const caseNumber = (page: Page) => page.getByLabel("Case number");

test("an admin checks what is held about a patient, erases it and keeps the receipt", async ({ browser, request }) => {
  const staff = await staffSignIn(browser, "erasure");
  const page = staff.page;
  const rnummer = `R-ERASE-${Date.now()}`;
  await patientWithSubmission(request, staff, rnummer);
  await page.setViewportSize({ width: 1280, height: 800 });

  await page.getByRole("navigation").getByRole("link", { name: "Patient data" }).click();
  await expect(page.getByRole("heading", { level: 1, name: "Patient data" })).toBeVisible();
  await expectAccessible(page, "patient data, empty");

  // Nothing named: the first field says so and takes the focus.
  await page.getByRole("button", { name: "Check what is held" }).click();
  await expect(page.getByText("Enter at least one of patient ID, case number or mobile number.").first()).toBeVisible();
  await expect(page.getByLabel("Patient ID")).toBeFocused();
  await expectAccessible(page, "patient data, nothing named");

  // The dry run: what is held, nothing changed yet.
  await caseNumber(page).fill(rnummer);
  await page.getByRole("button", { name: "Check what is held" }).click();
  const report = page.getByRole("table", { name: "Records per kind" });
  await expect(report.getByRole("row").filter({ hasText: "Submissions" })).toContainText("1");
  await expect(report.getByRole("row").filter({ hasText: "Embed sessions" })).toContainText("1");
  await expectAccessible(page, "patient data, report");
  await shot(page, "patient-data-report-en-desktop");

  // Confirm, by keyboard: the dialog names what goes and that it cannot be undone.
  await page.getByRole("button", { name: "Erase permanently" }).click();
  const dialog = page.getByRole("alertdialog", { name: "Erase this patient's data permanently?" });
  await expect(dialog).toContainText("cannot be undone");
  await expectAccessible(page, "patient data, confirm");
  await dialog.getByRole("button", { name: "Erase now" }).focus();
  await page.keyboard.press("Enter");
  await expect(page.getByRole("heading", { name: "Erased", exact: true })).toBeVisible();
  await expect(page.getByTestId("erasure-id")).toHaveText(/^[0-9a-f-]{36}$/);
  await expect(page.getByRole("status").filter({ hasText: "The patient's data was erased." })).toBeVisible();
  await expectAccessible(page, "patient data, receipt");
  await shot(page, "patient-data-receipt-en-desktop");

  // Again: nothing left.
  await page.getByRole("button", { name: "Erase another patient" }).click();
  await expect(page.getByLabel("Patient ID")).toBeFocused();
  await expect(caseNumber(page)).toHaveValue("");
  await expect(page.getByText("No record of this organization names this patient.")).toHaveCount(0);
  await caseNumber(page).fill(rnummer);
  await page.getByRole("button", { name: "Check what is held" }).click();
  await expect(page.getByText("No record of this organization names this patient.")).toBeVisible();
  await expectAccessible(page, "patient data, nothing found");
  await staff.context.close();
});

test("a legal hold keeps the records: the report says so and erasing is not offered", async ({ browser, request }) => {
  const staff = await staffSignIn(browser, "erasure-hold");
  const page = staff.page;
  const rnummer = `R-HOLD-${Date.now()}`;
  await patientWithSubmission(request, staff, rnummer);
  const hold = await staffMutation<{ id: string }>(staff, "retention.placeLegalHold", {
    selector: { rnummer },
    reason: "e2e: litigation",
  });
  try {
    await page.goto("/patient-data");
    await caseNumber(page).fill(rnummer);
    await page.getByRole("button", { name: "Check what is held" }).click();
    await expect(page.getByText("A legal hold keeps these records")).toBeVisible();
    await expect(page.getByRole("button", { name: "Erase permanently" })).toBeDisabled();
    await expectAccessible(page, "patient data, legal hold");
  } finally {
    await staffMutation(staff, "retention.releaseLegalHold", { id: hold.id });
  }
  // Released: the demo organization keeps no test patient.
  await staffMutation(staff, "patients.erase", { selector: { rnummer }, dryRun: false });
  await staff.context.close();
});

test("the page on a phone, in German", async ({ browser, request }) => {
  const staff = await staffSignIn(browser, "erasure-phone");
  const page = staff.page;
  const rnummer = `R-PHONE-${Date.now()}`;
  await patientWithSubmission(request, staff, rnummer);
  await staff.context.addCookies([{ name: "lang", value: "de", url: page.url() }]);
  await page.setViewportSize({ width: 390, height: 844 });
  await page.goto("/patient-data");
  await expect(page.getByRole("heading", { level: 1, name: "Patientendaten" })).toBeVisible();
  await shot(page, "patient-data-de-phone");
  await page.getByLabel("Fallnummer").fill(rnummer);
  await page.getByRole("button", { name: "Gespeicherte Daten prüfen" }).click();
  await expect(page.getByRole("table", { name: "Datensätze je Art" })).toBeVisible();
  expect(await hasHorizontalScroll(page)).toBe(false);
  await expectAccessible(page, "patient data, German phone");
  await shot(page, "patient-data-report-de-phone");
  // Leave the patient erased, so the demo organization keeps no test patient.
  await page.getByRole("button", { name: "Endgültig löschen" }).click();
  await page.getByRole("alertdialog").getByRole("button", { name: "Jetzt löschen" }).click();
  await expect(page.getByRole("heading", { name: "Gelöscht", exact: true })).toBeVisible();
  await shot(page, "patient-data-receipt-de-phone");
  await staff.context.close();
});
