import { expect, test, type APIRequestContext, type Page } from "@playwright/test";
import {
  createActiveTemplate,
  createEmbedSession,
  darkLogoPng,
  expectAccessible,
  staffSignIn,
  type Staff,
} from "./forms-support";
import { API_URL, hasHorizontalScroll, shot } from "./support";

/**
 * One submission of a patient through the embed session door (the session's config names the
 * patient): a consent form the patient signed (a drawn signature answer).
 */
async function patientWithSubmission(
  request: APIRequestContext,
  staff: Staff,
  patient: { rnummer: string; phone?: string },
) {
  const template = await createActiveTemplate(request, staff, `Erasure ${patient.rnummer}`, [
    { id: "1", type: "text", key: "note", label: "Note" },
    { id: "2", type: "signature", key: "consent", label: "Consent" },
  ]);
  const embedSession = await createEmbedSession(request, staff, template, patient);
  const signature = `data:image/png;base64,${darkLogoPng().toString("base64")}`;
  const response = await request.post(`${API_URL}/api/embed/submit`, {
    data: { sessionId: embedSession.sessionId, values: { note: `Answer of ${patient.rnummer}`, consent: signature } },
  });
  expect(response.status(), await response.text()).toBe(200);
}

/** A German mobile number no other run uses, in E.164 and as staff type it nationally. */
function mobileNumber(): { e164: string; national: string } {
  const subscriber = String(Date.now() % 10_000_000).padStart(7, "0");
  return { e164: `+49170${subscriber}`, national: `0170 ${subscriber}` };
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
  await patientWithSubmission(request, staff, { rnummer });
  await page.setViewportSize({ width: 1280, height: 800 });

  await page.getByRole("navigation").getByRole("link", { name: "Patient data" }).click();
  await expect(page.getByRole("heading", { level: 1, name: "Patient data" })).toBeVisible();
  await expectAccessible(page, "patient data, empty");

  // Nothing named: the first field says so and takes the focus.
  await page.getByRole("button", { name: "Check what is held" }).click();
  await expect(page.getByText("Enter at least one of patient ID, case number or mobile number.").first()).toBeVisible();
  await expect(page.getByLabel("Patient ID")).toBeFocused();
  await expectAccessible(page, "patient data, nothing named");

  // A mobile number that is no number: the field says so.
  await page.getByLabel("Mobile number").fill("0170 12");
  await page.getByRole("button", { name: "Check what is held" }).click();
  await expect(page.getByText("Enter a phone number, e.g. 0170 1234567 or +491701234567.")).toBeVisible();
  await expect(page.getByLabel("Mobile number")).toBeFocused();
  await page.getByLabel("Mobile number").fill("");

  // The dry run: what is held, nothing changed yet; the signed consent is flagged.
  await caseNumber(page).fill(rnummer);
  await page.getByRole("button", { name: "Check what is held" }).click();
  const report = page.getByRole("table", { name: "Records per kind" });
  await expect(report.getByRole("row").filter({ hasText: "Submissions" })).toContainText("1 signed");
  await expect(report.getByRole("row").filter({ hasText: "Embed sessions" })).toContainText("1");
  await expect(page.getByText("Signed consents: a retention duty usually applies")).toBeVisible();
  await expect(page.getByText("§630f Abs. 3 BGB").first()).toBeVisible();
  await expectAccessible(page, "patient data, report");
  await shot(page, "patient-data-report-en-desktop");

  // Confirm: the dialog lists what goes, warns about the retention duty and asks for the case number again and a reason.
  await page.getByRole("button", { name: "Erase permanently" }).click();
  const dialog = page.getByRole("alertdialog", { name: "Erase this patient's data permanently?" });
  await expect(dialog).toContainText("cannot be undone");
  await expect(dialog.getByRole("region", { name: "What will be erased" })).toContainText("1 signed");
  await expect(dialog.getByText("Signed consents: a retention duty usually applies")).toBeVisible();
  const eraseNow = dialog.getByRole("button", { name: "Erase now" });
  await expect(eraseNow).toBeDisabled();
  await shot(page, "patient-data-confirm-open-en-desktop");
  const confirmation = dialog.getByLabel("Type the patient identifier to confirm");
  await confirmation.fill(`${rnummer}-X`);
  await dialog.getByLabel("Reason for erasure").focus();
  await expect(dialog.getByText("This does not match the case number above.")).toBeVisible();
  await expect(eraseNow).toBeDisabled();
  await confirmation.fill(rnummer);
  await dialog.getByLabel("Reason for erasure").fill("ab");
  await confirmation.focus();
  await expect(dialog.getByText("Enter 3 to 500 characters.")).toBeVisible();
  await expect(eraseNow).toBeDisabled();
  const reason = "Art. 17 request; no treatment took place";
  await dialog.getByLabel("Reason for erasure").fill(reason);
  await expect(eraseNow).toBeEnabled();
  await expectAccessible(page, "patient data, confirm");
  await shot(page, "patient-data-confirm-en-desktop");
  await page.setViewportSize({ width: 390, height: 844 });
  await shot(page, "patient-data-confirm-en-phone");
  await page.setViewportSize({ width: 1280, height: 800 });
  // By keyboard.
  await eraseNow.focus();
  await page.keyboard.press("Enter");
  await expect(page.getByRole("heading", { name: "Erased", exact: true })).toBeVisible();
  await expect(page.getByTestId("erasure-id")).toHaveText(/^[0-9a-f-]{36}$/);
  await expect(page.getByTestId("erasure-reason")).toHaveText(reason);
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
  await patientWithSubmission(request, staff, { rnummer });
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
  await staffMutation(staff, "patients.erase", {
    selector: { rnummer },
    dryRun: false,
    confirmation: rnummer,
    reason: "e2e: test patient",
  });
  await staff.context.close();
});

test("the page on a phone, in German; the patient named by a national mobile number", async ({ browser, request }) => {
  const staff = await staffSignIn(browser, "erasure-phone");
  const page = staff.page;
  const rnummer = `R-PHONE-${Date.now()}`;
  const mobile = mobileNumber();
  await patientWithSubmission(request, staff, { rnummer, phone: mobile.e164 });
  await staff.context.addCookies([{ name: "lang", value: "de", url: page.url() }]);
  await page.setViewportSize({ width: 390, height: 844 });
  await page.goto("/patient-data");
  await expect(page.getByRole("heading", { level: 1, name: "Patientendaten" })).toBeVisible();
  await shot(page, "patient-data-de-phone");
  // National, as the new-request forms take it (the organization's country: Germany).
  await page.getByLabel("Mobilnummer").fill(mobile.national);
  await page.getByRole("button", { name: "Gespeicherte Daten prüfen" }).click();
  const report = page.getByRole("table", { name: "Datensätze je Art" });
  await expect(report.getByRole("row").filter({ hasText: "Einsendungen" })).toContainText("1 unterschrieben");
  await expect(page.getByText("Unterschriebene Einwilligungen: Meist gilt eine Aufbewahrungspflicht")).toBeVisible();
  expect(await hasHorizontalScroll(page)).toBe(false);
  await expectAccessible(page, "patient data, German phone");
  await shot(page, "patient-data-report-de-phone");
  // Leave the patient erased, so the demo organization keeps no test patient: the number typed again, and why.
  await page.getByRole("button", { name: "Endgültig löschen" }).click();
  const dialog = page.getByRole("alertdialog", { name: "Daten dieser Person endgültig löschen?" });
  await expect(dialog.getByText("Unterschriebene Einwilligungen: Meist gilt eine Aufbewahrungspflicht")).toBeVisible();
  await dialog.getByLabel("Zur Bestätigung die Patientenkennung eingeben").fill(mobile.national);
  await dialog.getByLabel("Grund der Löschung").fill("Antrag nach Art. 17 DSGVO, keine Behandlung erfolgt");
  await expectAccessible(page, "patient data, German confirm on a phone");
  await shot(page, "patient-data-confirm-de-phone");
  await page.setViewportSize({ width: 1280, height: 800 });
  await shot(page, "patient-data-confirm-de-desktop");
  await page.setViewportSize({ width: 390, height: 844 });
  await dialog.getByRole("button", { name: "Jetzt löschen" }).click();
  await expect(page.getByRole("heading", { name: "Gelöscht", exact: true })).toBeVisible();
  await expect(page.getByTestId("erasure-reason")).toHaveText("Antrag nach Art. 17 DSGVO, keine Behandlung erfolgt");
  expect(await hasHorizontalScroll(page)).toBe(false);
  await shot(page, "patient-data-receipt-de-phone");
  await staff.context.close();
});
