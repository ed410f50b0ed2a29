import { expect, test } from "@playwright/test";
import { expectAccessible, staffSignIn, type Staff } from "./forms-support";
import { makeConsentPdf, requestSignature, startFileServer, type FileServer } from "./signing-support";

const FIELD = { page: 1, x: 60, y: 640, width: 240, height: 80 };
const run = Date.now();

let staff: Staff;
let files: FileServer;

test.beforeAll(async ({ browser }) => {
  files = await startFileServer({ "/consent.pdf": await makeConsentPdf(FIELD) });
  staff = await staffSignIn(browser, "E2E reminders");
});
test.afterAll(async () => {
  // The demo organization is shared with the other specs: no reminders, as before.
  if (staff) {
    await staff.page.goto("/settings");
    await staff.page.getByLabel("Remind unsigned requests after (days)").fill("0");
    await staff.page.getByRole("button", { name: "Save changes" }).click();
    await expect(staff.page.getByRole("status").filter({ hasText: "Settings saved." })).toBeVisible();
  }
  await files?.close();
  await staff?.context.close();
});

test("staff set the reminder period, and a declined request's timeline shows the e-mail notice to staff", async ({
  browser,
  request,
}) => {
  const page = staff.page;
  await page.goto("/settings");
  await expect(page.getByRole("heading", { level: 1, name: "Settings" })).toBeVisible();
  const days = page.getByLabel("Remind unsigned requests after (days)");
  await days.fill("91");
  await page.getByRole("button", { name: "Save changes" }).click();
  await expect(page.getByText("Enter a whole number of days from 0 to 90.").first()).toBeVisible();
  await days.fill("7");
  await page.getByRole("button", { name: "Save changes" }).click();
  await expect(page.getByRole("status").filter({ hasText: "Settings saved." })).toBeVisible();
  await page.reload();
  await expect(page.getByLabel("Remind unsigned requests after (days)")).toHaveValue("7");
  await expectAccessible(page, "settings with the reminder period");

  const title = `Reminder consent ${run}`;
  const asked = await requestSignature(request, staff.token, {
    pdfUrl: files.url("/consent.pdf"),
    field: FIELD,
    title,
    patientId: `P-remind-${run}`,
  });
  const patient = await browser.newContext({ locale: "en-GB" });
  const phone = await patient.newPage();
  await phone.goto(asked.signingLink);
  await expect(phone.getByRole("heading", { level: 1, name: title })).toBeVisible();
  await phone.getByRole("button", { name: "Decline to sign" }).click();
  await phone
    .getByRole("alertdialog", { name: "Decline to sign this document?" })
    .getByRole("button", { name: "Decline", exact: true })
    .click();
  await expect(phone.getByRole("heading", { level: 1, name: "You declined to sign" })).toBeVisible();
  await patient.close();

  await page.goto(`/signature-requests/${asked.signatureId}`);
  const notice = page.getByTestId("timeline").locator('[data-kind="staff_notified"]');
  // The notice is a job: it runs right after the decline commits, and the page shows it on a reload.
  await expect(async () => {
    await page.reload();
    await expect(notice).toBeVisible({ timeout: 2_000 });
  }).toPass({ timeout: 30_000 });
  await expect(notice).toContainText("Staff notified");
  await expect(notice).toContainText("E-mail");
  await expect(page.getByTestId("timeline").locator('[data-kind="declined"]')).toBeVisible();
  await expectAccessible(page, "request timeline with the staff notice");
});
