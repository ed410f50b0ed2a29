import { mkdirSync } from "node:fs";
import { expect, test, type Browser, type Locator, type Page } from "@playwright/test";
import { startTestDnsServer, type TestDnsServer } from "../../apps/api/src/testing/dns-server";
import { startTestIdentityProvider, type TestIdentityProvider } from "../../apps/api/src/testing/oidc-provider";
import { addVirtualAuthenticator, AuthenticatorApp } from "./authenticator";
import { expectAccessible } from "./forms-support";
import { DEMO_MEMBER_AT_NORTH, NORTH_CLINIC, type SeededAccount } from "./organizations";
import { DNS_PORT, hasHorizontalScroll, IDP_PORT, WEB_PORT } from "./support";

/**
 * Trust between organizations, as the people involved live it (e2e/provision.ts made Klinik Nord
 * beside the demo organization):
 * - Klinik Nord's owner connects its OpenID provider and proves the e-mail domain by DNS (a name
 *   server on loopback, the API's DNS_RESOLVERS); its admin sees the settings read-only.
 * - The provider names Lena, who has an account in the demo organization with an authenticator
 *   app: before the provider may sign in to that account, it proves itself on /login/link with its
 *   password and app, and she confirms.
 * - Lena, now in both organizations, signs out everywhere from one of them.
 * - A member adds a passkey (confirmed with the password) and removes it (confirmed with the passkey).
 * Each new screen is checked with axe, in English at 1280 × 800 and in German at 390 × 844.
 */

const WEB = `http://localhost:${WEB_PORT}`;
const DOMAIN = NORTH_CLINIC.domain;
const PROVIDER = "Nord-Login";
const lena = DEMO_MEMBER_AT_NORTH;
const DESKTOP = { width: 1280, height: 800 };
const PHONE = { width: 390, height: 844 };
const SHOTS = "/tmp/shots/identity";

let idp: TestIdentityProvider;
let dns: TestDnsServer;
/** Klinik Nord's login URL, as its owner reads it in Settings. */
let northLoginUrl: string;
/** Lena's authenticator app, once she has set it up. */
let lenaApp: AuthenticatorApp;

test.describe.configure({ mode: "serial", timeout: 180_000 });

test.beforeAll(async () => {
  idp = await startTestIdentityProvider({
    redirectUris: [`${WEB}/sso/callback`],
    port: IDP_PORT,
    clientId: "clinsign-e2e-nord",
  });
  idp.users.set("lena", { email: lena.email, name: lena.name, groups: ["nord-staff"] });
  dns = await startTestDnsServer({ port: DNS_PORT });
});

test.afterAll(async () => {
  await idp?.close();
  await dns?.close();
});

/**
 * Pictures to look at, only when E2E_SHOTS=1 (not kept with the test results): the full page and,
 * where the page is long, the part this test is about (`<name>-part.png`).
 */
async function screen(page: Page, name: string, part?: Locator): Promise<void> {
  if (process.env.E2E_SHOTS !== "1") return;
  mkdirSync(SHOTS, { recursive: true });
  // From the top, so the sticky header stays where it belongs in the full-page picture.
  await page.evaluate(() => window.scrollTo(0, 0));
  await page.screenshot({ path: `${SHOTS}/${name}.png`, fullPage: true });
  if (part) await part.screenshot({ path: `${SHOTS}/${name}-part.png` });
}

async function freshPage(
  browser: Browser,
  viewport: { width: number; height: number },
  lang: "en" | "de" = "en",
): Promise<Page> {
  const context = await browser.newContext({
    baseURL: WEB,
    viewport,
    locale: lang === "de" ? "de-DE" : "en-GB",
  });
  await context.addCookies([{ name: "lang", value: lang, url: WEB }]);
  return context.newPage();
}

/** The same page in the other language and size (the lang cookie, then a reload). */
async function switchTo(page: Page, lang: "en" | "de", viewport: { width: number; height: number }) {
  await page.context().addCookies([{ name: "lang", value: lang, url: WEB }]);
  await page.setViewportSize(viewport);
  await page.reload();
  await expect(page.locator("html")).toHaveAttribute("lang", lang);
}

/** The login form's password step, in English or German. */
async function signInWithPassword(page: Page, account: SeededAccount, lang: "en" | "de" = "en") {
  await page.goto("/login");
  await page.getByLabel(lang === "en" ? "E-mail address" : "E-Mail-Adresse").fill(account.email);
  await page.getByLabel(lang === "en" ? "Password" : "Passwort", { exact: true }).fill(account.password);
  await page.getByRole("button", { name: lang === "en" ? "Sign in" : "Anmelden", exact: true }).click();
}

async function expectWelcome(page: Page, account: SeededAccount, lang: "en" | "de" = "en") {
  await expect(page).toHaveURL(`${WEB}/`);
  await expect(
    page.getByRole("heading", { level: 1, name: `${lang === "en" ? "Welcome" : "Willkommen"}, ${account.name}` }),
  ).toBeVisible({ timeout: 30_000 });
}

/** The provider's own sign-in form (any password), as a person fills it. */
async function signInAtProvider(page: Page, login: string) {
  await expect(page).toHaveURL(new RegExp(`^http://127\\.0\\.0\\.1:${IDP_PORT}/`));
  await page.locator('input[name="login"]').fill(login);
  await page.locator('input[name="password"]').fill("any password");
  await page.locator('button[type="submit"]').click();
}

/** At phone width the page fits: no sideways scrolling. */
async function expectFits(page: Page, state: string) {
  expect(await hasHorizontalScroll(page), `${state}: wider than the phone`).toBe(false);
}

const noSession = (page: Page) => page.evaluate(() => fetch("/trpc/auth.me").then((response) => response.status));

function ssoCard(page: Page, lang: "en" | "de" = "en"): Locator {
  return page.getByRole("form", {
    name: lang === "en" ? "Single sign-on (OpenID Connect)" : "Single Sign-on (OpenID Connect)",
  });
}

const domainOf = (card: Locator) => card.getByTestId("sso-domain").filter({ hasText: DOMAIN });

test("the owner connects Klinik Nord's provider; its new domain is Not verified with the TXT record until DNS has it", async ({
  browser,
}) => {
  const page = await freshPage(browser, DESKTOP);
  await signInWithPassword(page, NORTH_CLINIC.owner);
  await expectWelcome(page, NORTH_CLINIC.owner);
  await page.getByRole("navigation", { name: "Main navigation" }).getByRole("link", { name: "Settings" }).click();
  const card = ssoCard(page);
  await card.getByRole("switch", { name: "Offer single sign-on" }).check();
  await card.getByLabel("Provider name").fill(PROVIDER);
  await card.getByLabel("Issuer URL").fill(idp.issuer);
  await card.getByLabel("Client ID").fill(idp.clientId);
  await card.getByLabel("Client secret").fill(idp.clientSecret);
  await card.getByLabel("Allowed e-mail domains").fill(DOMAIN);
  await card.getByLabel("Role claim").fill("groups");
  await card.getByLabel("Claim value 1").fill("nord-staff");
  await card.getByLabel("Role 1").selectOption("staff");

  // Saving asks for the owner's password; a wrong one is refused at its field and nothing is saved.
  const stepUp = card.getByTestId("step-up");
  await stepUp.getByLabel("Your password").fill("not-the-owner-password");
  await card.getByRole("button", { name: "Save single sign-on" }).click();
  await expect(stepUp).toContainText("This password is not correct.");
  await expect(card.getByText("Single sign-on saved.")).toHaveCount(0);
  await expect(card.getByTestId("sso-domains")).toContainText("No domains saved yet.");
  await stepUp.getByLabel("Your password").fill(NORTH_CLINIC.owner.password);
  await card.getByRole("button", { name: "Save single sign-on" }).click();
  await expect(card.getByText("Single sign-on saved.")).toBeVisible();
  northLoginUrl = await card.getByTestId("sso-login-url").inputValue();
  expect(northLoginUrl).toMatch(new RegExp(`^${WEB}/login/[0-9a-f-]{36}$`));

  // The claim counts for nothing yet: the record to publish, and a check that does not find it.
  const domain = domainOf(card);
  await expect(domain).toContainText("Not verified");
  await expect(domain.getByLabel(`TXT record name for ${DOMAIN}`)).toHaveValue(`_clinsign-challenge.${DOMAIN}`);
  const txtValue = await domain.getByLabel(`TXT record value for ${DOMAIN}`).inputValue();
  expect(txtValue).toMatch(/^clinsign-domain-verification=\S+$/);
  await domain.getByRole("button", { name: `Check DNS now for ${DOMAIN}` }).click();
  await expect(domain.getByText("The TXT record was not found yet.")).toBeVisible();
  // Not proven, the domain routes no one to the provider.
  const login = await freshPage(browser, DESKTOP);
  await login.goto("/login");
  const asked = login.waitForResponse((response) => response.url().includes("auth.ssoProvider"));
  await login.getByLabel("E-mail address").fill(lena.email);
  await asked;
  await expect(login.getByRole("link", { name: `Sign in with ${PROVIDER}` })).toHaveCount(0);
  await login.context().close();

  await expectAccessible(page, "single sign-on settings with an unverified domain (en)");
  await screen(page, "sso-domain-unverified-en-1280", card.getByTestId("sso-domains"));
  await switchTo(page, "de", PHONE);
  const german = domainOf(ssoCard(page, "de"));
  await expect(german).toContainText("Nicht verifiziert");
  await expect(german.getByLabel(`Wert des TXT-Eintrags für ${DOMAIN}`)).toHaveValue(txtValue);
  await expectAccessible(page, "single sign-on settings with an unverified domain (de)");
  await expectFits(page, "single sign-on settings (de, 390)");
  await screen(page, "sso-domain-unverified-de-390", ssoCard(page, "de").getByTestId("sso-domains"));

  // Published as the page shows it, the record proves the domain.
  dns.setTxt(`_clinsign-challenge.${DOMAIN}`, [txtValue]);
  await german.getByRole("button", { name: `DNS jetzt prüfen für ${DOMAIN}` }).click();
  await expect(german.getByText(`${DOMAIN} ist verifiziert.`)).toBeVisible();
  await expect(german).toContainText("Verifiziert");
  await expect(german).not.toContainText("Nicht verifiziert");
  await expectAccessible(page, "single sign-on settings with a verified domain (de)");
  await screen(page, "sso-domain-verified-de-390", ssoCard(page, "de").getByTestId("sso-domains"));
  await switchTo(page, "en", DESKTOP);
  const english = domainOf(ssoCard(page));
  await expect(english).toContainText("Verified on");
  await expect(english.getByRole("button", { name: `Check DNS now for ${DOMAIN}` })).toHaveCount(0);
  await screen(page, "sso-domain-verified-en-1280", ssoCard(page).getByTestId("sso-domains"));
  await page.context().close();
});

test("an admin of Klinik Nord reads the single sign-on settings but cannot save them", async ({ browser }) => {
  for (const [lang, viewport, notice, save] of [
    ["en", DESKTOP, "Only owners can change single sign-on.", "Save single sign-on"],
    ["de", PHONE, "Nur Inhaber können das Single Sign-on ändern.", "Single Sign-on speichern"],
  ] as const) {
    const page = await freshPage(browser, viewport, lang);
    await signInWithPassword(page, NORTH_CLINIC.admin, lang);
    await expectWelcome(page, NORTH_CLINIC.admin, lang);
    await page.goto("/settings");
    const card = ssoCard(page, lang);
    await expect(card.getByText(notice)).toBeVisible();
    await expect(card.getByLabel(lang === "en" ? "Issuer URL" : "Issuer-URL")).toHaveValue(idp.issuer);
    await expect(card.getByLabel(lang === "en" ? "Issuer URL" : "Issuer-URL")).toBeDisabled();
    await expect(card.getByRole("button", { name: save })).toHaveCount(0);
    await expect(card.getByTestId("step-up")).toHaveCount(0);
    await expect(domainOf(card)).toContainText(lang === "en" ? "Verified" : "Verifiziert");
    await expectAccessible(page, `single sign-on settings read-only (${lang})`);
    if (viewport === PHONE) await expectFits(page, "single sign-on settings read-only");
    await screen(page, `sso-readonly-${lang}-${viewport.width}`, card);
    await page.context().close();
  }
});

test("Klinik Nord's provider names an account of the demo organization: on a phone, in German, each step, then Cancel", async ({
  browser,
}) => {
  // Lena, of the demo organization, protects her account with an authenticator app.
  const own = await freshPage(browser, DESKTOP);
  await signInWithPassword(own, lena);
  await expectWelcome(own, lena);
  await own.goto("/security");
  await own.getByRole("button", { name: "Set up the authenticator app" }).click();
  lenaApp = new AuthenticatorApp((await own.getByTestId("totp-secret").inputValue()).replace(/\s/g, ""));
  await own.getByLabel("Code from the app").fill(await lenaApp.code());
  await own.getByTestId("step-up").getByLabel("Your password").fill(lena.password);
  await own.getByRole("button", { name: "Confirm and turn on" }).click();
  await expect(own.getByRole("status").getByText("The authenticator app is set up.")).toBeVisible();
  await own.getByRole("button", { name: "I have saved the codes" }).click();
  await own.context().close();

  // From Klinik Nord's login URL: the provider, then the link page asks for her own password and app.
  const phone = await freshPage(browser, PHONE, "de");
  await phone.goto(northLoginUrl);
  await phone.getByRole("link", { name: `Mit ${PROVIDER} anmelden` }).click();
  await signInAtProvider(phone, "lena");
  await expect(phone).toHaveURL(`${WEB}/login/link`);
  await expect(phone.getByRole("heading", { level: 1, name: "Ihr Konto mit Klinik Nord verbinden" })).toBeVisible();
  await expect(phone.getByText(`Klinik Nord möchte ihre Anmeldung ${PROVIDER} mit Ihrem bestehenden`)).toContainText(
    lena.email,
  );
  await expectAccessible(phone, "the provider link, password step (de)");
  await expectFits(phone, "the provider link, password step");
  await screen(phone, "link-password-de-390");
  await phone.getByLabel(`Passwort von ${lena.email}`).fill(lena.password);
  await phone.getByRole("button", { name: "Weiter" }).click();
  await expect(phone.getByRole("heading", { level: 1, name: "Bestätigen Sie Ihre Anmeldung" })).toBeVisible();
  expect(await noSession(phone)).toBe(401);
  await expectAccessible(phone, "the provider link, second factor (de)");
  await expectFits(phone, "the provider link, second factor");
  await screen(phone, "link-second-factor-de-390");
  await phone.getByLabel("Code aus Ihrer Authenticator-App").fill(await lenaApp.code());
  await phone.getByRole("button", { name: "Bestätigen", exact: true }).click();
  await expect(
    phone.getByRole("button", { name: "Verbinden und bei Klinik Nord als Mitarbeiter/in anmelden" }),
  ).toBeVisible();
  expect(await noSession(phone)).toBe(401);
  await expectAccessible(phone, "the provider link, confirmation (de)");
  await expectFits(phone, "the provider link, confirmation");
  await screen(phone, "link-confirm-de-390");

  // Cancel: back at the login, signed in nowhere, nothing connected.
  await phone.getByRole("button", { name: "Abbrechen" }).click();
  await expect(phone).toHaveURL(`${WEB}/login`);
  await expect(phone.getByRole("heading", { level: 1, name: "Anmelden" })).toBeVisible();
  expect(await noSession(phone)).toBe(401);
  await phone.context().close();
});

test("a wrong password on the link page is refused there and opens no session; a cancelled link has expired", async ({
  browser,
}) => {
  const page = await freshPage(browser, DESKTOP);
  await page.goto(northLoginUrl);
  await page.getByRole("link", { name: `Sign in with ${PROVIDER}` }).click();
  await signInAtProvider(page, "lena");
  await expect(page).toHaveURL(`${WEB}/login/link`);
  await page.getByLabel(`Password of ${lena.email}`).fill("not-her-password");
  await page.getByRole("button", { name: "Continue" }).click();
  await expect(page.getByText("This password is not correct.")).toBeVisible();
  await expect(page).toHaveURL(`${WEB}/login/link`);
  expect(await noSession(page)).toBe(401);
  await screen(page, "link-wrong-password-en-1280");
  await page.getByRole("button", { name: "Cancel" }).click();
  await expect(page).toHaveURL(`${WEB}/login`);
  await page.goto("/login/link");
  await expect(page.getByRole("heading", { level: 1, name: "This request has expired" })).toBeVisible();
  await expectAccessible(page, "the provider link, expired (en)");
  await screen(page, "link-expired-en-1280");
  await page.context().close();
});

test("a wrong password on an organization's login page is answered there, not as an ended session", async ({
  browser,
}) => {
  const page = await freshPage(browser, DESKTOP);
  await page.goto(northLoginUrl);
  await page.getByLabel("E-mail address").fill(lena.email);
  await page.getByLabel("Password").fill("not-her-password");
  await page.getByRole("button", { name: "Sign in", exact: true }).click();
  await expect(page.getByText("Wrong e-mail address or password.")).toBeVisible();
  await expect(page).toHaveURL(northLoginUrl);
  expect(await noSession(page)).toBe(401);
  await page.context().close();
});

test("on a desktop, in English, found by her address: Lena's account proves itself and is connected to Klinik Nord", async ({
  browser,
}) => {
  const page = await freshPage(browser, DESKTOP);
  await page.goto("/login");
  await page.getByLabel("E-mail address").fill(lena.email);
  await page.getByRole("link", { name: `Sign in with ${PROVIDER}` }).click();
  await signInAtProvider(page, "lena");
  await expect(page).toHaveURL(`${WEB}/login/link`);
  await expect(page.getByRole("heading", { level: 1, name: "Connect your account to Klinik Nord" })).toBeVisible();
  await expect(
    page.getByText(`Klinik Nord wants to connect its sign-in ${PROVIDER} to your existing ClinSign account`),
  ).toContainText(lena.email);
  await expectAccessible(page, "the provider link, password step (en)");
  await screen(page, "link-password-en-1280");
  await page.getByLabel(`Password of ${lena.email}`).fill(lena.password);
  await page.getByRole("button", { name: "Continue" }).click();
  await expect(page.getByRole("heading", { level: 1, name: "Confirm it's you" })).toBeVisible();
  await expectAccessible(page, "the provider link, second factor (en)");
  await screen(page, "link-second-factor-en-1280");
  await page.getByLabel("Code from your authenticator app").fill(await lenaApp.code());
  await page.getByRole("button", { name: "Confirm", exact: true }).click();
  const connect = page.getByRole("button", { name: "Connect and sign in to Klinik Nord as Staff" });
  await expect(connect).toBeVisible();
  await expect(page.getByText(`Your account ${lena.email} is confirmed.`)).toBeVisible();
  await expectAccessible(page, "the provider link, confirmation (en)");
  await screen(page, "link-confirm-en-1280");
  await connect.click();
  await expectWelcome(page, lena);
  await expect(page.getByRole("banner")).toContainText("Klinik Nord");
  await page.context().close();
});

test("Lena, in both organizations, signs out everywhere: the session in the other organization ends too", async ({
  browser,
}) => {
  // The demo organization with her password and app (her oldest membership opens).
  const demo = await freshPage(browser, DESKTOP);
  await signInWithPassword(demo, lena);
  await demo.getByLabel("Code from your authenticator app").fill(await lenaApp.code());
  await demo.getByRole("button", { name: "Confirm", exact: true }).click();
  await expectWelcome(demo, lena);
  await expect(demo.getByRole("banner")).toContainText("Demo Clinic");

  // Klinik Nord through its provider, now connected: no more questions.
  const north = await freshPage(browser, PHONE, "de");
  await north.goto(northLoginUrl);
  await north.getByRole("link", { name: `Mit ${PROVIDER} anmelden` }).click();
  await signInAtProvider(north, "lena");
  await expectWelcome(north, lena, "de");
  await expect(north.getByRole("banner")).toContainText("Klinik Nord");
  await north.goto("/account");
  await north.getByRole("button", { name: "Überall abmelden (alle Organisationen)" }).click();
  const germanDialog = north.getByRole("alertdialog", { name: "Überall abmelden?" });
  await expect(germanDialog.getByRole("button", { name: "In allen Organisationen abmelden" })).toBeVisible();
  await expectAccessible(north, "sign out everywhere dialog (de)");
  await expectFits(north, "sign out everywhere dialog");
  await screen(north, "account-end-all-de-390", germanDialog);
  await germanDialog.getByRole("button", { name: "Abbrechen" }).click();
  await expect(germanDialog).toBeHidden();

  await demo.goto("/account");
  await demo.getByRole("button", { name: "Sign out everywhere (all organizations)" }).click();
  const dialog = demo.getByRole("alertdialog", { name: "Sign out everywhere?" });
  await expect(dialog).toContainText("in every organization you belong to");
  await expectAccessible(demo, "sign out everywhere dialog (en)");
  await screen(demo, "account-end-all-en-1280", dialog);
  await dialog.getByRole("button", { name: "Sign out in every organization" }).click();
  await expect(demo).toHaveURL(/\/login\?reason=signed-out$/);
  await expect(demo.getByText("You have been signed out.")).toBeVisible();
  expect(await noSession(demo)).toBe(401);

  // The other organization's browser is out at its next page.
  await north.goto("/documents");
  await expect(north).toHaveURL(/\/login/, { timeout: 30_000 });
  expect(await noSession(north)).toBe(401);
  await demo.context().close();
  await north.context().close();
});

test("a member adds a passkey confirmed with the password, and removing it asks for the passkey", async ({
  browser,
}) => {
  const sam = NORTH_CLINIC.member;
  const page = await freshPage(browser, PHONE, "de");
  await addVirtualAuthenticator(page);
  await signInWithPassword(page, sam, "de");
  await expectWelcome(page, sam, "de");

  // In German on a phone: the step-up asks for the password; a wrong one changes nothing.
  await page.goto("/security");
  const passkeys = page.getByTestId("passkeys-card");
  await passkeys.getByLabel("Name des Passkeys").fill("Arbeitslaptop");
  await passkeys.getByRole("button", { name: "Passkey hinzufügen" }).click();
  const stepUpDe = passkeys.getByTestId("step-up");
  await expect(stepUpDe.getByLabel("Ihr Passwort")).toBeFocused();
  await expectAccessible(page, "passkey step-up (de)");
  await expectFits(page, "passkey step-up");
  await screen(page, "security-step-up-add-de-390", passkeys);
  await stepUpDe.getByLabel("Ihr Passwort").fill("nicht-das-passwort");
  await passkeys.getByRole("button", { name: "Passkey hinzufügen" }).click();
  await expect(stepUpDe).toContainText("Dieses Passwort ist nicht korrekt.");
  await expect(passkeys.getByText("Noch keine Passkeys.")).toBeVisible();
  await expect(page.getByTestId("passkey-row")).toHaveCount(0);
  await screen(page, "security-step-up-wrong-de-390", passkeys);
  await passkeys.getByRole("button", { name: "Abbrechen" }).click();

  // In English on a desktop: added with the password.
  await switchTo(page, "en", DESKTOP);
  await passkeys.getByLabel("Name of the passkey").fill("Work laptop");
  await passkeys.getByRole("button", { name: "Add a passkey" }).click();
  const stepUp = passkeys.getByTestId("step-up");
  await expect(stepUp.getByLabel("Your password")).toBeVisible();
  await screen(page, "security-step-up-add-en-1280", passkeys);
  await stepUp.getByLabel("Your password").fill(sam.password);
  await passkeys.getByRole("button", { name: "Add a passkey" }).click();
  await expect(page.getByRole("status").getByText('Passkey "Work laptop" added.')).toBeVisible();
  await expect(page.getByTestId("passkey-row")).toHaveCount(1);
  await page.getByRole("button", { name: "I have saved the codes" }).click();

  // With a factor, the password no longer confirms: a code or the passkey does. A wrong code keeps it.
  await page.getByRole("button", { name: "Remove passkey Work laptop" }).click();
  const row = page.getByTestId("passkey-row");
  await expect(row.getByTestId("step-up").getByLabel("Your password")).toHaveCount(0);
  await expect(row.getByRole("button", { name: "Confirm with a passkey" })).toBeVisible();
  await expectAccessible(page, "passkey removal step-up (en)");
  await screen(page, "security-step-up-remove-en-1280", passkeys);
  await row.getByTestId("step-up").getByLabel("Recovery code").fill("abcde-fghjk");
  await row.getByRole("button", { name: "Remove", exact: true }).click();
  await expect(row.getByTestId("step-up")).toContainText("This code is not valid.");
  await expect(page.getByTestId("passkey-row")).toHaveCount(1);
  await row.getByRole("button", { name: "Confirm with a passkey" }).click();
  await expect(page.getByRole("status").getByText('Passkey "Work laptop" removed.')).toBeVisible();
  await expect(page.getByText("No passkeys yet.")).toBeVisible();
  await page.context().close();
});
