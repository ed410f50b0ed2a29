import { expect, test, type Page } from "@playwright/test";

/**
 * Every port below moves by `E2E_PORT_OFFSET` (default 0), so two checkouts on one machine can
 * run the suite at the same time.
 */
const OFFSET = Number(process.env.E2E_PORT_OFFSET ?? 0);

/** The stack playwright.config.ts starts. */
export const WEB_PORT = 3100 + OFFSET;
export const API_PORT = 4100 + OFFSET;
export const API_URL = `http://127.0.0.1:${API_PORT}`;
/** signing.spec.ts serves the PDFs the API fetches from here (allowed in OUTBOUND_ALLOW_HOSTS). */
export const FILE_SERVER_PORT = 4199 + OFFSET;
/** The form tests' stand-ins, all on 127.0.0.1: a host page that embeds a form (its origin is allowed by the session), a host page whose origin is not, a webhook receiver (allowed in OUTBOUND_ALLOW_HOSTS) and an SMTP server (SMTP_URL). */
export const HOST_PAGE_PORT = 4201 + OFFSET;
export const FOREIGN_HOST_PAGE_PORT = 4202 + OFFSET;
export const WEBHOOK_RECEIVER_PORT = 4203 + OFFSET;
export const SMTP_PORT = 4225 + OFFSET;
/** A Twilio-compatible SMS gateway the SMS tests run (TWILIO_API_URL): SMS texts, secrets included, are read here, not from the staff outbox, which never shows them. */
export const SMS_GATEWAY_PORT = 4226 + OFFSET;
/** sso.spec.ts runs an OpenID Provider here (allowed in OUTBOUND_ALLOW_HOSTS). */
export const IDP_PORT = 4227 + OFFSET;
/** sso.spec.ts and identity-trust.spec.ts run a name server here (UDP, DNS_RESOLVERS): the TXT records that prove SSO domains. */
export const DNS_PORT = 4228 + OFFSET;
export const ADMIN_EMAIL = "admin@demo.clinic";
export const ADMIN_PASSWORD = "e2e-password-123";

/** Signs in through the login form, as a person would, and waits for the overview. */
export async function signIn(page: Page): Promise<void> {
  await page.goto("/login");
  await page.getByLabel("E-mail address").fill(ADMIN_EMAIL);
  await page.getByLabel("Password").fill(ADMIN_PASSWORD);
  await page.getByRole("button", { name: "Sign in", exact: true }).click();
  await expect(page).toHaveURL(/\/$/);
  await expect(page.getByRole("heading", { level: 1, name: /^Welcome, / })).toBeVisible();
}

/** True when the page is wider than the viewport (a horizontal scrollbar). */
export async function hasHorizontalScroll(page: Page): Promise<boolean> {
  return page.evaluate(() => document.documentElement.scrollWidth > window.innerWidth);
}

/** Collects Content-Security-Policy violations reported on the page's console. */
export function watchCspViolations(page: Page): string[] {
  const violations: string[] = [];
  page.on("console", (message) => {
    if (/Content Security Policy/i.test(message.text())) violations.push(message.text());
  });
  return violations;
}

/**
 * A screenshot for looking at a page as staff or patients see it: into the test's output folder
 * (test-results/…), or into E2E_SHOTS when it names a folder (E2E_SHOTS=1 only turns on the
 * identity-trust spec's pictures, which go to /tmp/shots/identity).
 */
export async function shot(page: Page, name: string): Promise<void> {
  const dir = process.env.E2E_SHOTS === "1" ? undefined : process.env.E2E_SHOTS;
  await page.screenshot({ path: dir ? `${dir}/${name}.png` : test.info().outputPath(`${name}.png`) });
}

/** The patient pages' language select, named "Language" in English and "Sprache" in German. */
export const PATIENT_LANGUAGE_SWITCH = /^(Language|Sprache)$/;
