import { expect, test, type Browser, type Page } from "@playwright/test";
import { expectAccessible } from "./forms-support";
import { hasHorizontalScroll, shot, signIn, WEB_PORT } from "./support";

// FHIR push (issue 34), the staff screens: Settings → the FHIR server card, and the delivery log.
// No FHIR server runs here: the card saves to a public https address nothing delivers to (the
// switch is turned off again after the spec), and the log is seen empty.

const BASE_URL = "https://fhir.klinik.example/r4";
const TOKEN = "e2e-fhir-bearer-7d41c9a0b2";
const PATIENT_SYSTEM = "urn:oid:1.2.276.0.76.4.8";
const CASE_SYSTEM = "https://klinik.example/fhir/sid/fallnummer";

const card = (page: Page, name = "Clinical record to your FHIR server") => page.getByRole("form", { name });

/** A picture of the whole card, from the whole page (in the window, the sticky header would cover part of it). */
async function cardShot(page: Page, name: string) {
  await page.evaluate(() => window.scrollTo(0, 0));
  const box = await page.locator("#fhir-push").boundingBox();
  expect(box, "the FHIR server card is on the page").not.toBeNull();
  await page.screenshot({ path: test.info().outputPath(`${name}.png`), fullPage: true, clip: box! });
}

/** Signs in (German with `lang`) at a window of `width`. */
async function open(page: Page, width: number, lang: "en" | "de") {
  await page.setViewportSize({ width, height: width < 600 ? 844 : 800 });
  await signIn(page);
  if (lang === "de")
    await page.context().addCookies([{ name: "lang", value: "de", url: `http://localhost:${WEB_PORT}` }]);
}

/** Turns the push off again: later specs complete records, which must not queue deliveries to nowhere. */
async function turnOffPush(browser: Browser) {
  const context = await browser.newContext({ baseURL: `http://localhost:${WEB_PORT}`, locale: "en-GB" });
  await signIn(await context.newPage());
  const answer = await context.request.get("/trpc/fhirPush.target");
  const target = ((await answer.json()) as { result: { data: { enabled: boolean; auth: string } | null } }).result.data;
  if (target?.enabled) {
    const saved = await context.request.post("/trpc/fhirPush.saveTarget", {
      data: { enabled: false, baseUrl: BASE_URL, auth: target.auth },
    });
    expect(saved.status(), await saved.text()).toBe(200);
  }
  await context.close();
}

test.afterAll(async ({ browser }) => turnOffPush(browser));

test("an admin saves the FHIR server by keyboard; an http address is refused at its field; the token never comes back", async ({
  page,
}) => {
  await open(page, 1280, "en");
  await page.goto("/settings");
  const form = card(page);
  await expect(form).toBeVisible();
  await expect(form.getByText("A bearer token is stored.")).toHaveCount(0);

  // By keyboard, field after field: on, the address, bearer, its token, the two identifier systems.
  const enabled = form.getByRole("switch", { name: "Send to the FHIR server" });
  await enabled.focus();
  await page.keyboard.press("Space");
  await expect(enabled).toBeChecked();
  await page.keyboard.press("Tab");
  const baseUrl = form.getByLabel("Base URL");
  await expect(baseUrl).toBeFocused();
  await page.keyboard.type("http://fhir.klinik.example/r4");
  await page.keyboard.press("Tab");
  const auth = form.getByLabel("Authentication");
  await expect(auth).toBeFocused();
  await auth.selectOption("bearer");
  await expect(form.getByLabel("Client ID")).toHaveCount(0);
  await page.keyboard.press("Tab");
  const token = form.getByLabel("Bearer token", { exact: true });
  await expect(token).toBeFocused();
  await expect(token).toHaveAttribute("type", "password");
  await page.keyboard.type(TOKEN);
  await page.keyboard.press("Tab");
  await expect(form.getByLabel("Identifier system of the patient ID")).toBeFocused();
  await page.keyboard.type(PATIENT_SYSTEM);
  await page.keyboard.press("Tab");
  await expect(form.getByLabel("Identifier system of the case number")).toBeFocused();
  await page.keyboard.type(CASE_SYSTEM);
  await page.keyboard.press("Tab");
  await expect(form.getByRole("button", { name: "Save FHIR server" })).toBeFocused();
  await page.keyboard.press("Enter");

  // The server refuses plain http to a host the deployment does not allow: said at the field, which takes the focus.
  await expect(form.getByText("Use an https:// address: the FHIR server is reached over https only")).toBeVisible();
  await expect(baseUrl).toHaveAttribute("aria-invalid", "true");
  await expect(baseUrl).toBeFocused();
  await expect(form.getByRole("status")).toHaveText("Not saved. Please check the highlighted fields.");
  await expectAccessible(page, "FHIR server card, http refused");
  await cardShot(page, "fhir-settings-http-refused-en-desktop");

  await baseUrl.fill(BASE_URL);
  await expect(baseUrl).not.toHaveAttribute("aria-invalid", "true");
  await baseUrl.press("Enter");
  await expect(form.getByRole("status")).toHaveText("FHIR server saved.");
  await expect(form.getByText("A bearer token is stored.")).toBeVisible();
  await expect(token).toHaveCount(0);

  // After a reload: everything as saved, the token said to be stored, and nowhere on the page.
  await page.reload();
  await expect(form.getByText("A bearer token is stored.")).toBeVisible();
  await expect(form.getByRole("switch", { name: "Send to the FHIR server" })).toBeChecked();
  await expect(baseUrl).toHaveValue(BASE_URL);
  await expect(auth).toHaveValue("bearer");
  await expect(form.getByLabel("Identifier system of the patient ID")).toHaveValue(PATIENT_SYSTEM);
  await expect(form.getByLabel("Identifier system of the case number")).toHaveValue(CASE_SYSTEM);
  expect(await page.content()).not.toContain(TOKEN);

  // Replacing opens an empty field (left empty, the stored token stays); "keep" closes it again.
  await form.getByRole("button", { name: "Replace" }).click();
  await expect(token).toHaveValue("");
  await expect(form.getByText("Leave this empty to keep the stored one.")).toBeVisible();
  await expectAccessible(page, "FHIR server card, replacing the token");
  await form.getByRole("button", { name: "Keep the stored one" }).click();
  await expect(form.getByText("A bearer token is stored.")).toBeVisible();

  // Another kind needs its own credential: the stored bearer token is no client secret.
  await auth.selectOption("client_credentials");
  await expect(form.getByLabel("Client ID")).toBeVisible();
  await expect(form.getByLabel("Token URL")).toBeVisible();
  await expect(form.getByLabel("Client secret")).toHaveValue("");
  await auth.selectOption("smart_backend");
  await expect(form.getByLabel("Private key (PEM)")).toBeVisible();
  await form.getByRole("button", { name: "Save FHIR server" }).click();
  await expect(form.getByLabel("Client ID")).toBeFocused();
  await expect(form.getByText("Paste the private key in PEM.")).toBeVisible();
  await expectAccessible(page, "FHIR server card, SMART backend services");
  await cardShot(page, "fhir-settings-smart-en-desktop");
  await page.reload();
  await expect(auth).toHaveValue("bearer");
  await cardShot(page, "fhir-settings-saved-en-desktop");
});

test("the delivery log, reached from the navigation, says nothing was sent yet and filters by status", async ({
  page,
}) => {
  await open(page, 1280, "en");
  await page
    .getByRole("navigation", { name: "Main navigation" })
    .getByRole("link", { name: "FHIR deliveries" })
    .click();
  await expect(page.getByRole("heading", { level: 1, name: "FHIR deliveries" })).toBeVisible();
  await expect(page.getByRole("heading", { name: "Nothing was sent yet" })).toBeVisible();
  const setUp = page.getByRole("link", { name: "Set up the FHIR server" });
  await expect(setUp).toHaveAttribute("href", "/settings#fhir-push");

  // The filter and the way to Settings, one Tab apart.
  const status = page.getByLabel("Status", { exact: true });
  await status.focus();
  await page.keyboard.press("Tab");
  await expect(setUp).toBeFocused();

  await status.selectOption("failed");
  await expect(page).toHaveURL(/\/fhir-deliveries\?status=failed$/);
  await expect(page.getByRole("heading", { name: "No delivery has this status" })).toBeVisible();
  await expect(setUp).toHaveCount(0);
  await status.selectOption("");
  await expect(page).toHaveURL(/\/fhir-deliveries$/);
  await expect(setUp).toBeVisible();
  await setUp.click();
  await expect(card(page)).toBeVisible();
});

for (const lang of ["en", "de"] as const)
  for (const width of [390, 1280]) {
    const size = width < 600 ? "phone" : "desktop";
    test(`both screens in ${lang} at ${width} px: no serious axe finding, no sideways scroll`, async ({ page }) => {
      const de = lang === "de";
      await open(page, width, lang);
      await page.goto("/settings");
      const form = card(page, de ? "Klinische Dokumentation an Ihren FHIR-Server" : undefined);
      await expect(form).toBeVisible();
      await expect(form.getByText(de ? "Ein Bearer-Token ist hinterlegt." : "A bearer token is stored.")).toBeVisible();
      expect(await hasHorizontalScroll(page)).toBe(false);
      await expectAccessible(page, `FHIR server card, ${lang}, ${width} px`);
      await form.scrollIntoViewIfNeeded();
      await shot(page, `fhir-settings-${lang}-${size}`);
      await cardShot(page, `fhir-settings-card-${lang}-${size}`);

      await page.goto("/fhir-deliveries");
      await expect(
        page.getByRole("heading", { level: 1, name: de ? "FHIR-Übermittlungen" : "FHIR deliveries" }),
      ).toBeVisible();
      await expect(
        page.getByRole("heading", { name: de ? "Noch nichts übermittelt" : "Nothing was sent yet" }),
      ).toBeVisible();
      expect(await hasHorizontalScroll(page)).toBe(false);
      await expectAccessible(page, `FHIR delivery log, ${lang}, ${width} px`);
      await shot(page, `fhir-deliveries-${lang}-${size}`);
    });
  }
