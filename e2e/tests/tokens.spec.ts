import { expect, test } from "@playwright/test";
import { API_URL, hasHorizontalScroll, signIn, watchCspViolations } from "./support";

test.describe("API tokens", () => {
  test("a token created in the UI works for area B until it is revoked in the UI", async ({ page, request }) => {
    const cspViolations = watchCspViolations(page);
    await signIn(page);

    await page.getByRole("navigation", { name: "Main navigation" }).getByRole("link", { name: "API tokens" }).click();
    await expect(page).toHaveURL(/\/tokens$/);
    await expect(page.getByRole("heading", { level: 1, name: "API tokens" })).toBeVisible();

    const orgId = await page.getByTestId("org-id").inputValue();
    expect(orgId).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/);

    // Create: the token is shown once, in a dialog.
    const tokenName = `E2E token ${Date.now()}`;
    await page.getByLabel("Token name").fill(tokenName);
    await page.getByRole("button", { name: "Create token" }).click();
    const createdDialog = page.getByRole("dialog", { name: "Your new API token" });
    await expect(createdDialog).toBeVisible();
    await expect(createdDialog.getByText("you will not see this token again")).toBeVisible();
    const token = await createdDialog.getByTestId("new-token").inputValue();
    expect(token.length).toBeGreaterThan(20);
    await createdDialog.getByRole("button", { name: "Copy" }).first().click();
    await expect(createdDialog.getByRole("status").first()).not.toBeEmpty();
    await createdDialog.getByRole("button", { name: "I have copied it" }).click();
    await expect(createdDialog).toBeHidden();

    const row = page.getByRole("row").filter({ hasText: tokenName });
    await expect(row).toContainText("Active");
    await expect(row).toContainText(token.slice(0, 6));

    // F2 and F4 accept the new token with the organization id.
    const title = `E2E template ${Date.now()}`;
    const created = await request.post(`${API_URL}/api/embed/templates`, { data: { token, orgId, title } });
    expect(created.status(), await created.text()).toBe(201);
    const listed = await request.get(`${API_URL}/api/embed/templates`, { params: { token, orgId } });
    expect(listed.status()).toBe(200);
    const body = (await listed.json()) as { ok: boolean; templates: Array<{ title: string }> };
    expect(body.ok).toBe(true);
    expect(body.templates.map((template) => template.title)).toContain(title);

    // Revoke, with confirmation.
    await row.getByRole("button", { name: `Revoke token ${tokenName}` }).click();
    const confirm = page.getByRole("alertdialog", { name: `Revoke “${tokenName}”?` });
    await expect(confirm).toBeVisible();
    await confirm.getByRole("button", { name: "Revoke token" }).click();
    await expect(confirm).toBeHidden();
    await expect(row).toContainText("Revoked");
    await expect(page.getByRole("status").filter({ hasText: `Token “${tokenName}” was revoked.` })).toBeVisible();

    const afterRevoke = await request.get(`${API_URL}/api/embed/templates`, { params: { token, orgId } });
    expect(afterRevoke.status()).toBe(401);

    expect(cspViolations).toEqual([]);
  });

  test("wrong credentials get a clear message", async ({ page }) => {
    await page.goto("/login");
    await page.getByLabel("E-mail address").fill("admin@demo.clinic");
    await page.getByLabel("Password").fill("not-the-password");
    await page.getByRole("button", { name: "Sign in", exact: true }).click();
    await expect(page.getByTestId("login-error")).toHaveText("Wrong e-mail address or password.");
    await expect(page.getByLabel("Password")).toBeFocused();
    await expect(page).toHaveURL(/\/login$/);
  });

  test("admin pages send visitors without a session to the login page", async ({ page }) => {
    await page.goto("/tokens");
    await expect(page).toHaveURL(/\/login\?next=%2Ftokens$/);
    await expect(page.getByRole("heading", { level: 1, name: "Sign in to ClinSign" })).toBeVisible();
  });
});

test.describe("on a phone (360 × 740)", () => {
  test.use({ viewport: { width: 360, height: 740 } });

  test("login and tokens pages fit without horizontal scrolling", async ({ page }) => {
    await page.goto("/login");
    await expect(page.getByRole("button", { name: "Sign in", exact: true })).toBeVisible();
    expect(await hasHorizontalScroll(page)).toBe(false);

    await signIn(page);
    await page.goto("/tokens");
    await expect(page.getByRole("heading", { level: 1, name: "API tokens" })).toBeVisible();
    await expect(page.getByRole("row").nth(1)).toBeVisible();
    expect(await hasHorizontalScroll(page)).toBe(false);

    // The side navigation is a drawer behind the menu button.
    const menu = page.getByRole("button", { name: "Open menu" });
    await menu.click();
    const nav = page.getByRole("navigation", { name: "Main navigation" });
    await expect(nav.getByRole("link", { name: "Settings" })).toBeVisible();
    await nav.getByRole("link", { name: "Settings" }).click();
    await expect(page).toHaveURL(/\/settings$/);
    await expect(nav.getByRole("link", { name: "Settings" })).toBeHidden();
    await expect(page.getByRole("heading", { level: 1, name: "Settings" })).toBeVisible();
    expect(await hasHorizontalScroll(page)).toBe(false);
  });
});
