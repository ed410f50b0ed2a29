import { expect, test, type Locator, type Page } from "@playwright/test";
import { addVirtualAuthenticator, totp } from "./authenticator";
import { expectAccessible } from "./forms-support";
import { ADMIN_EMAIL, ADMIN_PASSWORD, hasHorizontalScroll, shot, signIn } from "./support";

/** The step-up field of a change, once the account has a second factor: a recovery code answers it. */
const CODE_OR_RECOVERY = "Code from your authenticator app or a recovery code";

/** Removes the authenticator app on the security page: "Remove", the step-up, "Remove" again. */
async function removeTotp(page: Page, stepUpCode: string): Promise<Locator> {
  const card = page.getByTestId("totp-card");
  await card.getByRole("button", { name: "Remove" }).click();
  await card.getByTestId("step-up").getByLabel(CODE_OR_RECOVERY).fill(stepUpCode);
  await card.getByRole("button", { name: "Remove" }).click();
  return card;
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
    // A change to how the account signs in asks for the password once more, in the same form.
    await expect(page.getByTestId("totp-setup").getByTestId("step-up")).toBeVisible();
    await expectAccessible(page, "authenticator set-up");
    await bothLanguages(page, "security-totp-setup");

    // A wrong password is refused at its field, and nothing is set up.
    await page.getByLabel("Code from the app").fill(totp(secret));
    await page.getByTestId("step-up").getByLabel("Your password").fill("not-the-password");
    await page.getByRole("button", { name: "Confirm and turn on" }).click();
    await expect(page.getByTestId("step-up")).toContainText("This password is not correct.");
    await page.getByTestId("step-up").getByLabel("Your password").fill(ADMIN_PASSWORD);

    // A wrong code is refused with a message; the right one turns the app on.
    await page.getByLabel("Code from the app").fill(totp(secret, 5));
    await page.getByRole("button", { name: "Confirm and turn on" }).click();
    await expect(page.getByText("This code is not valid.")).toBeVisible();
    await page.getByLabel("Code from the app").fill(totp(secret));
    await page.getByRole("button", { name: "Confirm and turn on" }).click();
    await expect(page.getByRole("status").getByText("The authenticator app is set up.")).toBeVisible();
    const codes = page.getByTestId("recovery-codes").getByRole("listitem");
    await expect(codes).toHaveCount(10);
    const recoveryCodes = (await codes.allTextContents()).map((code) => code.trim());
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

    // With a second factor, the password alone no longer confirms a change: a code does.
    await openSecurity(page);
    await removeTotp(page, recoveryCodes[0]!);
    await expect(page.getByRole("status").getByText("The authenticator app was removed.")).toBeVisible();
    await expect(page.getByRole("button", { name: "Set up the authenticator app" })).toBeVisible();
  });

  test("a passkey is registered with a name, signs in without a password and as the second step, and is removed", async ({
    page,
  }) => {
    test.setTimeout(240_000);
    await addVirtualAuthenticator(page);

    await signIn(page);
    await openSecurity(page);
    await page.getByLabel("Name of the passkey").fill("E2E laptop");
    await page.getByRole("button", { name: "Add a passkey" }).click();
    // Confirmed with the password first (the account has no second factor yet).
    await page.getByTestId("passkeys-card").getByTestId("step-up").getByLabel("Your password").fill(ADMIN_PASSWORD);
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
    // Removing it is confirmed with the passkey itself (the form submits on its answer).
    await page.getByRole("button", { name: "Remove passkey E2E laptop" }).click();
    await page.getByTestId("passkey-row").getByRole("button", { name: "Confirm with a passkey" }).click();
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
    const recoveryCodes = (await page.getByTestId("recovery-codes").getByRole("listitem").allTextContents()).map(
      (code) => code.trim(),
    );
    await page.getByRole("button", { name: "Continue to the console" }).click();
    await expect(page.getByRole("heading", { level: 1, name: /^Welcome, / })).toBeVisible();

    // The last factor stays while the requirement is on; off again, it can go.
    await openSecurity(page);
    await expect(page.getByText("Your organization requires a second factor. Keep at least one.")).toBeVisible();
    await removeTotp(page, recoveryCodes[0]!);
    await expect(page.getByRole("status").getByText("add another one before removing this")).toBeVisible();
    await setRequired(false);
    await openSecurity(page);
    await removeTotp(page, recoveryCodes[1]!);
    await expect(page.getByRole("status").getByText("The authenticator app was removed.")).toBeVisible();
  });
});
