import { expect, test } from "@playwright/test";
import { createActiveTemplate, expectAccessible, staffSignIn, type Staff } from "./forms-support";
import { ADMIN_EMAIL, ADMIN_PASSWORD, hasHorizontalScroll, shot, WEB_PORT } from "./support";

let staff: Staff;
let identifier: string;

test.beforeAll(async ({ browser, request }) => {
  staff = await staffSignIn(browser, "E2E audit");
  identifier = await createActiveTemplate(request, staff, `Audit ${Date.now()}`, [
    { id: "1", type: "text", key: "name", label: "Name" },
  ]);
});
test.afterAll(async () => {
  await staff?.context.close();
});

for (const viewport of [
  { width: 1280, height: 800 },
  { width: 390, height: 844 },
]) {
  test(`filter the audit log by form and actor, read an entry, verify the chain (${viewport.width}×${viewport.height})`, async () => {
    const page = await staff.context.newPage();
    await page.setViewportSize(viewport);
    await page.goto("/audit-log");
    await expect(page.getByRole("heading", { level: 1, name: "Audit log" })).toBeVisible();
    await expect(page.getByRole("table", { name: "Audit log entries, newest first" })).toBeVisible();

    await page.getByLabel("Form identifier").fill(identifier);
    await page.getByLabel("Actor", { exact: true }).selectOption("api_key");
    await page.getByRole("button", { name: "Apply filters" }).click();
    await expect(page).toHaveURL(/actor=api_key/);
    const table = page.getByRole("table", { name: "Audit log entries, newest first" });
    await expect(table.getByRole("row")).toHaveCount(2);
    // The action in words, its code beside it (what the filter takes).
    await expect(table.getByText("Form template created", { exact: true })).toBeVisible();
    await expect(table.getByText("template.created")).toBeVisible();
    await table.getByText("Metadata").click();
    await expect(table.getByText(/"status": "active"/)).toBeVisible();
    await expectAccessible(page, `audit log ${viewport.width}`);
    expect(await hasHorizontalScroll(page)).toBe(false);

    // A filter nothing matches, then back to the one before.
    await page.getByLabel("Actor", { exact: true }).selectOption("sms_recipient");
    await page.getByRole("button", { name: "Apply filters" }).click();
    await expect(page.getByText("No entries match these filters")).toBeVisible();

    await page.getByRole("button", { name: "Verify the chain" }).click();
    await expect(page.getByRole("status").getByText(/^The chain is intact: \d+ entries checked\.$/)).toBeVisible();
    // Owners and admins see the export.
    await expect(page.getByRole("button", { name: "Export CSV" })).toBeVisible();
    await page.close();
  });
}

test("the admin downloads the filtered audit log as CSV", async () => {
  const page = await staff.context.newPage();
  await page.goto(`/audit-log?template=${identifier}`);
  const download = page.waitForEvent("download");
  await page.getByRole("button", { name: "Export CSV" }).click();
  // The page says the download is under way, then that it is done.
  await expect(page.getByTestId("download-status")).toHaveText("Downloaded.");
  const stream = await (await download).createReadStream();
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(chunk as Buffer);
  const text = Buffer.concat(chunks).toString("utf8");
  expect(text.startsWith("\uFEFFseq,created_at,action,template,actor_type")).toBe(true);
  expect(text).toContain(`,template.created,${identifier},api_key,`);
  await page.close();
});

test("sign-ins and wrong passwords are logged with the staff member's name; German calls it Audit-Protokoll on menu and page", async ({
  browser,
}) => {
  // A wrong password first, then the right one, through the login form.
  const context = await browser.newContext({ baseURL: `http://localhost:${WEB_PORT}`, locale: "en-GB" });
  const login = await context.newPage();
  await login.goto("/login");
  await login.getByLabel("E-mail address").fill(ADMIN_EMAIL);
  await login.getByLabel("Password").fill("not-the-password-1");
  await login.getByRole("button", { name: "Sign in", exact: true }).click();
  // The refusal has arrived (and the form has emptied the password field) before the retry.
  await expect(login.getByRole("alert").filter({ hasText: /password/i })).toBeVisible();
  await expect(login.getByLabel("Password")).toHaveValue("");
  await login.getByLabel("Password").fill(ADMIN_PASSWORD);
  await login.getByRole("button", { name: "Sign in", exact: true }).click();
  await expect(login).toHaveURL(/\/$/);

  for (const viewport of [
    { width: 1280, height: 800 },
    { width: 390, height: 844 },
  ]) {
    await login.setViewportSize(viewport);
    await login.goto("/audit-log?action=staff.sign_in_failed");
    const table = login.getByRole("table", { name: "Audit log entries, newest first" });
    const failed = table.getByRole("row").filter({ hasText: "Sign-in failed (wrong password)" }).first();
    await expect(failed).toContainText("Demo Admin");
    await expect(failed).toContainText("Staff member");
    await login.goto("/audit-log?action=staff.signed_in");
    await expect(table.getByRole("row").filter({ hasText: "Staff sign-in" }).first()).toContainText("Demo Admin");
    expect(await hasHorizontalScroll(login)).toBe(false);
    await table.scrollIntoViewIfNeeded();
    await shot(login, `audit-log-en-${viewport.width}`);

    await login.getByRole("button", { name: "Deutsch" }).click();
    await expect(login.getByRole("heading", { level: 1, name: "Audit-Protokoll" })).toBeVisible();
    if (viewport.width < 800) await login.getByRole("button", { name: /Menü/ }).click();
    await expect(
      login.getByRole("navigation", { name: "Hauptnavigation" }).getByRole("link", { name: "Audit-Protokoll" }),
    ).toBeVisible();
    if (viewport.width < 800) await login.getByRole("button", { name: "Menü schließen" }).click();
    await expect(login.getByText("Anmeldung von Mitarbeitenden").first()).toBeVisible();
    await login.getByRole("table").scrollIntoViewIfNeeded();
    await shot(login, `audit-log-de-${viewport.width}`);
    await login.getByRole("button", { name: "English" }).click();
    await expect(login.getByRole("heading", { level: 1, name: "Audit log" })).toBeVisible();
  }
  await context.close();
});
