import { createHmac } from "node:crypto";
import { expect, test, type Page } from "@playwright/test";
import { expectAccessible } from "./forms-support";
import { ADMIN_EMAIL, ADMIN_PASSWORD, hasHorizontalScroll, shot, signIn } from "./support";

/** RFC 6238 (SHA-1, 30 s, 6 digits), computed here from the secret the page shows, as an app would. */
function totp(secretBase32: string, stepOffset = 0): string {
  const alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567";
  let bits = "";
  for (const char of secretBase32.replace(/\s/g, "")) bits += alphabet.indexOf(char).toString(2).padStart(5, "0");
  const key = Buffer.from(bits.match(/.{8}/g)!.map((byte) => parseInt(byte, 2)));
  const counter = Buffer.alloc(8);
  counter.writeBigUInt64BE(BigInt(Math.floor(Date.now() / 30_000) + stepOffset));
  const mac = createHmac("sha1", key).update(counter).digest();
  const offset = mac[mac.length - 1]! & 0x0f;
  return String((mac.readUInt32BE(offset) & 0x7fffffff) % 1_000_000).padStart(6, "0");
}

async function openSecurity(page: Page) {
  await page
    .getByRole("navigation", { name: "Main navigation" })
    .getByRole("link", { name: "Account security" })
    .click();
  await expect(page).toHaveURL(/\/security$/);
  await expect(page.getByRole("heading", { level: 1, name: "Account security" })).toBeVisible();
}

async function signOut(page: Page) {
  await page.getByRole("button", { name: "Sign out" }).click();
  await expect(page).toHaveURL(/\/login/);
}

async function passwordStep(page: Page) {
  await page.getByLabel("E-mail address").fill(ADMIN_EMAIL);
  await page.getByLabel("Password").fill(ADMIN_PASSWORD);
  await page.getByRole("button", { name: "Sign in", exact: true }).click();
}

/** Both languages through the language switch, which keeps the page's state (recovery codes shown once, a sign-in step). */
async function bothLanguages(page: Page, name: string) {
  await widths(page, `${name}-en`);
  await page.getByRole("button", { name: "Deutsch" }).click();
  await expect(page.locator("html")).toHaveAttribute("lang", "de");
  await widths(page, `${name}-de`);
  await page.getByRole("button", { name: "English" }).click();
  await expect(page.locator("html")).toHaveAttribute("lang", "en");
  await page.setViewportSize({ width: 1280, height: 800 });
}

async function widths(page: Page, name: string) {
  for (const [width, height] of [
    [390, 844],
    [1280, 800],
  ] as const) {
    await page.setViewportSize({ width, height });
    expect(await hasHorizontalScroll(page), `${name} ${width}`).toBe(false);
    await shot(page, `${name}-${width}`);
  }
}

/** Screenshots at phone and desk width, in English and German, for looking at the page (reloads it). */
async function shots(page: Page, name: string) {
  for (const lang of ["en", "de"] as const) {
    await page.context().addCookies([{ name: "lang", value: lang, url: page.url() }]);
    await page.reload();
    await expect(page.locator("html")).toHaveAttribute("lang", lang);
    for (const [width, height] of [
      [390, 844],
      [1280, 800],
    ] as const) {
      await page.setViewportSize({ width, height });
      await page.waitForLoadState("networkidle");
      expect(await hasHorizontalScroll(page), `${name} ${lang} ${width}`).toBe(false);
      await shot(page, `${name}-${lang}-${width}`);
    }
  }
  await page.context().addCookies([{ name: "lang", value: "en", url: page.url() }]);
  await page.reload();
}

test.describe("second factors", () => {
  test("an authenticator app is set up from its QR code, asked for after the password, and removed", async ({
    page,
  }) => {
    test.setTimeout(240_000);
    await signIn(page);
    await openSecurity(page);
    await expect(page.getByText("You sign in with your password only.")).toBeVisible();
    await expectAccessible(page, "account security without factors");
    await shots(page, "security-empty");

    await page.getByRole("button", { name: "Set up the authenticator app" }).click();
    await expect(page.getByRole("img", { name: "QR code for the authenticator app" })).toBeVisible();
    const secret = (await page.getByTestId("totp-secret").inputValue()).replace(/\s/g, "");
    expect(secret).toMatch(/^[A-Z2-7]{32}$/);
    await expectAccessible(page, "authenticator set-up");
    await bothLanguages(page, "security-totp-setup");

    // A wrong code is refused with a message; the right one turns the app on.
    await page.getByLabel("Code from the app").fill(totp(secret, 5));
    await page.getByRole("button", { name: "Confirm and turn on" }).click();
    await expect(page.getByText("This code is not valid.")).toBeVisible();
    await page.getByLabel("Code from the app").fill(totp(secret));
    await page.getByRole("button", { name: "Confirm and turn on" }).click();
    await expect(page.getByRole("status").getByText("The authenticator app is set up.")).toBeVisible();
    const codes = page.getByTestId("recovery-codes").getByRole("listitem");
    await expect(codes).toHaveCount(10);
    await expectAccessible(page, "recovery codes");
    await bothLanguages(page, "security-recovery-codes");
    await page.getByRole("button", { name: "I have saved the codes" }).click();
    await expect(page.getByText("10 of 10 codes left")).toBeVisible();

    // Next sign-in: password, then the code (of the next time step: the set-up used this one).
    await signOut(page);
    await passwordStep(page);
    await expect(page.getByRole("heading", { level: 1, name: "Confirm it's you" })).toBeVisible();
    await expectAccessible(page, "second step");
    await bothLanguages(page, "login-second-step");
    await page.getByLabel("Code from your authenticator app").fill("000000" === totp(secret, 1) ? "111111" : "000000");
    await page.getByRole("button", { name: "Confirm" }).click();
    await expect(page.getByTestId("login-error")).toHaveText("This code is not valid. Check it and try again.");
    await page.getByLabel("Code from your authenticator app").fill(totp(secret, 1));
    await page.getByRole("button", { name: "Confirm" }).click();
    await expect(page.getByRole("heading", { level: 1, name: /^Welcome, / })).toBeVisible();

    await openSecurity(page);
    await page.getByTestId("totp-card").getByRole("button", { name: "Remove" }).click();
    await page.getByTestId("totp-card").getByRole("button", { name: "Remove" }).click();
    await expect(page.getByRole("status").getByText("The authenticator app was removed.")).toBeVisible();
    await expect(page.getByRole("button", { name: "Set up the authenticator app" })).toBeVisible();
  });

  test("a passkey is registered with a name, signs in without a password and as the second step, and is removed", async ({
    page,
  }) => {
    test.setTimeout(240_000);
    const cdp = await page.context().newCDPSession(page);
    await cdp.send("WebAuthn.enable");
    await cdp.send("WebAuthn.addVirtualAuthenticator", {
      options: {
        protocol: "ctap2",
        transport: "internal",
        hasResidentKey: true,
        hasUserVerification: true,
        isUserVerified: true,
      },
    });

    await signIn(page);
    await openSecurity(page);
    await page.getByLabel("Name of the passkey").fill("E2E laptop");
    await page.getByRole("button", { name: "Add a passkey" }).click();
    await expect(page.getByRole("status").getByText('Passkey "E2E laptop" added.')).toBeVisible();
    await expect(page.getByTestId("passkey-row")).toHaveCount(1);
    await expect(page.getByTestId("passkey-row")).toContainText("E2E laptop");
    await expect(page.getByTestId("recovery-codes").getByRole("listitem")).toHaveCount(10);
    await page.getByRole("button", { name: "I have saved the codes" }).click();
    await page.setViewportSize({ width: 1280, height: 800 });
    await expectAccessible(page, "passkey listed");
    await shots(page, "security-passkey");

    // Passwordless: the discoverable passkey names the account.
    await signOut(page);
    await expectAccessible(page, "login with passkey button");
    await shots(page, "login");
    await page.getByRole("button", { name: "Sign in with a passkey" }).click();
    await expect(page.getByRole("heading", { level: 1, name: /^Welcome, / })).toBeVisible();

    // After the password, the passkey is the second step.
    await signOut(page);
    await passwordStep(page);
    await expect(page.getByRole("heading", { level: 1, name: "Confirm it's you" })).toBeVisible();
    await page.getByRole("button", { name: "Use a passkey" }).click();
    await expect(page.getByRole("heading", { level: 1, name: /^Welcome, / })).toBeVisible();

    await openSecurity(page);
    await expect(page.getByTestId("passkey-row")).toContainText("last used");
    await page.getByRole("button", { name: "Remove passkey E2E laptop" }).click();
    await page.getByTestId("passkey-row").getByRole("button", { name: "Remove", exact: true }).click();
    await expect(page.getByRole("status").getByText('Passkey "E2E laptop" removed.')).toBeVisible();
    await expect(page.getByText("No passkeys yet.")).toBeVisible();

    // Without a factor the password alone signs in again.
    await signOut(page);
    await passwordStep(page);
    await expect(page.getByRole("heading", { level: 1, name: /^Welcome, / })).toBeVisible();
  });

  test("where the organization requires a second factor, a member without one sets it up right after the password", async ({
    page,
  }) => {
    test.setTimeout(240_000);
    const setRequired = async (on: boolean) => {
      await page.getByRole("navigation", { name: "Main navigation" }).getByRole("link", { name: "Settings" }).click();
      const toggle = page.getByRole("switch", { name: "Require a second factor" });
      await expect(toggle).toBeVisible();
      if ((await toggle.isChecked()) !== on) await toggle.click();
      await page.getByRole("button", { name: "Save changes" }).click();
      await expect(page.getByText("Settings saved.")).toBeVisible();
    };
    await signIn(page);
    await setRequired(true);
    await signOut(page);

    await passwordStep(page);
    await expect(page.getByRole("heading", { level: 1, name: "Set up a second factor" })).toBeVisible();
    await expectAccessible(page, "enrolment choice");
    await bothLanguages(page, "login-enroll");
    await page.getByRole("button", { name: "Set up the authenticator app" }).click();
    const secret = (await page.getByTestId("totp-secret").inputValue()).replace(/\s/g, "");
    await expectAccessible(page, "enrolment with the app");
    await bothLanguages(page, "login-enroll-totp");
    await page.getByLabel("Code from the app").fill(totp(secret));
    await page.getByRole("button", { name: "Confirm and turn on" }).click();
    await expect(page.getByTestId("recovery-codes").getByRole("listitem")).toHaveCount(10);
    await page.getByRole("button", { name: "Continue to the console" }).click();
    await expect(page.getByRole("heading", { level: 1, name: /^Welcome, / })).toBeVisible();

    // The last factor stays while the requirement is on; off again, it can go.
    await openSecurity(page);
    await expect(page.getByText("Your organization requires a second factor. Keep at least one.")).toBeVisible();
    await page.getByTestId("totp-card").getByRole("button", { name: "Remove" }).click();
    await page.getByTestId("totp-card").getByRole("button", { name: "Remove" }).click();
    await expect(page.getByRole("status").getByText("add another one before removing this")).toBeVisible();
    await setRequired(false);
    await openSecurity(page);
    await page.getByTestId("totp-card").getByRole("button", { name: "Remove" }).click();
    await page.getByTestId("totp-card").getByRole("button", { name: "Remove" }).click();
    await expect(page.getByRole("status").getByText("The authenticator app was removed.")).toBeVisible();
  });
});
