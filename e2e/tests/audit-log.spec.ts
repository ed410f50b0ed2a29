import { expect, test } from "@playwright/test";
import { createActiveTemplate, expectAccessible, staffSignIn, type Staff } from "./forms-support";
import { hasHorizontalScroll } from "./support";

let staff: Staff;
let identifier: string;

test.beforeAll(async ({ browser, request }) => {
  staff = await staffSignIn(browser, "E2E audit");
  identifier = await createActiveTemplate(request, staff, `Audit ${Date.now()}`, [{ id: "1", type: "text", key: "name", label: "Name" }]);
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
    await expect(table.getByText("template.created")).toBeVisible();
    await table.getByText("Metadata").click();
    await expect(table.getByText(/"status": "active"/)).toBeVisible();
    await expectAccessible(page, `audit log ${viewport.width}`);
    expect(await hasHorizontalScroll(page)).toBe(false);

    // A filter nothing matches, then back to the one before.
    await page.getByLabel("Actor", { exact: true }).selectOption("portal");
    await page.getByRole("button", { name: "Apply filters" }).click();
    await expect(page.getByText("No entries match these filters")).toBeVisible();

    await page.getByRole("button", { name: "Verify the chain" }).click();
    await expect(page.getByRole("status").getByText(/^The chain is intact: \d+ entries checked\.$/)).toBeVisible();
    // Owners and admins see the export.
    await expect(page.getByRole("link", { name: "Export CSV" })).toBeVisible();
    await page.close();
  });
}

test("the admin downloads the filtered audit log as CSV", async () => {
  const page = await staff.context.newPage();
  await page.goto(`/audit-log?template=${identifier}`);
  const download = page.waitForEvent("download");
  await page.getByRole("link", { name: "Export CSV" }).click();
  const stream = await (await download).createReadStream();
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(chunk as Buffer);
  const text = Buffer.concat(chunks).toString("utf8");
  expect(text.startsWith("\uFEFFseq,created_at,action,template,actor_type")).toBe(true);
  expect(text).toContain(`,template.created,${identifier},api_key,`);
  await page.close();
});
