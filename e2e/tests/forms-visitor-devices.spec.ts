import { expect, test, type Browser, type Page } from "@playwright/test";
import { createActiveTemplate, expectAccessible, staffSignIn, type Staff } from "./forms-support";
import { shot } from "./support";

// Issue 31: on a waiting-room tablet the next visitor is the next patient. A public embed starts
// every visit empty unless the clinic offers to resume; resuming is then the visitor's choice
// ("Continue where you left off?", naming only the form and when), and a shared device empties
// its form after a while without activity.

let staff: Staff;

test.beforeAll(async ({ browser }) => {
  staff = await staffSignIn(browser, "E2E visitor devices");
});
test.afterAll(async () => {
  await staff?.context.close();
});

async function device(browser: Browser, locale = "en-GB"): Promise<{ page: Page; close(): Promise<void> }> {
  const context = await browser.newContext({ viewport: { width: 390, height: 844 }, locale });
  const page = await context.newPage();
  return { page, close: () => context.close() };
}

/** Sets up the template's website form with the chosen policy for visitors' devices; returns the form's own URL. */
async function websiteForm(identifier: string, policy: RegExp, idleMinutes?: string): Promise<string> {
  const console_ = staff.page;
  await console_.setViewportSize({ width: 1280, height: 800 });
  await console_.goto(`/form-templates/${identifier}`);
  const website = console_.getByRole("form", { name: "On your website" });
  await website.getByLabel("Websites that may show the form").fill("https://clinic.example");
  await website.getByRole("radio", { name: policy }).check();
  if (idleMinutes) await website.getByLabel("Empty after this many minutes without activity").fill(idleMinutes);
  await expectAccessible(console_, "website form with the visitor device choice");
  await website.screenshot({
    path: test.info().outputPath(`website-form-${idleMinutes ? "shared" : "resume"}-en-1280.png`),
  });
  await website.getByRole("button", { name: "Set up the website form" }).click();
  const snippet = await console_.getByTestId("public-embed-snippet").inputValue();
  return /<iframe src="([^"]+)"/.exec(snippet)![1]!;
}

async function fillAndWaitForSave(page: Page, name: string) {
  await page.getByLabel(/^Full name/).fill(name);
  await expect(page.getByRole("status").filter({ hasText: /^Saved \d{2}:\d{2}$/ })).toBeVisible();
}

test("offered to resume: the visitor chooses, seeing only the form and when; Start over deletes the draft", async ({
  browser,
  request,
}) => {
  const title = `PHQ-9 ${Date.now()}`;
  const identifier = await createActiveTemplate(request, staff, title, [
    { id: "1", type: "text", key: "fullName", label: "Full name", required: true },
  ]);
  const url = await websiteForm(identifier, /Offer to continue an unfinished form/);

  const phone = await device(browser);
  await phone.page.goto(url);
  await fillAndWaitForSave(phone.page, "Erika Mustermann");
  await phone.page.reload();
  const prompt = phone.page.getByRole("heading", { level: 1, name: "Continue where you left off?" });
  await expect(prompt).toBeVisible();
  // The prompt names the form and when, never an answer.
  await expect(phone.page.getByText(`You started “${title}” on this device on`)).toBeVisible();
  await expect(phone.page.getByText("Erika")).toHaveCount(0);
  await expectAccessible(phone.page, "continue where you left off (phone)");
  await shot(phone.page, "resume-prompt-en-390");
  // The same question in the patient's language: Turkish, and Arabic right to left.
  await phone.page.goto(`${url}&lang=tr`);
  await expect(
    phone.page.getByRole("heading", { level: 1, name: "Kaldığınız yerden devam etmek ister misiniz?" }),
  ).toBeVisible();
  await expectAccessible(phone.page, "continue where you left off (Turkish)");
  await shot(phone.page, "resume-prompt-tr-390");
  await phone.page.goto(`${url}&lang=ar`);
  await expect(phone.page.getByRole("heading", { level: 1, name: "هل تريد المتابعة من حيث توقفت؟" })).toBeVisible();
  await expectAccessible(phone.page, "continue where you left off (Arabic)");
  await shot(phone.page, "resume-prompt-ar-390");
  // The language chosen stays with the page; back to English.
  await phone.page.goto(`${url}&lang=en`);
  await phone.page.getByRole("button", { name: "Continue" }).click();
  await expect(phone.page.getByLabel(/^Full name/)).toHaveValue("Erika Mustermann");

  // Start over: an empty form, and the unfinished answers are gone for good.
  await phone.page.reload();
  await phone.page.getByRole("button", { name: "Start over" }).click();
  await expect(phone.page.getByLabel(/^Full name/)).toHaveValue("");
  await phone.page.reload();
  await expect(phone.page.getByLabel(/^Full name/)).toHaveValue("");
  await expect(prompt).toHaveCount(0);
  await phone.close();
});

test("a shared device empties its form after the minutes without activity the clinic set, and after sending", async ({
  browser,
  request,
}) => {
  const title = `Anmeldung ${Date.now()}`;
  const identifier = await createActiveTemplate(request, staff, title, [
    { id: "1", type: "text", key: "fullName", label: "Full name", required: true },
  ]);
  const url = await websiteForm(identifier, /Shared device/, "2");

  const tablet = await device(browser);
  await tablet.page.clock.install();
  await tablet.page.goto(url);
  await expect(tablet.page.getByTestId("shared-device-note")).toContainText("2 minutes without activity");
  await fillAndWaitForSave(tablet.page, "Erika Mustermann");
  // The patient walks away; two minutes later the tablet has forgotten them.
  await tablet.page.clock.fastForward("02:05");
  await expect(tablet.page.getByLabel(/^Full name/)).toHaveValue("");
  await expect(tablet.page.getByTestId("shared-device-note")).toContainText("emptied after 2 minutes");
  await expectAccessible(tablet.page, "shared device, emptied (phone)");
  await shot(tablet.page, "shared-device-emptied-en-390");

  // The next patient sends the form; the thank-you screen offers an empty form for the one after.
  await tablet.page.getByLabel(/^Full name/).fill("Max Muster");
  await tablet.page.getByRole("button", { name: "Send form" }).click();
  await expect(tablet.page.getByRole("heading", { name: "Thank you — your form was sent" })).toBeVisible();
  await tablet.page.getByRole("button", { name: "Empty form for the next person" }).click();
  await expect(tablet.page.getByLabel(/^Full name/)).toHaveValue("");
  // Nothing offers the earlier form after a reload either.
  await tablet.page.reload();
  await expect(tablet.page.getByLabel(/^Full name/)).toHaveValue("");
  await tablet.close();
});
