import { createHmac } from "node:crypto";
import { expect, test } from "@playwright/test";
import {
  createActiveTemplate,
  createEmbedSession,
  expectAccessible,
  listen,
  staffSignIn,
  type LocalServer,
  type Staff,
} from "./forms-support";
import { API_URL, hasHorizontalScroll, WEBHOOK_RECEIVER_PORT } from "./support";

interface Delivery {
  body: string;
  signature: string | undefined;
}

let staff: Staff;
let receiver: LocalServer;
const received: Delivery[] = [];
let secret: string;
let previousUrls: string[];
let identifier: string;
let title: string;

/** A staff tRPC mutation as the admin UI makes it (`POST /trpc/<path>` with the session cookie). */
async function staffMutation<T>(path: string, input?: unknown): Promise<T> {
  const response = await staff.context.request.post(`/trpc/${path}`, { data: input ?? {} });
  const text = await response.text();
  expect(response.status(), `${path}: ${text}`).toBe(200);
  return (JSON.parse(text) as { result: { data: T } }).result.data;
}

test.beforeAll(async ({ browser, request }) => {
  receiver = await listen(WEBHOOK_RECEIVER_PORT, (req, body, res) => {
    received.push({ body, signature: req.headers["x-service-signature"] as string | undefined });
    res.writeHead(200, { "content-type": "text/plain" }).end("ok");
  });
  staff = await staffSignIn(browser, "E2E webhooks");
  const settings = await staff.context.request.get("/trpc/organization.settings");
  previousUrls = ((await settings.json()) as { result: { data: { webhookUrls: string[] } } }).result.data.webhookUrls;
  await staffMutation("organization.update", { webhookUrls: [`${receiver.origin}/clinsign`] });
  secret = (await staffMutation<{ secret: string }>("organization.rotateWebhookSecret")).secret;
  title = `Webhook form ${Date.now()}`;
  identifier = await createActiveTemplate(request, staff, title, [
    { id: "1", type: "text", key: "fullName", label: "Full name" },
  ]);
  // A real event: a submission through an embed session (F10's form.submitted).
  const { sessionId } = await createEmbedSession(request, staff, identifier);
  const submitted = await request.post(`${API_URL}/api/embed/submit`, {
    data: { sessionId, values: { fullName: "Erika Mustermann" } },
  });
  expect(submitted.status(), await submitted.text()).toBe(200);
});
test.afterAll(async () => {
  if (staff) await staffMutation("organization.update", { webhookUrls: previousUrls });
  await staff?.context.close();
  await receiver?.close();
});

test("see a webhook delivery and its signed body, resend it, send a test event (1280×800)", async () => {
  const page = await staff.context.newPage();
  await page.setViewportSize({ width: 1280, height: 800 });
  await page.goto("/webhooks");
  await expect(page.getByRole("heading", { level: 1, name: "Webhooks" })).toBeVisible();
  await expect(page.getByRole("listitem").filter({ hasText: `${receiver.origin}/clinsign` })).toBeVisible();
  await expect(page.getByTestId("secret-prefix")).toHaveText(`Begins with ${secret.slice(0, 10)}…`);
  await expect(page.getByText(secret)).toHaveCount(0);
  await expect(page.getByRole("link", { name: "Change URLs and secret in Settings" })).toBeVisible();

  const filters = page.getByRole("search", { name: "Filter deliveries" });
  await filters.getByLabel("Event type").fill("form.submitted");
  await filters.getByLabel("Form", { exact: true }).selectOption(identifier);
  await filters.getByRole("button", { name: "Apply filters" }).click();
  await expect(page).toHaveURL(new RegExp(`template=${identifier}`));
  const table = page.getByRole("table", { name: "Delivery attempts, newest first" });
  await expect(table.getByRole("row")).toHaveCount(2);
  await expect(table.getByText("HTTP 200 · Delivered")).toBeVisible();
  await expectAccessible(page, "webhook log 1280");

  await table.getByRole("button", { name: /^Body and attempts of the form\.submitted delivery/ }).click();
  const dialog = page.getByRole("dialog", { name: "form.submitted" });
  const body = dialog.getByTestId("delivery-body");
  await expect(body).toContainText('"event":"form.submitted"');
  const shown = (await body.textContent()) ?? "";
  const delivered = received.find((delivery) => delivery.body === shown);
  expect(delivered, "the body shown is the body the receiver got").toBeTruthy();
  expect(delivered!.signature).toBe(createHmac("sha256", secret).update(shown).digest("hex"));
  await expect(dialog.getByText("HTTP 200 · Delivered")).toBeVisible();

  const before = received.length;
  await dialog.getByRole("button", { name: "Resend" }).click();
  await expect(dialog.getByRole("status").filter({ hasText: "Resent and delivered." })).toBeVisible();
  expect(received.length).toBe(before + 1);
  expect(received.at(-1)!.body).toBe(shown);
  await expectAccessible(page, "webhook delivery details");
  await dialog.getByRole("button", { name: "Close" }).click();
  await expect(table.getByRole("row")).toHaveCount(3);

  // F11 from the page: a test event for the form, then only failed attempts (none).
  const testForm = page.getByRole("form", { name: "Send a test event" });
  await testForm.getByLabel("Form", { exact: true }).selectOption(identifier);
  await testForm.getByLabel("Event").selectOption("form.closed");
  await testForm.getByRole("button", { name: "Send test event" }).click();
  await expect(page.getByRole("status").filter({ hasText: "The test event was delivered." })).toBeVisible();
  expect(JSON.parse(received.at(-1)!.body)).toMatchObject({
    event: "form.closed",
    templateIdentifier: identifier,
    data: { test: true },
  });
  await page.goto(`/webhooks?event=form.closed&template=${identifier}`);
  await expect(table.getByRole("row")).toHaveCount(2);
  await page.goto(`/webhooks?template=${identifier}&outcome=failed`);
  await expect(page.getByRole("heading", { name: "No delivery matches these filters" })).toBeVisible();
  await expect(page.getByRole("heading", { name: "Verifying the signature" })).toBeVisible();
  await expect(page.getByText("X-Service-Signature: the hex HMAC-SHA256")).toBeVisible();
  await page.close();
});

test("the delivery log on a phone (390×844)", async () => {
  const page = await staff.context.newPage();
  await page.setViewportSize({ width: 390, height: 844 });
  await page.goto(`/webhooks?template=${identifier}`);
  const table = page.getByRole("table", { name: "Delivery attempts, newest first" });
  await expect(table.getByText("form.submitted").first()).toBeVisible();
  await table
    .getByRole("button", { name: /^Body and attempts of the form\.submitted delivery/ })
    .first()
    .click();
  await expect(page.getByRole("dialog", { name: "form.submitted" }).getByTestId("delivery-body")).toBeVisible();
  await expectAccessible(page, "webhook log 390");
  expect(await hasHorizontalScroll(page)).toBe(false);
  await page.close();
});
