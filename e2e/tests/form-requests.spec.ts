import { expect, test, type Page } from "@playwright/test";
import {
  createActiveTemplate,
  expectAccessible,
  latestSms,
  smsFormLink,
  staffSignIn,
  startSmsGateway,
  type SmsGateway,
  type Staff,
} from "./forms-support";
import { hasHorizontalScroll, shot, WEB_PORT } from "./support";

let staff: Staff;
let sms: SmsGateway;
let identifier: string;
let title: string;

test.beforeAll(async ({ browser, request }) => {
  sms = await startSmsGateway();
  staff = await staffSignIn(browser, "E2E form requests");
  title = `Aufnahme per SMS ${Date.now()}`;
  identifier = await createActiveTemplate(request, staff, title, [
    { id: "1", type: "text", key: "fullName", label: "Full name", required: true },
  ]);
});
test.afterAll(async () => {
  await staff?.context.close();
  await sms?.close();
});

/** Sends a form by SMS through the page's form, as staff do, and waits for the confirmation. */
async function sendInUi(page: Page, phone: string, rnummer: string) {
  await page.goto("/form-requests");
  await expect(page.getByRole("heading", { level: 1, name: "Form requests (SMS)" })).toBeVisible();
  const form = page.getByRole("form", { name: "Send a form by SMS" });
  await form.getByLabel("Form", { exact: true }).selectOption(identifier);
  // The field starts empty; staff type the number as the patient gave it, nationally or not.
  await expect(form.getByLabel("Mobile number")).toHaveValue("");
  await form.getByLabel("Mobile number").fill(phone);
  await form.getByLabel("Case number", { exact: true }).fill(rnummer);
  await form.getByLabel("Sender name (optional)").fill("KlinikNord");
  await form.getByRole("button", { name: "Send SMS" }).click();
}

const requestsTable = (page: Page) => page.getByRole("table", { name: "Form requests, newest first" });

for (const [index, viewport] of [
  { width: 1280, height: 800 },
  { width: 390, height: 844 },
].entries()) {
  test(`send a form by SMS in the UI, see it in the list and in the outbox (${viewport.width}×${viewport.height})`, async () => {
    const page = await staff.context.newPage();
    await page.setViewportSize(viewport);
    const e164 = `+4917099911${index}0`;
    const rnummer = `SMS-${Date.now()}`;
    // At the desk a national number ("0170 …", the organization's country DE), on the phone an international one.
    await sendInUi(page, index === 0 ? `0170 999 11${index}0` : `+49 170 999 11${index}0`, rnummer);
    // The number as the API normalised it (E.164).
    await expect(page.getByRole("status").filter({ hasText: `Sent to ${e164}.` })).toBeVisible();

    const row = requestsTable(page).getByRole("row").filter({ hasText: rnummer });
    await expect(row).toHaveCount(1);
    await expect(row.getByText(title)).toBeVisible();
    await expect(row.getByText("Sent", { exact: true })).toBeVisible();

    const outbox = page.getByRole("table", { name: "SMS in the outbox, newest first" });
    const sent = outbox.getByRole("row").filter({ hasText: e164 }).first();
    // In the organization's language (German by default), with the clinic's name first and no
    // form title (a lock screen shows it to anyone near the phone).
    await expect(sent).toContainText("Sie haben ein Formular auszufüllen");
    await expect(sent).not.toContainText(title);
    // The link opens the patient's form: staff see that it went out, not the link itself.
    await expect(sent).toContainText("/f/••••••");
    expect((await smsFormLink(sms, e164)).length).toBeGreaterThan(40);
    // A gateway sends: no "no gateway" banner, and nothing to reveal.
    await expect(page.getByText("No SMS gateway is configured", { exact: false })).toHaveCount(0);
    await expect(page.getByRole("button", { name: "Show link once" })).toHaveCount(0);

    await expectAccessible(page, `form requests ${viewport.width}`);
    expect(await hasHorizontalScroll(page)).toBe(false);
    await page.close();
  });
}

test("filter by case number in the URL, send the link again (the old one stops working), cancel the request", async ({
  browser,
}) => {
  const page = await staff.context.newPage();
  await page.setViewportSize({ width: 1280, height: 800 });
  const e164 = "+491709991200";
  const rnummer = `SMS-RESEND-${Date.now()}`;
  await sendInUi(page, e164, rnummer);
  await expect(page.getByRole("status").filter({ hasText: `Sent to ${e164}.` })).toBeVisible();
  const firstLink = await smsFormLink(sms, e164);

  await page.getByRole("search", { name: "Filter requests" }).getByLabel("Case number", { exact: true }).fill(rnummer);
  await page.getByRole("button", { name: "Apply filters" }).click();
  await expect(page).toHaveURL(new RegExp(`rnummer=${rnummer}`));
  await expect(requestsTable(page).getByRole("row")).toHaveCount(2);

  const row = requestsTable(page).getByRole("row").filter({ hasText: rnummer });
  await row.getByRole("button", { name: `SMS history and actions for case number ${rnummer}` }).click();
  const dialog = page.getByRole("dialog", { name: `Case number ${rnummer}` });
  const history = dialog.getByRole("list", { name: "SMS delivery history" });
  await expect(history.getByRole("listitem")).toHaveCount(1);
  await dialog.getByRole("button", { name: "Send the SMS again" }).click();
  await expect(dialog.getByRole("status").filter({ hasText: "A new link was sent." })).toBeVisible();
  await expect(history.getByRole("listitem")).toHaveCount(2);
  await expect.poll(async () => (await smsFormLink(sms, e164)) !== firstLink).toBe(true);
  const secondLink = await smsFormLink(sms, e164);
  await expectAccessible(page, "form request details");

  const patient = await browser.newContext({ locale: "en-GB" });
  const patientPage = await patient.newPage();
  await patientPage.goto(firstLink);
  await expect(patientPage.getByRole("heading", { level: 1, name: /expired|not work|unknown/i })).toBeVisible();
  await patientPage.goto(secondLink);
  await expect(patientPage.getByRole("heading", { level: 1, name: "Please confirm who you are" })).toBeVisible();

  // Cancelling asks first, in place.
  await dialog.getByRole("button", { name: "Cancel request" }).click();
  await expect(dialog.getByText("Cancel this request?")).toBeVisible();
  await dialog.getByRole("button", { name: "Cancel request" }).click();
  await expect(dialog.getByRole("status").filter({ hasText: "The request was cancelled." })).toBeVisible();
  await expect(dialog.getByRole("button", { name: "Send the SMS again" })).toHaveCount(0);
  await dialog.getByRole("button", { name: "Close" }).click();
  await expect(row.getByText("Cancelled", { exact: true })).toBeVisible();
  await patientPage.goto(secondLink);
  await expect(patientPage.getByRole("heading", { level: 1, name: "This link has expired" })).toBeVisible();
  await patient.close();

  // The back button and a reload keep the filter.
  await page.reload();
  await expect(
    page.getByRole("search", { name: "Filter requests" }).getByLabel("Case number", { exact: true }),
  ).toHaveValue(rnummer);
  await page.close();
});

/**
 * This run's API sends SMS through a gateway (playwright.config.ts), so an install without one is
 * played in the browser: the answers of `messages.providers`, `messages.list`,
 * `formRequests.list`/`messages` are those of the outbox provider (core/messaging tests cover the
 * server), and `messages.reveal` answers with the link the gateway received.
 */
async function playOutboxInstall(page: Page, revealBody: () => Promise<string>) {
  const revealed = new Map<string, string>();
  const asOutbox = (message: Record<string, unknown>) => ({
    ...message,
    provider: message.status === "sent" ? "outbox" : message.provider,
    revealable: !revealed.has(String(message.id)) && String(message.body).includes("••••••"),
    revealedAt: revealed.get(String(message.id)) ?? null,
  });
  await page.route("**/trpc/**", async (route) => {
    const url = new URL(route.request().url());
    const paths = decodeURIComponent(url.pathname.replace(/^\/trpc\//, "")).split(",");
    if (paths.length === 1 && paths[0] === "messages.reveal") {
      const input = JSON.parse(route.request().postData() ?? "{}") as Record<string, { id: string }>;
      const id = input["0"]!.id;
      const at = new Date().toISOString();
      revealed.set(id, at);
      await route.fulfill({ json: [{ result: { data: { id, body: await revealBody(), revealedAt: at } } }] });
      return;
    }
    const response = await route.fetch();
    const results = (await response.json()) as { result?: { data: unknown } }[];
    paths.forEach((path, i) => {
      const result = results[i]?.result;
      if (!result) return;
      if (path === "messages.providers") result.data = { sms: "outbox", email: "outbox" };
      if (path === "messages.list" || path === "formRequests.messages")
        result.data = (result.data as Record<string, unknown>[]).map(asOutbox);
      if (path === "formRequests.list") {
        const page = result.data as { items: { state: string }[] };
        page.items = page.items.map((item) => (item.state === "sent" ? { ...item, state: "in_outbox" } : item));
      }
    });
    await route.fulfill({ response, json: results });
  });
}

test("without an SMS gateway: 'in outbox, not sent', the banner, and an admin reveals the link once", async () => {
  const page = await staff.context.newPage();
  await page.setViewportSize({ width: 1280, height: 800 });
  const e164 = "+491709991300";
  const rnummer = `SMS-OUTBOX-${Date.now()}`;
  // What the patient's phone got: the reveal answers with the whole SMS, link included.
  await playOutboxInstall(page, async () => (await latestSms(sms, e164, /\/f\/[A-Za-z0-9_-]+/)).body);
  await sendInUi(page, e164, rnummer);
  await expect(
    page
      .getByRole("status")
      .filter({ hasText: `Kept in the outbox for ${e164}, not sent: no SMS gateway is configured.` }),
  ).toBeVisible();
  const row = requestsTable(page).getByRole("row").filter({ hasText: rnummer });
  await expect(row.getByText("In outbox, not sent", { exact: true })).toBeVisible();
  await expect(
    page.getByText("No SMS gateway is configured: messages are kept here instead of being sent.", { exact: false }),
  ).toBeVisible();

  const outbox = page.getByRole("table", { name: "SMS in the outbox, newest first" });
  const kept = outbox.getByRole("row").filter({ hasText: e164 }).first();
  await expect(kept.getByText("In outbox, not sent", { exact: true })).toBeVisible();
  await expect(kept).toContainText("/f/••••••");
  await kept.getByRole("button", { name: "Show link once" }).click();
  const revealed = kept.getByTestId("revealed-message");
  await expect(revealed).toHaveValue(/^Demo Clinic: .*\/f\/[A-Za-z0-9_-]{20,}$/);
  await expect(kept.getByText("This text will not be shown again.")).toBeVisible();
  await expectAccessible(page, "outbox with a revealed link");
  await shot(page, "form-requests-outbox-revealed-1280");

  // The history says it was shown, and offers it no more.
  await row.getByRole("button", { name: `SMS history and actions for case number ${rnummer}` }).click();
  const dialog = page.getByRole("dialog", { name: `Case number ${rnummer}` });
  await expect(dialog.getByText(/^Shown on /)).toBeVisible();
  await expect(dialog.getByRole("button", { name: "Show link once" })).toHaveCount(0);
  await dialog.getByRole("button", { name: "Close" }).click();
  await page.close();
});

for (const lang of ["en", "de"] as const) {
  for (const viewport of [
    { width: 1280, height: 800 },
    { width: 390, height: 844 },
  ]) {
    test(`the form requests page as staff see it (${lang}, ${viewport.width}×${viewport.height})`, async () => {
      const page = await staff.context.newPage();
      await page.setViewportSize(viewport);
      await staff.context.addCookies([{ name: "lang", value: lang, url: `http://localhost:${WEB_PORT}` }]);
      await page.goto("/form-requests");
      await expect(page.locator("html")).toHaveAttribute("lang", lang);
      await expect(page.getByText(/\(rnummer\)/)).toHaveCount(0);
      expect(await hasHorizontalScroll(page)).toBe(false);
      await shot(page, `form-requests-${lang}-${viewport.width}`);
      await staff.context.addCookies([{ name: "lang", value: "en", url: `http://localhost:${WEB_PORT}` }]);
      await page.close();
    });
  }
}
