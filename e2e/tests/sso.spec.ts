import { expect, test, type Browser, type Page } from "@playwright/test";
import { startTestDnsServer, type TestDnsServer } from "../../apps/api/src/testing/dns-server";
import { startTestIdentityProvider, type TestIdentityProvider } from "../../apps/api/src/testing/oidc-provider";
import { expectAccessible } from "./forms-support";
import { ADMIN_PASSWORD, DNS_PORT, IDP_PORT, shot, signIn, WEB_PORT } from "./support";

/**
 * Single sign-on through a real OpenID Provider (oidc-provider on loopback, its plain HTML
 * sign-in form): the owner connects it in Settings and proves the e-mail domain with a TXT record
 * (published in a name server on loopback, the API's DNS_RESOLVERS), then staff sign in with it
 * from the login page, by e-mail domain and by the organization's login URL, on a desktop and a
 * phone.
 */

const WEB = `http://localhost:${WEB_PORT}`;
const DOMAIN = "sso.demo.clinic";
let idp: TestIdentityProvider;
let dns: TestDnsServer;
let loginUrl: string;

test.describe.configure({ mode: "serial" });

test.beforeAll(async () => {
  idp = await startTestIdentityProvider({
    redirectUris: [`${WEB}/sso/callback`],
    port: IDP_PORT,
    clientId: "clinsign-e2e",
  });
  idp.users.set("nora", { email: `nora@${DOMAIN}`, name: "Nora Schmidt", groups: ["cs-staff"] });
  idp.users.set("olaf", { email: `olaf@${DOMAIN}`, name: "Olaf Weber", groups: ["cs-admins"] });
  idp.users.set("paul", { email: `paul@${DOMAIN}`, name: "Paul Ohne", groups: ["visitors"] });
  dns = await startTestDnsServer({ port: DNS_PORT });
});
test.afterAll(async () => {
  await idp?.close();
  await dns?.close();
});

async function freshPage(
  browser: Browser,
  viewport: { width: number; height: number },
  lang: "en" | "de" = "en",
): Promise<Page> {
  const context = await browser.newContext({ viewport, locale: lang === "de" ? "de-DE" : "en-GB" });
  await context.addCookies([{ name: "lang", value: lang, url: WEB }]);
  return context.newPage();
}

/** The provider's sign-in form (login and password), as a person fills it. */
async function signInAtProvider(page: Page, login: string) {
  await expect(page).toHaveURL(new RegExp(`^http://127\\.0\\.0\\.1:${IDP_PORT}/`));
  await page.locator('input[name="login"]').fill(login);
  await page.locator('input[name="password"]').fill("any password");
  await page.locator('button[type="submit"]').click();
}

test("the owner connects the organization's OpenID provider in Settings and proves its domain", async ({ page }) => {
  test.setTimeout(120_000);
  await page.setViewportSize({ width: 1280, height: 800 });
  await signIn(page);
  await page.goto("/settings");
  const card = page.getByRole("form", { name: "Single sign-on (OpenID Connect)" });
  await expect(card).toBeVisible();
  await expect(card.getByTestId("sso-redirect-uri")).toHaveValue(`${WEB}/sso/callback`);
  await card.getByRole("switch", { name: "Offer single sign-on" }).check();
  await card.getByLabel("Provider name").fill("Klinik-Login");
  await card.getByLabel("Issuer URL").fill(idp.issuer);
  await card.getByLabel("Client ID").fill(idp.clientId);
  await card.getByLabel("Client secret").fill(idp.clientSecret);
  await card.getByLabel("Allowed e-mail domains").fill(DOMAIN);
  await card.getByLabel("Role claim").fill("groups");
  await card.getByLabel("Claim value 1").fill("cs-staff");
  await card.getByLabel("Role 1").selectOption("staff");
  // Single sign-on never grants the owner role: no such choice.
  await expect(card.getByLabel("Role 1").locator("option")).toHaveText(["Admin", "Staff", "Viewer"]);
  await card.getByRole("button", { name: "Add mapping" }).click();
  await card.getByLabel("Claim value 2").fill("cs-admins");
  await card.getByLabel("Role 2").selectOption("admin");
  // Saving asks for the owner's password once more, in the same form.
  await card.getByTestId("step-up").getByLabel("Your password").fill(ADMIN_PASSWORD);
  await card.getByRole("button", { name: "Save single sign-on" }).click();
  await expect(card.getByText("Single sign-on saved.")).toBeVisible();
  // The secret is never shown again: the field is empty and says one is stored.
  await expect(card.getByLabel("Client secret")).toHaveValue("");
  await expect(card.getByText("A secret is stored and never shown.")).toBeVisible();
  loginUrl = await card.getByTestId("sso-login-url").inputValue();
  expect(loginUrl).toMatch(new RegExp(`^${WEB}/login/[0-9a-f-]{36}$`));
  await expectAccessible(page, "the single sign-on settings");
  await card.scrollIntoViewIfNeeded();
  await shot(page, "sso-settings-en-1280");

  // The domain counts once its TXT record is published, as the page shows it, and checked.
  const domain = card.getByTestId("sso-domain").filter({ hasText: DOMAIN });
  await expect(domain).toContainText("Not verified");
  await expect(domain.getByLabel(`TXT record name for ${DOMAIN}`)).toHaveValue(`_clinsign-challenge.${DOMAIN}`);
  const value = await domain.getByLabel(`TXT record value for ${DOMAIN}`).inputValue();
  expect(value).toMatch(/^clinsign-domain-verification=\S+$/);
  dns.setTxt(`_clinsign-challenge.${DOMAIN}`, [value]);
  await domain.getByRole("button", { name: `Check DNS now for ${DOMAIN}` }).click();
  await expect(domain.getByText(`${DOMAIN} is verified.`)).toBeVisible();
  await expect(domain).toContainText("Verified");
  await expect(domain).not.toContainText("Not verified");
});

test("the single sign-on settings in German, on a desktop and a phone", async ({ page }) => {
  await signIn(page);
  for (const viewport of [
    { width: 1280, height: 800 },
    { width: 390, height: 844 },
  ]) {
    await page.context().addCookies([{ name: "lang", value: "de", url: WEB }]);
    await page.setViewportSize(viewport);
    await page.goto("/settings");
    const german = page.getByRole("form", { name: "Single Sign-on (OpenID Connect)" });
    await expect(german.getByLabel("Issuer-URL")).toHaveValue(idp.issuer);
    await german.scrollIntoViewIfNeeded();
    await shot(page, `sso-settings-de-${viewport.width}`);
    await german.getByLabel("Rolle 2").scrollIntoViewIfNeeded();
    await shot(page, `sso-settings-mapping-de-${viewport.width}`);
  }
  await page.context().addCookies([{ name: "lang", value: "en", url: WEB }]);
});

test("staff sign in with the provider found by their e-mail domain (1280 px)", async ({ browser }) => {
  const page = await freshPage(browser, { width: 1280, height: 800 });
  await page.goto("/login");
  const button = page.getByRole("link", { name: "Sign in with Klinik-Login" });
  await expect(button).toHaveCount(0);
  await page.getByLabel("E-mail address").fill(`nora@${DOMAIN}`);
  await expect(button).toBeVisible();
  await expectAccessible(page, "the login page with single sign-on");
  await shot(page, "sso-login-en-1280");
  await button.click();
  await signInAtProvider(page, "nora");
  await expect(page).toHaveURL(`${WEB}/`);
  await expect(page.getByRole("heading", { level: 1, name: "Welcome, Nora Schmidt" })).toBeVisible();
  await page.context().close();
});

test("an organization's login URL offers its provider on a phone (390 px), in German", async ({ browser }) => {
  const page = await freshPage(browser, { width: 390, height: 844 }, "de");
  await page.goto(loginUrl);
  const button = page.getByRole("link", { name: "Mit Klinik-Login anmelden" });
  await expect(button).toBeVisible();
  await expectAccessible(page, "the organization's login URL");
  await shot(page, "sso-login-de-390");
  await button.click();
  await signInAtProvider(page, "olaf");
  await expect(page).toHaveURL(`${WEB}/`);
  await expect(page.getByRole("heading", { level: 1, name: /Olaf Weber/ })).toBeVisible();
  await page.context().close();
});

test("someone whose groups map to no role lands on the login page with the reason", async ({ browser }) => {
  for (const [lang, viewport, message] of [
    ["en", { width: 390, height: 844 }, "Your account has no role in ClinSign."],
    ["de", { width: 1280, height: 800 }, "Ihr Konto hat keine Rolle in ClinSign."],
  ] as const) {
    const page = await freshPage(browser, viewport, lang);
    await page.goto(loginUrl);
    await page
      .getByRole("link", { name: lang === "en" ? "Sign in with Klinik-Login" : "Mit Klinik-Login anmelden" })
      .click();
    await signInAtProvider(page, "paul");
    await expect(page).toHaveURL(/\/login\/[0-9a-f-]{36}\?sso_error=no_role$/);
    await expect(page.getByTestId("sso-error")).toContainText(message);
    await expect(
      page.getByRole("link", { name: lang === "en" ? "Sign in with Klinik-Login" : "Mit Klinik-Login anmelden" }),
    ).toBeVisible();
    await expectAccessible(page, `the login page after a refused sign-in (${lang})`);
    await shot(page, `sso-refused-${lang}-${viewport.width}`);
    await page.context().close();
  }
});
