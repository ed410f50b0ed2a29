import { expect, test, type Browser, type BrowserContext, type Page } from "@playwright/test";
import { expectAccessible, startMailbox, type Mailbox } from "./forms-support";
import { ADMIN_EMAIL, ADMIN_PASSWORD, hasHorizontalScroll, shot, WEB_PORT } from "./support";

/**
 * Users, roles and sessions as an admin and an invited colleague live them: the invitation
 * e-mail (SMTP, playwright.config.ts sets SMTP_URL to the server below), accepting it, a role
 * change to viewer, the colleague's own sessions, and deactivation ending the colleague's session.
 */

let mailbox: Mailbox;

const invitee = {
  email: `colleague-${Date.now()}@example.org`,
  name: "Dr. Eva Beispiel",
  password: "invited-password-1",
};
let admin: { context: BrowserContext; page: Page };
let colleague: { context: BrowserContext; page: Page };

const newContext = (browser: Browser, locale: "en-GB" | "de-DE" = "en-GB", viewport = { width: 1280, height: 800 }) =>
  browser.newContext({ baseURL: `http://localhost:${WEB_PORT}`, locale, viewport });

/** The invite link of the newest mail to `to`, quoted-printable decoded. */
async function inviteLink(to: string): Promise<string> {
  await expect.poll(() => mailbox.mails.some((mail) => mail.to.includes(to)), { timeout: 20_000 }).toBe(true);
  const raw = mailbox.mails.filter((mail) => mail.to.includes(to)).at(-1)!.raw;
  const text = raw.replace(/=\r?\n/g, "").replace(/=3D/g, "=");
  return /https?:\/\/[^\s]+\/invite#[A-Za-z0-9_-]+/.exec(text)![0];
}

async function signInAs(page: Page, email: string, password: string) {
  await page.goto("/login");
  await page.getByLabel("E-mail address").fill(email);
  await page.getByLabel("Password").fill(password);
  await page.getByRole("button", { name: "Sign in", exact: true }).click();
}

test.describe.configure({ mode: "serial", timeout: 120_000 });

test.beforeAll(async ({ browser }) => {
  mailbox = await startMailbox();
  const context = await newContext(browser);
  admin = { context, page: await context.newPage() };
  // The first sign-in meets a cold server: give it longer than the shared helper does.
  await signInAs(admin.page, ADMIN_EMAIL, ADMIN_PASSWORD);
  await expect(admin.page.getByRole("heading", { level: 1, name: /^Welcome, / })).toBeVisible({ timeout: 30_000 });
});

test.afterAll(async () => {
  await admin?.context.close();
  await colleague?.context.close();
  await mailbox?.close();
});

test("an admin invites a colleague by e-mail; the link opens once, sets name and password, and signs in", async ({
  browser,
}) => {
  const page = admin.page;
  await page.getByRole("navigation", { name: "Main navigation" }).getByRole("link", { name: "Users" }).click();
  await expect(page.getByRole("heading", { level: 1, name: "Users" })).toBeVisible();
  await expect(page.getByRole("table", { name: "Members of the organization" })).toBeVisible();
  await expectAccessible(page, "users page");

  await page.getByLabel("E-mail address").fill(invitee.email);
  await page.getByLabel("Role", { exact: true }).selectOption({ label: "Staff" });
  await page.getByRole("button", { name: "Send invitation" }).click();
  await expect(page.getByRole("status").filter({ hasText: `Invitation sent to ${invitee.email}.` })).toBeVisible();
  await expect(
    page
      .getByRole("table", { name: "Invitations not yet accepted" })
      .getByRole("row")
      .filter({ hasText: invitee.email }),
  ).toContainText("Open");

  const link = await inviteLink(invitee.email);
  const context = await newContext(browser);
  colleague = { context, page: await context.newPage() };
  await colleague.page.goto(link);
  await expect(colleague.page.getByRole("heading", { level: 1, name: /^Join / })).toBeVisible();
  await expect(colleague.page.getByText(`You were invited as Staff with ${invitee.email}.`)).toBeVisible();
  await expectAccessible(colleague.page, "invite page");
  await colleague.page.getByLabel("Your name").fill(invitee.name);
  await colleague.page.getByLabel("Password").fill(invitee.password);
  await colleague.page.getByRole("button", { name: "Accept and sign in" }).click();
  await expect(colleague.page.getByRole("heading", { level: 1, name: `Welcome, ${invitee.name}` })).toBeVisible({
    timeout: 30_000,
  });

  // Used once: the same link now says so, in a fresh browser too.
  const other = await newContext(browser);
  const again = await other.newPage();
  await again.goto(link);
  await expect(again.getByRole("heading", { level: 1, name: "This invitation link is not valid" })).toBeVisible();
  await expectAccessible(again, "used invite link");
  await other.close();

  await page.reload();
  await expect(
    page
      .getByRole("table", { name: "Members of the organization" })
      .getByRole("row")
      .filter({ hasText: invitee.email }),
  ).toContainText("Active");
});

test("a colleague made viewer sees no edit buttons, and the API refuses a direct call with 403", async () => {
  const page = admin.page;
  const row = page
    .getByRole("table", { name: "Members of the organization" })
    .getByRole("row")
    .filter({ hasText: invitee.email });
  await row.getByLabel(`Role of ${invitee.name}`).selectOption({ label: "Viewer" });
  await expect(page.getByRole("status").filter({ hasText: `${invitee.name} is now Viewer.` })).toBeVisible();

  const mine = colleague.page;
  await mine.goto("/documents");
  await expect(mine.getByRole("heading", { level: 1, name: "Documents" })).toBeVisible();
  await expect(mine.getByRole("link", { name: "Add document" })).toHaveCount(0);
  const nav = mine.getByRole("navigation", { name: "Main navigation" });
  await expect(nav.getByRole("link", { name: "Users" })).toHaveCount(0);
  await expect(nav.getByRole("link", { name: "API tokens" })).toHaveCount(0);
  await mine.goto("/form-templates");
  await expect(mine.getByRole("heading", { level: 1, name: "Form templates" })).toBeVisible();
  await expect(mine.getByRole("button", { name: "Create and edit" })).toHaveCount(0);

  const status = await mine.evaluate(() =>
    fetch("/trpc/documents.create", {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ name: "x" }),
    }).then((r) => r.status),
  );
  expect(status).toBe(403);
  // Reading stays open to a viewer.
  const readStatus = await mine.evaluate(() =>
    fetch(`/trpc/documents.overview?input=${encodeURIComponent(JSON.stringify({ limit: 5 }))}`).then((r) => r.status),
  );
  expect(readStatus).toBe(200);
});

test("a colleague sees their own sessions, the current one marked, and ends another one", async ({ browser }) => {
  const secondContext = await newContext(browser, "en-GB", { width: 390, height: 844 });
  const second = await secondContext.newPage();
  await signInAs(second, invitee.email, invitee.password);
  await expect(second.getByRole("heading", { level: 1, name: `Welcome, ${invitee.name}` })).toBeVisible({
    timeout: 30_000,
  });

  const mine = colleague.page;
  await mine
    .getByRole("navigation", { name: "Main navigation" })
    .getByRole("link", { name: "Account & sessions" })
    .click();
  await expect(mine.getByRole("heading", { level: 1, name: "Your account" })).toBeVisible();
  const table = mine.getByRole("table", { name: "Your open sessions" });
  await expect(table.getByRole("row")).toHaveCount(3); // header + two sessions
  await expect(table.getByRole("row").filter({ hasText: "This browser" })).toHaveCount(1);
  await expectAccessible(mine, "account page");

  const otherRow = table.getByRole("row").filter({ hasNotText: "This browser" }).last();
  await otherRow.getByRole("button", { name: /^End the session on / }).click();
  await expect(mine.getByRole("status").filter({ hasText: /^The session on .+ has ended\.$/ })).toBeVisible();
  await expect(table.getByRole("row")).toHaveCount(2);
  await expect(mine.getByText("You are signed in only here.")).toBeVisible();

  // The ended browser is out at its next request.
  await second.goto("/documents");
  await expect(second).toHaveURL(/\/login/, { timeout: 30_000 });
  await secondContext.close();
});

test("deactivating a colleague ends their open session at its next request, and reactivating lets them back", async () => {
  const page = admin.page;
  await page.reload();
  const row = page
    .getByRole("table", { name: "Members of the organization" })
    .getByRole("row")
    .filter({ hasText: invitee.email });
  await row.getByRole("button", { name: `Deactivate ${invitee.name}` }).click();
  const confirm = page.getByRole("alertdialog", { name: `Deactivate ${invitee.name}?` });
  await expectAccessible(page, "deactivate dialog");
  await confirm.getByRole("button", { name: "Deactivate" }).click();
  await expect(confirm).toBeHidden();
  await expect(row).toContainText("Deactivated");

  const mine = colleague.page;
  const status = await mine.evaluate(() => fetch("/trpc/auth.me").then((r) => r.status));
  expect(status).toBe(401);
  await mine.goto("/documents");
  await expect(mine).toHaveURL(/\/login/, { timeout: 30_000 });
  await signInAs(mine, invitee.email, invitee.password);
  await expect(mine.getByTestId("login-error")).toBeVisible();

  await row.getByRole("button", { name: `Reactivate ${invitee.name}` }).click();
  await expect(row).toContainText("Active");
  await signInAs(mine, invitee.email, invitee.password);
  await expect(mine.getByRole("heading", { level: 1, name: `Welcome, ${invitee.name}` })).toBeVisible({
    timeout: 30_000,
  });
});

test("the users, account and invite pages at phone and desktop width, in German and English", async ({ browser }) => {
  test.setTimeout(300_000);
  for (const lang of ["en", "de"] as const) {
    for (const viewport of [
      { width: 390, height: 844 },
      { width: 1280, height: 800 },
    ]) {
      const context = await browser.newContext({
        baseURL: `http://localhost:${WEB_PORT}`,
        locale: lang === "de" ? "de-DE" : "en-GB",
        viewport,
        storageState: await admin.context.storageState(),
      });
      const page = await context.newPage();
      for (const path of ["/users", "/account"]) {
        await page.goto(path);
        await expect(page.getByRole("table").first()).toBeVisible();
        // The members (users) and sessions (account) tables are what the page is for: in the picture.
        await page.getByRole("table").last().scrollIntoViewIfNeeded();
        expect(await hasHorizontalScroll(page), `${path} ${lang} ${viewport.width}`).toBe(false);
        await shot(page, `${path.slice(1)}-${lang}-${viewport.width}`);
      }
      const anonymous = await browser.newContext({
        baseURL: `http://localhost:${WEB_PORT}`,
        locale: lang === "de" ? "de-DE" : "en-GB",
        viewport,
      });
      const invitePage = await anonymous.newPage();
      await invitePage.goto("/invite#not-a-real-invitation-token-at-all");
      await expect(invitePage.getByRole("heading", { level: 1 })).toBeVisible();
      await shot(invitePage, `invite-invalid-${lang}-${viewport.width}`);
      await anonymous.close();
      await context.close();
    }
  }
});
