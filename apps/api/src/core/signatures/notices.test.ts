import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import pino from "pino";
import { auditLog, createDb, eq, messages, signatureNotices, type Database } from "@clinsign/db";
import { jobHandlers } from "../../jobs/handlers";
import { JobRunner } from "../../jobs/runner";
import { logInCookie, startTestApi, type TestApi, type TestOrg } from "../../testing/harness";
import { startReceiver, twilioEnv, type Receiver } from "../../testing/receiver";
import { bearer, registerDocument, startFileServer, type FileServer } from "../../testing/signature-fixtures";
import { systemContext, type Services } from "../context";
import { updateOrganizationSettings } from "../organizations/organizations";
import { createServices } from "../../services";
import { expireDueRequests } from "../jobs/signature-expiry";
import { queueDueReminders } from "../jobs/signature-reminders";
import { handleSignatureNotice } from "./notices";

const DAY = 86_400_000;

let api: TestApi;
let files: FileServer;
let twilio: Receiver;
let hooks: Receiver;
let org: TestOrg;
let documentId: string;
let cookie: string;
/** The services' clock: tests move it, the database's own clock stays real. */
let now: Date;

beforeAll(async () => {
  files = await startFileServer();
  twilio = await startReceiver();
  hooks = await startReceiver();
  api = await startTestApi({
    ...twilioEnv(twilio),
    OUTBOUND_ALLOW_HOSTS: `${files.hostPort},127.0.0.1:${hooks.port}`,
    PUBLIC_WEB_URL: "https://portal.test",
  });
  api.services.clock = () => now;
  org = await api.createOrg("Klinik Nord");
  await updateOrganizationSettings(org.ctx, { webhookUrls: [`${hooks.url}/his`], signatureReminderDays: 3 });
  documentId = await registerDocument(api, files, org, { name: "Aufklärung Narkose" });
  cookie = await logInCookie(api, org.ownerEmail, org.ownerPassword);
});
afterAll(async () => {
  await api?.close();
  await files?.close();
  await twilio?.close();
  await hooks?.close();
});
beforeEach(() => {
  now = new Date();
});

const later = (ms: number) => new Date(Date.now() + ms);
const runJobs = async (services: Services = api.services) => {
  const runner = new JobRunner(services, jobHandlers);
  // A notice queues its message; the message is sent on the next pass.
  while ((await runner.runDue()) > 0);
};
const smsTo = (phone: string) =>
  twilio.requests
    .filter((r) => new URLSearchParams(r.body).get("To") === phone)
    .map((r) => new URLSearchParams(r.body));
const entries = (action: string, signatureId: string) =>
  api.services.db
    .select()
    .from(auditLog)
    .where(eq(auditLog.action, action))
    .then((rows) => rows.filter((r) => r.metadata.signatureId === signatureId));
const timeline = async (id: string) => (await api.trpc({ cookie }).signatures.detail.query({ id })).timeline;

async function a1(body: Record<string, unknown> = {}) {
  const res = await api.request("POST", "/signature-requests", {
    headers: bearer(org),
    body: {
      patient_id: "P-1",
      document_id: documentId,
      institution_id: "clinic-a",
      expiration_date: later(10 * DAY).toISOString(),
      order_by: "dr.house",
      ...body,
    },
  });
  return res;
}
async function createRequest(body: Record<string, unknown> = {}) {
  const res = await a1(body);
  if (res.status !== 201) throw new Error(`A1 failed: ${res.status} ${JSON.stringify(res.body)}`);
  const link = res.body.signing_link as string;
  return { id: res.body.signature_id as string, token: link.slice(link.lastIndexOf("/") + 1) };
}

describe("A1's optional reminder fields", () => {
  it("takes a mobile number (national in the organization's country) and reminder days, and refuses bad ones with 400", async () => {
    const bad = await a1({ patient_phone: "12" });
    expect(bad.status).toBe(400);
    expect(bad.body.error).toMatchObject({ code: "invalid_request", details: { field: "patient_phone" } });
    const tooLate = await a1({ reminder_days: 91 });
    expect(tooLate.status).toBe(400);
    expect(tooLate.body.error.details.field).toBe("reminder_days");
    const fine = await a1({ patient_phone: "0170 1111111", reminder_days: 5 });
    expect(fine.status).toBe(201);
    expect(Object.keys(fine.body).sort()).toEqual(["expiration_date", "signature_id", "signing_link"]);
  });
});

describe("reminders", () => {
  it("reminds the signer by SMS once, after the organization's N days, and shows it on the timeline", async () => {
    const phone = "+491702222222";
    const request = await createRequest({ patient_phone: "0170 2222222" });
    now = later(2 * DAY);
    expect(await queueDueReminders(api.services)).toBe(0);
    now = later(3 * DAY + 60_000);
    expect(await queueDueReminders(api.services)).toBe(1);
    await runJobs();
    const sent = smsTo(phone);
    expect(sent).toHaveLength(1);
    expect(sent[0]!.get("Body")).toBe(
      `Klinik Nord: Erinnerung: Ein Dokument wartet auf Ihre Unterschrift: https://portal.test/sign/${request.token}`,
    );
    // The sweep again, later, and the jobs again: still one SMS.
    now = later(4 * DAY);
    expect(await queueDueReminders(api.services)).toBe(0);
    await runJobs();
    expect(smsTo(phone)).toHaveLength(1);
    // Staff see the text with the link blanked; the token stays out of the outbox.
    const [message] = await api.services.db.select().from(messages).where(eq(messages.purpose, "signature.reminder"));
    expect(message!.body).not.toContain(request.token);
    expect(await timeline(request.id)).toContainEqual(
      expect.objectContaining({ kind: "reminder_sent", detail: "sms", actorType: "system" }),
    );
    const [notice] = await api.services.db
      .select()
      .from(signatureNotices)
      .where(eq(signatureNotices.signatureRequestId, request.id));
    expect(notice).toMatchObject({ kind: "reminder", status: "sent", channel: "sms", signerId: null, sequence: 1 });
  });

  it("records 'no channel' and sends nothing when the request carries no phone; per-request days win", async () => {
    const request = await createRequest({ reminder_days: 1 });
    const never = await createRequest({ reminder_days: 0, patient_phone: "0170 3333333" });
    now = later(DAY + 60_000);
    expect(await queueDueReminders(api.services)).toBe(1);
    await runJobs();
    now = later(9 * DAY);
    await queueDueReminders(api.services);
    await runJobs();
    expect(smsTo("+491703333333")).toHaveLength(0);
    const [notice] = await api.services.db
      .select()
      .from(signatureNotices)
      .where(eq(signatureNotices.signatureRequestId, request.id));
    expect(notice).toMatchObject({ status: "no_channel", channel: "none", messageId: null });
    expect(await entries("signature.reminder_not_sent", request.id)).toHaveLength(1);
    expect(await timeline(request.id)).toContainEqual(
      expect.objectContaining({ kind: "reminder_not_sent", detail: "no_channel" }),
    );
    expect(await entries("signature.reminder_sent", never.id)).toHaveLength(0);
    expect(await entries("signature.reminder_not_sent", never.id)).toHaveLength(0);
  });

  it("does not remind once the request is no longer open", async () => {
    const request = await createRequest({ patient_phone: "0170 4444444" });
    const view = await api.trpc({}).signing.open.mutate({ token: request.token });
    await api.trpc({}).signing.decline.mutate({ sessionToken: view.sessionToken! });
    now = later(5 * DAY);
    await queueDueReminders(api.services);
    await runJobs();
    expect(smsTo("+491704444444")).toHaveLength(0);
  });
});

describe("staff notices", () => {
  const staffMail = (id: string, purpose: string) =>
    api.services.db
      .select()
      .from(messages)
      .where(eq(messages.purpose, purpose))
      .then((rows) => rows.filter((m) => m.body.includes(id)));
  const hookEvents = (event: string, id: string) =>
    hooks.requests
      .map((r) => JSON.parse(r.body) as { event: string; data: { signature_id: string } })
      .filter((e) => e.event === event && e.data.signature_id === id);

  it("e-mails owners and admins and calls the webhook once when a request expires unsigned", async () => {
    const request = await createRequest({ expiration_date: later(3_600_000).toISOString() });
    now = later(2 * 3_600_000);
    expect(await expireDueRequests(api.services)).toBeGreaterThanOrEqual(1);
    expect(await expireDueRequests(api.services)).toBe(0);
    await runJobs();
    const mails = await staffMail(request.id, "signature.expired_notice");
    expect(mails).toHaveLength(1);
    expect(mails[0]).toMatchObject({ channel: "email", recipients: [org.ownerEmail], status: "sent" });
    expect(mails[0]!.subject).toBe("Signaturanfrage abgelaufen: Aufklärung Narkose");
    expect(mails[0]!.body).toContain(`https://portal.test/signature-requests/${request.id}`);
    expect(mails[0]!.body).not.toContain("P-1");
    expect(hookEvents("signature.expired", request.id)).toHaveLength(1);
    expect(await timeline(request.id)).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ kind: "expired" }),
        expect.objectContaining({ kind: "staff_notified", detail: "email" }),
      ]),
    );
  });

  it("e-mails staff and calls the webhook once when the signer declines", async () => {
    const request = await createRequest();
    const view = await api.trpc({}).signing.open.mutate({ token: request.token });
    await api.trpc({}).signing.decline.mutate({ sessionToken: view.sessionToken!, reason: "später" });
    await api.trpc({}).signing.decline.mutate({ sessionToken: view.sessionToken! });
    await runJobs();
    const mails = await staffMail(request.id, "signature.declined_notice");
    expect(mails).toHaveLength(1);
    expect(mails[0]!.subject).toBe("Signaturanfrage abgelehnt: Aufklärung Narkose");
    expect(hookEvents("signature.declined", request.id)).toHaveLength(1);
    expect(await timeline(request.id)).toContainEqual(
      expect.objectContaining({ kind: "staff_notified", detail: "email" }),
    );
  });
});

describe.runIf(process.env.DATABASE_URL)("two API processes on one PostgreSQL database", () => {
  let second: Services;
  let database: Database;

  beforeAll(async () => {
    const url = (api.services.database as Database & { url?: string }).url!;
    database = createDb({ databaseUrl: url, maxConnections: 10 });
    second = await createServices(api.services.config, pino({ level: "silent" }), database);
    second.clock = () => now;
  });
  afterAll(async () => {
    await database?.close();
  });

  it("sends each reminder exactly once while both sweep and both run jobs", async () => {
    const phones = Array.from({ length: 12 }, (_, i) => `+4917055500${String(i).padStart(2, "0")}`);
    const requests = [];
    for (const phone of phones) requests.push(await createRequest({ patient_phone: phone }));
    now = later(3 * DAY + 60_000);
    const queued = await Promise.all([
      queueDueReminders(api.services),
      queueDueReminders(second),
      queueDueReminders(api.services),
      queueDueReminders(second),
    ]);
    expect(queued.reduce((a, b) => a + b, 0)).toBe(phones.length);
    await Promise.all([runJobs(api.services), runJobs(second), runJobs(api.services), runJobs(second)]);
    await Promise.all([queueDueReminders(api.services), queueDueReminders(second)]);
    await Promise.all([runJobs(api.services), runJobs(second)]);
    for (const [index, phone] of phones.entries()) {
      expect(smsTo(phone)).toHaveLength(1);
      expect(await entries("signature.reminder_sent", requests[index]!.id)).toHaveLength(1);
    }
  });

  it("hands a notice taken by two workers at once (a lease ran out) to one of them", async () => {
    const phone = "+491705559999";
    const request = await createRequest({ patient_phone: phone });
    now = later(3 * DAY + 60_000);
    await queueDueReminders(second);
    const [notice] = await api.services.db
      .select()
      .from(signatureNotices)
      .where(eq(signatureNotices.signatureRequestId, request.id));
    await Promise.all([
      handleSignatureNotice(org.ctx, { noticeId: notice!.id }),
      handleSignatureNotice(systemContext(second, org.orgId), { noticeId: notice!.id }),
    ]);
    await Promise.all([runJobs(api.services), runJobs(second)]);
    expect(smsTo(phone)).toHaveLength(1);
    expect(await entries("signature.reminder_sent", request.id)).toHaveLength(1);
  });
});

describe("sending a signing link from the console (issue 31)", () => {
  it("sends the patient's link by SMS to the number on the request, naming the clinic and not the document, audited", async () => {
    const request = await createRequest({ patient_phone: "0170 2222222" });
    const sent = await api.trpc({ cookie }).signatures.sendLink.mutate({ id: request.id, channel: "sms" });
    expect(sent).toMatchObject({ channel: "sms", delivery: "provider" });
    await runJobs();
    const [sms] = smsTo("+491702222222").slice(-1);
    expect(sms!.get("Body")).toBe(
      `Klinik Nord: Bitte unterschreiben Sie ein Dokument: https://portal.test/sign/${request.token}`,
    );
    // What staff and the database keep has the link blanked.
    const [stored] = await api.services.db.select().from(messages).where(eq(messages.id, sent.messageId));
    expect(stored!.body).not.toContain(request.token);
    expect(stored!.body).toContain("••••••");
    const audited = await entries("signature.link_sent", request.id);
    expect(audited.map((e) => e.metadata)).toEqual([
      { signatureId: request.id, channel: "sms", messageId: sent.messageId },
    ]);
  });

  it("sends to a typed number or address instead; an e-mail needs one; a request that cannot be signed refuses", async () => {
    const request = await createRequest();
    const staff = api.trpc({ cookie });
    // No number on the request and none typed: the form says which field.
    await expect(staff.signatures.sendLink.mutate({ id: request.id, channel: "sms" })).rejects.toMatchObject({
      data: { httpStatus: 400, details: { field: "to" } },
    });
    await expect(
      staff.signatures.sendLink.mutate({ id: request.id, channel: "sms", to: "030 1234567" }),
    ).rejects.toMatchObject({ data: { httpStatus: 400, details: { field: "to" } } });
    await staff.signatures.sendLink.mutate({ id: request.id, channel: "sms", to: "+49 170 3333333" });
    await runJobs();
    expect(smsTo("+491703333333").at(-1)!.get("Body")).toContain(request.token);
    await expect(staff.signatures.sendLink.mutate({ id: request.id, channel: "email" })).rejects.toMatchObject({
      data: { httpStatus: 400, details: { field: "to" } },
    });
    // No mail server here: the message waits in the outbox, and the answer says so.
    expect(
      await staff.signatures.sendLink.mutate({ id: request.id, channel: "email", to: "Patient@Example.org" }),
    ).toMatchObject({ channel: "email", delivery: "outbox" });
    await api.request("PUT", `/assignments/${request.id}`, {
      headers: bearer(org),
      body: { id: request.id, status: "draft" },
    });
    await expect(
      staff.signatures.sendLink.mutate({ id: request.id, channel: "sms", to: "+491703333333" }),
    ).rejects.toMatchObject({
      data: { httpStatus: 409, details: { reason: "not_signable" } },
    });
  });
});
