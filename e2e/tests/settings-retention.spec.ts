import { expect, test, type Page } from "@playwright/test";
import { expectAccessible } from "./forms-support";
import { hasHorizontalScroll, shot, signIn } from "./support";

/** The retention card's rule of one kind (a fieldset named by the kind). */
const kind = (page: Page, name: string) =>
  page.getByRole("form", { name: "Data retention" }).getByRole("group", { name, exact: true });

/** Sets the demo organization's periods back to the defaults, for the specs after this one. */
async function restoreDefaults(page: Page) {
  await kind(page, "Unsent drafts").getByLabel("Rule").selectOption("days");
  await kind(page, "Unsent drafts").getByLabel("Days").fill("30");
  await kind(page, "Submissions and their attachments").getByLabel("Rule").selectOption("keep");
  await page.getByRole("button", { name: "Save retention periods" }).click();
  await expect(page.getByRole("status").filter({ hasText: "Retention periods saved." })).toBeVisible();
}

test("an admin sets retention periods and sees what the next run will delete", async ({ page }) => {
  await page.setViewportSize({ width: 1280, height: 800 });
  await signIn(page);
  await page.goto("/settings");
  const form = page.getByRole("form", { name: "Data retention" });
  await expect(form).toBeVisible();

  // The defaults: drafts 30 days, clinical records kept.
  await expect(kind(page, "Unsent drafts").getByLabel("Rule")).toHaveValue("days");
  await expect(kind(page, "Unsent drafts").getByLabel("Days")).toHaveValue("30");
  await expect(kind(page, "Submissions and their attachments").getByLabel("Rule")).toHaveValue("keep");
  await expect(kind(page, "Submissions and their attachments").getByLabel("Days")).toHaveCount(0);
  await expect(kind(page, "Outbox (SMS and e-mail)").getByText("Default: 90 days.")).toBeVisible();

  const preview = page.getByRole("table", { name: "Records the next retention run deletes, by kind" });
  await expect(preview.getByRole("row").filter({ hasText: "Unsent drafts" })).toContainText("30 days");
  await expect(preview.getByRole("row").filter({ hasText: "Submissions and their attachments" })).toContainText(
    "never deleted",
  );

  // A period the API refuses is caught at the field, which takes the focus.
  await kind(page, "Unsent drafts").getByLabel("Days").fill("0");
  await kind(page, "Submissions and their attachments").getByLabel("Rule").selectOption("years");
  await kind(page, "Submissions and their attachments").getByLabel("Years").fill("10");
  await page.getByRole("button", { name: "Save retention periods" }).click();
  const drafts = kind(page, "Unsent drafts").getByLabel("Days");
  await expect(kind(page, "Unsent drafts").getByText("Enter a whole number from 1 to 36500.")).toBeVisible();
  await expect(drafts).toHaveAttribute("aria-invalid", "true");
  await expect(drafts).toBeFocused();
  await expectAccessible(page, "retention with an invalid period");

  // Corrected and saved: the preview counts with the new periods.
  await drafts.fill("14");
  await page.getByRole("button", { name: "Save retention periods" }).click();
  await expect(page.getByRole("status").filter({ hasText: "Retention periods saved." })).toBeVisible();
  await expect(preview.getByRole("row").filter({ hasText: "Submissions and their attachments" })).toContainText(
    "10 years",
  );
  await expect(preview.getByRole("row").filter({ hasText: "Unsent drafts" })).toContainText("14 days");
  await page.reload();
  await expect(kind(page, "Submissions and their attachments").getByLabel("Years")).toHaveValue("10");
  await expectAccessible(page, "retention saved");
  await form.scrollIntoViewIfNeeded();
  await shot(page, "settings-retention-en-desktop");
  await preview.scrollIntoViewIfNeeded();
  await shot(page, "settings-retention-preview-en-desktop");

  await restoreDefaults(page);
});

test("an admin places a legal hold on a patient and releases it", async ({ page }) => {
  await page.setViewportSize({ width: 1280, height: 800 });
  await signIn(page);
  await page.goto("/settings");
  const form = page.getByRole("form", { name: "Place a legal hold" });
  const holds = page.getByRole("table", { name: "Active legal holds" });
  await expect(page.getByText("No active legal holds")).toBeVisible();

  // Nobody named: the first identifier says so and takes the focus; what is no phone number is
  // refused on its field, and a national number is read in the clinic's country (as on new requests).
  await form.getByRole("button", { name: "Place hold" }).click();
  await expect(form.getByText("Enter at least one of patient ID, case number or mobile number.")).toBeVisible();
  await expect(form.getByLabel("Patient ID")).toBeFocused();
  await form.getByLabel("Mobile number").fill("0170 12");
  await form.getByLabel("Reason").fill("Court case 4 O 17/26");
  await form.getByRole("button", { name: "Place hold" }).click();
  await expect(form.getByLabel("Mobile number")).toHaveAttribute("aria-invalid", "true");
  await expect(form.getByText("Enter a phone number, e.g. 0170 1234567 or +491701234567.")).toBeVisible();
  await expect(form.getByLabel("Mobile number")).toBeFocused();

  await form.getByLabel("Mobile number").fill("0170 1234567");
  await expect(form.getByLabel("Mobile number")).not.toHaveAttribute("aria-invalid", "true");
  await form.getByLabel("Case number").fill("R-E2E-17");
  await form.getByRole("button", { name: "Place hold" }).click();
  await expect(form.getByRole("status").filter({ hasText: "Legal hold placed." })).toBeVisible();
  await expect(form.getByLabel("Case number")).toHaveValue("");
  const row = holds.getByRole("row").filter({ hasText: "Case R-E2E-17" });
  await expect(row).toContainText("Mobile +491701234567");
  await expect(row).toContainText("Court case 4 O 17/26");
  await expect(row).toContainText("Demo Admin");
  await expectAccessible(page, "legal hold placed");
  await holds.scrollIntoViewIfNeeded();
  await shot(page, "settings-legal-holds-en-desktop");

  await row.getByRole("button", { name: "Release the legal hold on Case R-E2E-17 · Mobile +491701234567" }).click();
  await expect(page.getByText("No active legal holds")).toBeVisible();
});

test("the retention section on a phone, in German, by keyboard", async ({ page, context }) => {
  await page.setViewportSize({ width: 390, height: 844 });
  await signIn(page);
  await context.addCookies([{ name: "lang", value: "de", url: new URL(page.url()).origin }]);
  await page.goto("/settings");
  const form = page.getByRole("form", { name: "Aufbewahrung und Löschung" });
  await expect(form).toBeVisible();
  const drafts = form.getByRole("group", { name: "Nicht gesendete Entwürfe" });
  await drafts.getByLabel("Regel").focus();
  await page.keyboard.press("Tab");
  await expect(drafts.getByLabel("Tage")).toBeFocused();
  await expect(
    page.getByRole("table", { name: "Datensätze, die der nächste Löschlauf löscht, nach Art" }),
  ).toBeVisible();
  expect(await hasHorizontalScroll(page)).toBe(false);
  await expectAccessible(page, "retention in German on a phone");
  await form.scrollIntoViewIfNeeded();
  await shot(page, "settings-retention-de-phone");
  await page
    .getByRole("table", { name: "Datensätze, die der nächste Löschlauf löscht, nach Art" })
    .scrollIntoViewIfNeeded();
  await shot(page, "settings-retention-preview-de-phone");
  await page.getByRole("form", { name: "Löschsperre setzen" }).scrollIntoViewIfNeeded();
  await shot(page, "settings-legal-holds-de-phone");
});
