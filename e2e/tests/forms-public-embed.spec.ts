import { expect, test, type Browser, type Page } from "@playwright/test";
import {
  createActiveTemplate,
  expectAccessible,
  listen,
  staffSignIn,
  type LocalServer,
  type Staff,
} from "./forms-support";
import { HOST_PAGE_PORT } from "./support";

// The website snippet: one code on a clinic's public page, and every visitor with a form (and a
// draft) of their own. Two browsers stand for two patients on two devices.

let staff: Staff;
let clinicSite: LocalServer;
let snippet = "";

test.beforeAll(async ({ browser }) => {
  // The clinic's website: whatever snippet staff copied from the console, pasted into a page.
  clinicSite = await listen(HOST_PAGE_PORT, (_req, _body, res) => {
    res.writeHead(200, { "content-type": "text/html; charset=utf-8" }).end(`<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>Klinikum Nord</title></head>
<body style="margin:0;font-family:sans-serif"><main><h1 style="font-size:1.25rem;margin:8px">Register for your visit</h1>${snippet}</main></body></html>`);
  });
  staff = await staffSignIn(browser, "E2E public embed");
});
test.afterAll(async () => {
  await Promise.all([clinicSite?.close(), staff?.context.close()]);
});

async function visitor(browser: Browser): Promise<{ page: Page; close(): Promise<void> }> {
  const context = await browser.newContext({ viewport: { width: 390, height: 844 }, locale: "en-GB" });
  const page = await context.newPage();
  return { page, close: () => context.close() };
}

const form = (page: Page) => page.frameLocator("iframe[data-clinsign-form]");

test("a website snippet gives every visitor an empty form of their own, and staff can take it off the site", async ({
  browser,
  request,
}) => {
  const title = `Registration ${Date.now()}`;
  const identifier = await createActiveTemplate(request, staff, title, [
    { id: "1", type: "text", key: "fullName", label: "Full name", required: true },
    { id: "2", type: "textarea", key: "allergies", label: "Allergies" },
  ]);

  // Staff set the website form up in the console; the snippet names no session.
  const console_ = staff.page;
  await console_.setViewportSize({ width: 1280, height: 800 });
  await console_.goto(`/form-templates/${identifier}`);
  const website = console_.getByRole("form", { name: "On your website" });
  await website.getByLabel("Websites that may show the form").fill(clinicSite.origin);
  await website.getByRole("button", { name: "Set up the website form" }).click();
  snippet = await console_.getByTestId("public-embed-snippet").inputValue();
  expect(snippet).toMatch(/<iframe src="http:\/\/localhost:\d+\/embed\/[^"?]+\?embed=pe_[A-Za-z0-9_-]+"/);
  expect(snippet).not.toContain("session");
  await expectAccessible(console_, "template page with the embed panels");

  // The first patient starts filling in; the draft is saved.
  const first = await visitor(browser);
  await first.page.goto(clinicSite.origin);
  await form(first.page)
    .getByLabel(/^Full name/)
    .fill("Erika Mustermann");
  await form(first.page)
    .getByLabel(/^Allergies/)
    .fill("Penicillin");
  await expect(
    form(first.page)
      .getByRole("status")
      .filter({ hasText: /^Saved \d{2}:\d{2}$/ }),
  ).toBeVisible();

  // The second patient, on another device, gets an empty form and saves answers of their own.
  const second = await visitor(browser);
  await second.page.goto(clinicSite.origin);
  await expect(form(second.page).getByRole("heading", { level: 1, name: title })).toBeVisible();
  await expect(form(second.page).getByLabel(/^Full name/)).toHaveValue("");
  await expect(form(second.page).getByLabel(/^Allergies/)).toHaveValue("");
  await form(second.page)
    .getByLabel(/^Full name/)
    .fill("Max Muster");
  await expect(
    form(second.page)
      .getByRole("status")
      .filter({ hasText: /^Saved \d{2}:\d{2}$/ }),
  ).toBeVisible();
  await expectAccessible(second.page, "public embed (framed, phone)");

  // The first patient reloads. This browser (like any private window) denies storage to
  // third-party frames, so the framed form cannot keep its session: it starts a new, empty one,
  // and never shows the second patient's answers.
  await first.page.reload();
  await expect(form(first.page).getByRole("heading", { level: 1, name: title })).toBeVisible();
  await expect(form(first.page).getByLabel(/^Full name/)).toHaveValue("");

  // By default nothing is kept on the device, even where the browser would allow it (the form
  // opened as a page of its own): whoever opens the page next finds an empty form.
  const embedUrl = /<iframe src="([^"]+)"/.exec(snippet)![1]!;
  const third = await visitor(browser);
  await third.page.goto(embedUrl);
  await third.page.getByLabel(/^Full name/).fill("Erika Mustermann");
  await third.page.getByLabel(/^Allergies/).fill("Penicillin");
  await expect(third.page.getByRole("status").filter({ hasText: /^Saved \d{2}:\d{2}$/ })).toBeVisible();
  await third.page.reload();
  await expect(third.page.getByLabel(/^Full name/)).toHaveValue("");
  await expect(third.page.getByLabel(/^Allergies/)).toHaveValue("");

  // Staff turn it off: the form in progress ends and the site says the form is not available.
  await website.getByRole("switch", { name: "Visitors can fill in the form" }).setChecked(false);
  await website.getByRole("button", { name: "Save" }).click();
  await expect(console_.getByText("The website form is off", { exact: false })).toBeVisible();
  await second.page.reload();
  await expect(form(second.page).getByRole("heading", { name: "This form is not available" })).toBeVisible();

  await Promise.all([first.close(), second.close(), third.close()]);
});

test("a personal link is made for one patient, listed with its case number and expiry, and ended in the console", async ({
  browser,
  request,
}) => {
  const title = `Personal ${Date.now()}`;
  const identifier = await createActiveTemplate(request, staff, title, [
    { id: "1", type: "text", key: "fullName", label: "Full name" },
  ]);
  const page = staff.page;
  await page.goto(`/form-templates/${identifier}`);
  const personal = page.getByRole("form", { name: "Personal link for one patient" });
  await personal.getByLabel("Case number (optional)").fill("R-4711");
  await personal.getByLabel("Valid for").selectOption({ label: "7 days" });
  await personal.getByRole("button", { name: "Create personal link" }).click();
  const link = await page.getByTestId("embed-link").inputValue();
  expect(link).toMatch(/\/embed\/[^?]+\?session=fs_/);
  const row = page.getByRole("row").filter({ hasText: "R-4711" });
  await expect(row).toBeVisible();

  const patient = await visitor(browser);
  await patient.page.goto(link);
  await expect(patient.page.getByRole("heading", { level: 1, name: title })).toBeVisible();

  await row.getByRole("button", { name: "End now: the personal link R-4711" }).click();
  await expect(page.getByRole("row").filter({ hasText: "R-4711" })).toHaveCount(0);
  await patient.page.reload();
  await expect(patient.page.getByRole("heading", { name: /no longer valid|expired|ended/i })).toBeVisible();
  await patient.close();
});
