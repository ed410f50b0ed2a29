import { createServer, type IncomingMessage, type Server } from "node:http";
import { SMTPServer } from "smtp-server";
import { PNG } from "pngjs";
import { expect, type APIRequestContext, type Browser, type BrowserContext, type Page } from "@playwright/test";
import { axeOn } from "./axe-support";
import { createApiToken } from "./signing-support";
import { API_URL, signIn, SMS_GATEWAY_PORT, SMTP_PORT, WEB_PORT } from "./support";

/** Area B credentials of the demo organization, and the staff member's signed-in browser context. */
export interface Staff {
  token: string;
  orgId: string;
  /** Signed in as the demo admin: staff tRPC calls (`messages.list`, `submissions.get`) go through its cookie. */
  context: BrowserContext;
  page: Page;
}

/**
 * Signs the demo admin in through the login form, in a context of its own (the patient's pages
 * must never see a staff cookie), reads the organization id from the tokens page and creates an
 * API token there.
 */
export async function staffSignIn(browser: Browser, name: string): Promise<Staff> {
  const context = await browser.newContext({ baseURL: `http://localhost:${WEB_PORT}`, locale: "en-GB" });
  const page = await context.newPage();
  await signIn(page);
  const token = await createApiToken(page, `${name} ${Date.now()}`);
  const orgId = await page.getByTestId("org-id").inputValue();
  expect(orgId).toMatch(/^[0-9a-f-]{36}$/);
  return { token, orgId, context, page };
}

/** A tRPC query as the admin UI makes it (`GET /trpc/<path>?input=…` with the session cookie). */
export async function staffQuery<T>(staff: Staff, path: string, input: unknown): Promise<T> {
  const response = await staff.context.request.get(`/trpc/${path}`, { params: { input: JSON.stringify(input) } });
  const text = await response.text();
  expect(response.status(), `${path}: ${text}`).toBe(200);
  return (JSON.parse(text) as { result: { data: T } }).result.data;
}

/** Turns the organization's one-time code for SMS form links on or off on the Settings page. */
export async function setSmsOtp(staff: Staff, on: boolean): Promise<void> {
  const page = staff.page;
  await page.goto("/settings");
  await expect(page.getByRole("heading", { level: 1, name: "Settings" })).toBeVisible();
  const toggle = page.getByRole("switch", { name: "Require a one-time code" });
  if ((await toggle.isChecked()) !== on) {
    await toggle.setChecked(on);
    await page.getByRole("button", { name: "Save changes" }).click();
    await expect(page.getByRole("status").filter({ hasText: "Settings saved." })).toBeVisible();
  }
}

export type FieldSpec = Record<string, unknown> & { id: string; type: string; label: string; key?: string };

/** F2 with status active: the template is ready for sessions and SMS requests at once. */
export async function createActiveTemplate(
  request: APIRequestContext,
  staff: Staff,
  title: string,
  fields: FieldSpec[],
): Promise<string> {
  const response = await request.post(`${API_URL}/api/embed/templates`, {
    data: { token: staff.token, orgId: staff.orgId, title, status: "active", schema: { version: 1, fields } },
  });
  expect(response.status(), await response.text()).toBe(201);
  const body = (await response.json()) as { template: { identifier: string; status: string } };
  expect(body.template.status).toBe("active");
  return body.template.identifier;
}

export interface EmbedSession {
  sessionId: string;
  embedUrl: string;
}

/** `POST /api/embed/sessions`. */
export async function createEmbedSession(
  request: APIRequestContext,
  staff: Staff,
  templateIdentifier: string,
  config: Record<string, unknown> = {},
): Promise<EmbedSession> {
  const response = await request.post(`${API_URL}/api/embed/sessions`, {
    data: { token: staff.token, orgId: staff.orgId, templateIdentifier, config },
  });
  expect(response.status(), await response.text()).toBe(200);
  const body = (await response.json()) as EmbedSession;
  expect(body.embedUrl).toContain(`/embed/`);
  expect(body.embedUrl).toContain(`session=${encodeURIComponent(body.sessionId)}`);
  return body;
}

/** F1: asks for the form by SMS; the link arrives at the SMS gateway (startSmsGateway). */
export async function requestFormBySms(
  request: APIRequestContext,
  staff: Staff,
  input: {
    phone: string;
    rnummer: string;
    templateIdentifier: string;
    emailTo?: string;
    emailSubject?: string;
    institutionId?: string;
    locale?: "de" | "en";
  },
): Promise<void> {
  const response = await request.post(`${API_URL}/api/portal/request`, {
    data: { token: staff.token, orgId: staff.orgId, ...input },
  });
  expect(response.status(), await response.text()).toBe(200);
}

/** The organization's name as staff set it (the patient pages show it as who is asking). */
export async function organizationName(staff: Staff): Promise<string> {
  return (await staffQuery<{ name: string }>(staff, "organization.settings", undefined)).name;
}

/**
 * A dark logo as most clinics have one: dark marks on a transparent background, 160×48 (it would
 * vanish on a dark colour band without a surface of its own).
 */
export function darkLogoPng(): Buffer {
  const png = new PNG({ width: 160, height: 48 });
  for (let y = 0; y < 48; y++) {
    for (let x = 0; x < 160; x++) {
      const mark = y >= 10 && y < 38 && ((x >= 8 && x < 36) || (x >= 46 && x < 152 && y % 9 < 5));
      png.data.set(mark ? [0x0b, 0x25, 0x45, 0xff] : [0, 0, 0, 0], (y * 160 + x) * 4);
    }
  }
  return PNG.sync.write(png);
}

/**
 * An institution's branding (A5 `POST /design`), with an uploaded logo when one is given: staff
 * upload it as the branding page does, and the design names the stored logo's path.
 */
export async function brandInstitution(
  request: APIRequestContext,
  staff: Staff,
  institutionId: string,
  primaryColor: string,
  logo?: Buffer,
): Promise<string | null> {
  let logoUrl: string | null = null;
  if (logo) {
    const uploaded = await staff.context.request.post("/staff/branding/logo", {
      headers: { origin: `http://localhost:${WEB_PORT}` },
      multipart: { file: { name: "logo.png", mimeType: "image/png", buffer: logo } },
    });
    expect(uploaded.status(), await uploaded.text()).toBe(201);
    logoUrl = ((await uploaded.json()) as { logoUrl: string }).logoUrl;
  }
  const response = await request.post(`${API_URL}/design`, {
    headers: { authorization: `Bearer ${staff.token}` },
    data: { institution_id: institutionId, ...(logoUrl && { logo_url: logoUrl }), design_parameters: { primaryColor } },
  });
  expect(response.status(), await response.text()).toBe(201);
  return logoUrl;
}

/** The header band of a patient page: its colour, the organization's name, and the logo's surface. */
export async function patientBand(page: Page): Promise<{ colour: string; name: string; plate: string | null }> {
  const band = page.getByRole("banner");
  const colour = await band.evaluate((element) => getComputedStyle(element).backgroundColor);
  const name = (await band.getByTestId("patient-organization").textContent()) ?? "";
  const logo = band.getByRole("img");
  let plate: string | null = null;
  if ((await logo.count()) > 0) {
    await expect
      .poll(() =>
        logo
          .first()
          .evaluate((image) => (image as HTMLImageElement).complete && (image as HTMLImageElement).naturalWidth > 0),
      )
      .toBe(true);
    plate = await logo.first().evaluate((image) => getComputedStyle(image.parentElement!).backgroundColor);
  }
  return { colour, name, plate };
}

/** An SMS as the gateway received it. */
export interface ReceivedSms {
  to: string;
  from: string;
  body: string;
}

/** A Twilio-compatible SMS gateway on 127.0.0.1 (playwright.config.ts points TWILIO_API_URL here). */
export interface SmsGateway {
  messages: ReceivedSms[];
  close(): Promise<void>;
}

export async function startSmsGateway(): Promise<SmsGateway> {
  const messages: ReceivedSms[] = [];
  const server = await listen(SMS_GATEWAY_PORT, (req, body, res) => {
    const auth = `Basic ${Buffer.from("ACe2e:e2e-gateway-token").toString("base64")}`;
    if (
      req.method !== "POST" ||
      req.url !== "/2010-04-01/Accounts/ACe2e/Messages.json" ||
      req.headers.authorization !== auth
    ) {
      res
        .writeHead(401, { "content-type": "application/json" })
        .end(JSON.stringify({ code: 20003, message: "Authenticate" }));
      return;
    }
    const form = new URLSearchParams(body);
    messages.push({ to: form.get("To") ?? "", from: form.get("From") ?? "", body: form.get("Body") ?? "" });
    res
      .writeHead(201, { "content-type": "application/json" })
      .end(JSON.stringify({ sid: `SM${messages.length.toString(16).padStart(32, "0")}` }));
  });
  return { messages, close: server.close };
}

/** The newest SMS to `phone` (E.164) whose body matches, as the gateway received it. */
export async function latestSms(gateway: SmsGateway, phone: string, body: RegExp): Promise<ReceivedSms> {
  const find = () => gateway.messages.findLast((message) => message.to === phone && body.test(message.body));
  await expect.poll(() => Boolean(find()), { message: `an SMS to ${phone} matching ${body}` }).toBe(true);
  return find()!;
}

/** The portal link of an F1 SMS. */
export async function smsFormLink(gateway: SmsGateway, phone: string): Promise<string> {
  const sms = await latestSms(gateway, phone, /\/f\/[A-Za-z0-9_-]+/);
  const link = /(http:\/\/localhost:\d+\/f\/[A-Za-z0-9_-]+)/.exec(sms.body)?.[1];
  expect(link, sms.body).toBeTruthy();
  return link!;
}

/** The organization's SMS as staff see them in the outbox (`messages.list`), newest first. */
export async function staffSmsList(
  staff: Staff,
  phone: string,
): Promise<{ body: string; purpose: string; status: string }[]> {
  const messages = await staffQuery<{ recipients: string[]; body: string; purpose: string; status: string }[]>(
    staff,
    "messages.list",
    { channel: "sms", limit: 50 },
  );
  return messages.filter((message) => message.recipients.includes(phone));
}

/**
 * No serious or critical axe violation on the page in its current state (axe's defaults and the
 * experimental rules of axe-support.ts); the failure message lists each violation with the
 * elements it was found on.
 */
export async function expectAccessible(page: Page, state: string): Promise<void> {
  const results = await axeOn(page).analyze();
  const serious = results.violations.filter(
    (violation) => violation.impact === "serious" || violation.impact === "critical",
  );
  const report = serious
    .map(
      (v) =>
        `[${v.impact}] ${v.id}: ${v.help}\n${v.nodes.map((node) => `    ${node.target.join(" ")} — ${node.failureSummary?.replace(/\n/g, " ")}`).join("\n")}`,
    )
    .join("\n");
  if (report) console.log(`axe violations on ${state}:\n${report}`);
  expect(
    serious.map((v) => v.id),
    `axe: serious or critical violations on ${state}\n${report}`,
  ).toEqual([]);
}

/** A small HTTP server on 127.0.0.1 that the test closes in afterAll. */
export interface LocalServer {
  origin: string;
  close(): Promise<void>;
}

export async function listen(
  port: number,
  handler: (req: IncomingMessage, body: string, res: import("node:http").ServerResponse) => void,
): Promise<LocalServer> {
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => handler(req, Buffer.concat(chunks).toString("utf8"), res));
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(port, "127.0.0.1", resolve);
  });
  return {
    origin: `http://127.0.0.1:${port}`,
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

export interface ReceivedMail {
  to: string[];
  raw: string;
}

/** The SMTP server the API delivers e-mail to (playwright.config.ts sets SMTP_URL to it): `mails` fills as they arrive. */
export interface Mailbox {
  mails: ReceivedMail[];
  close(): Promise<void>;
}

export async function startMailbox(): Promise<Mailbox> {
  const mails: ReceivedMail[] = [];
  const smtp = new SMTPServer({
    authOptional: true,
    disabledCommands: ["STARTTLS", "AUTH"],
    logger: false,
    onData(stream, smtpSession, callback) {
      const chunks: Buffer[] = [];
      stream.on("data", (chunk: Buffer) => chunks.push(chunk));
      stream.on("end", () => {
        mails.push({
          to: smtpSession.envelope.rcptTo.map((rcpt) => rcpt.address),
          raw: Buffer.concat(chunks).toString("utf8"),
        });
        callback();
      });
    },
  });
  await new Promise<void>((resolve, reject) => {
    smtp.server.once("error", reject);
    smtp.listen(SMTP_PORT, "127.0.0.1", () => resolve());
  });
  return { mails, close: () => new Promise<void>((resolve) => smtp.close(() => resolve())) };
}
