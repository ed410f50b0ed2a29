import { expect, test } from "@playwright/test";
import { expectAccessible } from "./forms-support";
import { signIn } from "./support";

test("the language switch turns the admin area German and back, and sign-out ends the session", async ({ page }) => {
  await signIn(page);
  await expect(page.locator("html")).toHaveAttribute("lang", "en");

  await page.getByRole("button", { name: "Deutsch" }).click();
  await expect(page.locator("html")).toHaveAttribute("lang", "de");
  await expect(
    page.getByRole("navigation", { name: "Hauptnavigation" }).getByRole("link", { name: "Einstellungen" }),
  ).toBeVisible();
  await page.reload();
  await expect(page.locator("html")).toHaveAttribute("lang", "de");
  await expect(page.getByRole("heading", { level: 1, name: /^Willkommen, / })).toBeVisible();

  await page.getByRole("button", { name: "English" }).click();
  await expect(page.locator("html")).toHaveAttribute("lang", "en");

  // Every section is built: none is marked "Soon", and the last one built opens from the navigation.
  const navigation = page.getByRole("navigation", { name: "Main navigation" });
  await expect(navigation.getByText("Soon")).toHaveCount(0);
  await navigation.getByRole("link", { name: "Branding" }).click();
  await expect(page.getByRole("heading", { level: 1, name: "Branding" })).toBeVisible();

  await page.getByRole("button", { name: "Sign out" }).click();
  await expect(page).toHaveURL(/\/login\?reason=signed-out$/);
  await expect(page.getByText("You have been signed out.")).toBeVisible();
  await page.goto("/settings");
  await expect(page).toHaveURL(/\/login/);
});

test("settings: field errors show at their field, a valid change is saved", async ({ page }) => {
  await signIn(page);
  await page.goto("/settings");
  await expect(page.getByRole("heading", { level: 1, name: "Settings" })).toBeVisible();

  await page.getByRole("button", { name: "Add URL" }).click();
  const url = page.getByLabel("Webhook URL 1", { exact: true });
  await expect(url).toBeFocused();
  await url.fill("not a url");
  await page.getByRole("button", { name: "Save changes" }).click();
  await expect(url).toHaveAttribute("aria-invalid", "true");
  await expect(page.getByText("Enter a complete http(s) address")).toBeVisible();

  await url.fill("https://hooks.example.org/clinsign");
  await page.getByLabel("Require a one-time code").check();
  await page.getByLabel("Body for submitted forms").selectOption({ label: "FHIR QuestionnaireResponse only" });
  await page.getByRole("button", { name: "Save changes" }).click();
  await expect(page.getByRole("status").filter({ hasText: "Settings saved." })).toBeVisible();

  await page.reload();
  await expect(page.getByLabel("Webhook URL 1", { exact: true })).toHaveValue("https://hooks.example.org/clinsign");
  await expect(page.getByLabel("Require a one-time code")).toBeChecked();
  await expect(page.getByLabel("Body for submitted forms")).toHaveValue("fhir");
  await expectAccessible(page, "settings");

  // The demo organization is shared with the later specs: webhooks.spec reads native bodies.
  await page.getByLabel("Body for submitted forms").selectOption({ label: "ClinSign format (default)" });
  await page.getByRole("button", { name: "Save changes" }).click();
  await expect(page.getByRole("status").filter({ hasText: "Settings saved." })).toBeVisible();
});

test("the language switch changes the page in place: no reload, no server round trip, the title translated; the cookie keeps it for the next page", async ({
  page,
}) => {
  await signIn(page);
  await page.goto("/audit-log");
  await expect(page.getByRole("heading", { level: 1, name: "Audit log" })).toBeVisible();
  await expect(page).toHaveTitle("Audit log · ClinSign");
  await page.evaluate(() => Object.assign(window, { stillThisPage: true }));
  // A reload (a document) or router.refresh() (this page's React Server Component payload, not a
  // link's prefetch): what switching used to cost.
  const serverRenders: string[] = [];
  page.on("request", (request) => {
    const headers = request.headers();
    const thisPage = new URL(request.url()).pathname === "/audit-log";
    if (
      request.resourceType() === "document" ||
      (thisPage && (headers["rsc"] === "1" || request.url().includes("_rsc=")) && !headers["next-router-prefetch"])
    ) {
      serverRenders.push(request.url());
    }
  });

  await page.getByRole("button", { name: "Deutsch" }).click();
  await expect(page.getByRole("heading", { level: 1, name: "Audit-Protokoll" })).toBeVisible();
  await expect(page).toHaveTitle("Audit-Protokoll · ClinSign");
  await page.getByRole("button", { name: "English" }).click();
  await expect(page.getByRole("heading", { level: 1, name: "Audit log" })).toBeVisible();
  await expect(page).toHaveTitle("Audit log · ClinSign");
  await page.getByRole("button", { name: "Deutsch" }).click();
  await expect(page.getByRole("heading", { level: 1, name: "Audit-Protokoll" })).toBeVisible();
  // Give a late refresh the chance to show up.
  await page.waitForTimeout(1000);
  expect(serverRenders).toEqual([]);
  expect(await page.evaluate(() => (window as unknown as { stillThisPage?: boolean }).stillThisPage)).toBe(true);

  // The next server-rendered page comes in German (the cookie).
  await page.goto("/documents");
  await expect(page.locator("html")).toHaveAttribute("lang", "de");
  await expect(page).toHaveTitle(/^Dokumente · ClinSign$/);
  await page.getByRole("button", { name: "English" }).click();
  await expect(page.locator("html")).toHaveAttribute("lang", "en");
});
