import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { SMTPServer } from "smtp-server";
import type { AddressInfo } from "node:net";
import type { FormField } from "@clinsign/contracts";
import { and, auditLog, drafts, eq, messages, submissions } from "@clinsign/db";
import { logInCookie, startTestApi, type TestApi, type TestOrg } from "../../testing/harness";
import { activeTemplate, creds, newSession } from "../../testing/forms";
import { startReceiver, type Receiver } from "../../testing/receiver";
import { makeBilevelPng, makeSignaturePng, pngDataUrl } from "../../testing/signature-fixtures";
import { jobHandlers } from "../../jobs/handlers";
import { JobRunner } from "../../jobs/runner";
import { inTransaction, type OrgContext } from "../context";
import { rotateWebhookSecret, updateOrganizationSettings } from "../organizations/organizations";
import { submitForm } from "./submissions";

let api: TestApi;
let org: TestOrg;
let other: TestOrg;
let receiver: Receiver;
let smtp: SMTPServer;
const mails: { from: string; to: string[]; raw: string }[] = [];

const fields: FormField[] = [
  { id: "1", type: "text", key: "name", label: "Name", required: true, minLength: 2, maxLength: 40 },
  { id: "2", type: "email", key: "email", label: "E-Mail" },
  { id: "3", type: "number", key: "age", label: "Alter", min: 0, max: 130 },
  { id: "4", type: "date", key: "born", label: "Geburtsdatum", min: "1900-01-01" },
  {
    id: "5",
    type: "select",
    key: "insurance",
    label: "Versicherung",
    options: ["gesetzlich", { value: "privat", label: "Privat" }],
  },
  { id: "6", type: "multiselect", key: "allergies", label: "Allergien", options: ["pollen", "nuts"] },
  { id: "7", type: "checkbox", key: "consent", label: "Einwilligung", required: true },
  { id: "8", type: "text", key: "zip", label: "PLZ", pattern: "[0-9]{5}" },
  { id: "9", type: "phone", key: "mobile", label: "Mobil" },
  { id: "10", type: "heading", label: "Abschnitt" },
  { id: "11", type: "file", key: "scan", label: "Befund", accept: "application/pdf", maxSizeMb: 1 },
  { id: "12", type: "radio", key: "gender", label: "Geschlecht", options: ["f", "m", "d"] },
];
const valid = {
  name: "Erika Muster",
  email: "erika@example.org",
  age: 41,
  born: "1983-05-01",
  insurance: "privat",
  allergies: ["nuts"],
  consent: true,
  zip: "50667",
  mobile: "+491701234567",
  gender: "f",
};

beforeAll(async () => {
  receiver = await startReceiver();
  smtp = new SMTPServer({
    authOptional: true,
    disabledCommands: ["STARTTLS"],
    logger: false,
    onData(stream, smtpSession, callback) {
      let raw = "";
      stream.on("data", (c: Buffer) => (raw += c.toString("utf8")));
      stream.on("end", () => {
        mails.push({
          from: smtpSession.envelope.mailFrom ? smtpSession.envelope.mailFrom.address : "",
          to: smtpSession.envelope.rcptTo.map((r) => r.address),
          raw,
        });
        callback();
      });
    },
  });
  await new Promise<void>((resolve) => smtp.listen(0, "127.0.0.1", resolve));
  const smtpPort = (smtp.server.address() as AddressInfo).port;
  api = await startTestApi({
    OUTBOUND_ALLOW_HOSTS: `127.0.0.1:${receiver.port}`,
    SMTP_URL: `smtp://127.0.0.1:${smtpPort}`,
    MAIL_FROM: "Klinik <forms@clinic.test>",
  });
  org = await api.createOrg("Klinik Nord");
  other = await api.createOrg("Klinik Süd");
});
afterAll(async () => {
  await api?.close();
  await receiver?.close();
  await new Promise<void>((resolve) => smtp?.close(() => resolve()));
});
beforeEach(() => {
  receiver.requests.length = 0;
  receiver.respond = () => ({ status: 200 });
});

const submit = (body: Record<string, unknown>) => api.request("POST", "/api/embed/submit", { body });

describe("F10 POST /api/embed/submit", () => {
  it("runs the whole pipeline: store, delete the draft, webhook, audit, redirect, e-mail", async () => {
    const secret = (await rotateWebhookSecret(org.ctx)).secret;
    expect(secret).toBeTruthy();
    const t = await activeTemplate(org, fields);
    const sessionId = await newSession(api, org, t.identifier, {
      webhookUrl: `${receiver.url}/submitted`,
      draftKey: "case-10",
      redirectUrl: "https://clinic.test/thanks",
      emailTo: ["doc@clinic.test", "desk@clinic.test"],
      emailSubject: "Neuer Anamnesebogen",
      rnummer: "R-2024-1",
      phone: "+491701234567",
    });
    await api.request("POST", "/api/embed/drafts", {
      body: { sessionId, draftKey: "case-10", values: { name: "Eri" } },
    });

    const res = await submit({ sessionId, values: valid });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      ok: true,
      rnummer: "R-2024-1",
      webhookDelivered: true,
      submissionId: expect.any(String),
      redirectUrl: "https://clinic.test/thanks",
    });

    const [stored] = await api.services.db.select().from(submissions).where(eq(submissions.id, res.body.submissionId));
    expect(stored).toMatchObject({
      organizationId: org.orgId,
      templateIdentifier: t.identifier,
      values: valid,
      rnummer: "R-2024-1",
      phone: "+491701234567",
      actorType: "embed_session",
    });
    expect(await api.services.db.select().from(drafts).where(eq(drafts.templateIdentifier, t.identifier))).toEqual([]);

    expect(receiver.requests).toHaveLength(1);
    const payload = JSON.parse(receiver.requests[0]!.body);
    expect(payload).toMatchObject({
      event: "form.submitted",
      organizationId: org.orgId,
      templateIdentifier: t.identifier,
      data: { rnummer: "R-2024-1", phone: "+491701234567", values: valid },
    });

    const actions = await api.services.db
      .select({ action: auditLog.action, metadata: auditLog.metadata, actorType: auditLog.actorType })
      .from(auditLog)
      .where(and(eq(auditLog.organizationId, org.orgId), eq(auditLog.templateIdentifier, t.identifier)))
      .orderBy(auditLog.seq);
    const after = actions.map((a) => a.action).slice(actions.findIndex((a) => a.action === "form.draft_deleted"));
    expect(after).toEqual(["form.draft_deleted", "webhook.dispatched", "form.submitted"]);
    expect(actions.find((a) => a.action === "form.submitted")).toMatchObject({
      actorType: "embed_session",
      metadata: { rnummer: "R-2024-1", phone: "+491701234567", fieldCount: Object.keys(valid).length },
    });

    mails.length = 0;
    await new JobRunner(api.services, jobHandlers).runDue();
    expect(mails).toHaveLength(1);
    expect(mails[0]!.from).toBe("forms@clinic.test");
    expect(mails[0]!.to.sort()).toEqual(["desk@clinic.test", "doc@clinic.test"]);
    expect(mails[0]!.raw).toContain("Subject: Neuer Anamnesebogen");
    expect(mails[0]!.raw).toContain("Name: Erika Muster");
    const [mail] = await api.services.db
      .select()
      .from(messages)
      .where(and(eq(messages.organizationId, org.orgId), eq(messages.channel, "email")));
    expect(mail).toMatchObject({ status: "sent", provider: "smtp", attempts: 1 });
  });

  it("answers 400 with a fieldError for every problem, stores nothing and keeps the draft", async () => {
    const t = await activeTemplate(org, fields);
    const sessionId = await newSession(api, org, t.identifier, { draftKey: "keep" });
    await api.request("POST", "/api/embed/drafts", { body: { sessionId, draftKey: "keep", values: { name: "x" } } });
    const res = await submit({
      sessionId,
      values: {
        name: "E",
        email: "nope",
        age: 200,
        born: "1899-12-31",
        insurance: "none",
        allergies: ["pollen", "cats"],
        consent: false,
        zip: "5066",
        mobile: "12",
        gender: 3,
        shoeSize: 42,
        scan: [
          {
            name: "x.pdf",
            path: "form-uploads/202401/aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa",
            size: 10,
            type: "application/pdf",
          },
        ],
      },
    });
    expect(res.status).toBe(400);
    expect(res.body.ok).toBe(false);
    expect(res.body.error).toBe("validation failed");
    const byKey = Object.fromEntries(
      res.body.fieldErrors.map((e: { key: string; message: string }) => [e.key, e.message]),
    );
    expect(byKey).toEqual({
      shoeSize: "is not a field of this form",
      name: "must be at least 2 characters",
      email: "must be a valid e-mail address",
      age: "must be at most 130",
      born: "must be on or after 1900-01-01",
      insurance: "must be one of the options",
      allergies: "must contain only the options",
      consent: "must be checked",
      zip: "does not have the expected format",
      mobile: "must be a valid phone number",
      gender: "must be one of the options",
      scan: "references a file that was not uploaded for this form",
    });
    const missing = await submit({ sessionId, values: {} });
    expect(missing.body.fieldErrors).toEqual([
      { key: "name", message: "is required", code: "required" },
      { key: "consent", message: "must be checked", code: "must_be_checked" },
    ]);
    expect((await submit({ sessionId, values: { ...valid, Abschnitt: "x" } })).body.fieldErrors).toEqual([
      { key: "Abschnitt", message: "is not a field of this form", code: "unknown_field" },
    ]);
    expect((await submit({ sessionId })).status).toBe(400);
    expect(
      await api.services.db.select().from(submissions).where(eq(submissions.templateIdentifier, t.identifier)),
    ).toEqual([]);
    expect(
      (await api.request("GET", `/api/embed/drafts?sessionId=${encodeURIComponent(sessionId)}`)).body.draft.values,
    ).toEqual({ name: "x" });
  });

  it("takes a PNG or JPEG signature within 4000 px a side and 4 megapixels; refuses SVG and larger images with 400", async () => {
    const t = await activeTemplate(org, [
      { id: "1", type: "signature", key: "sig", label: "Unterschrift", required: true },
    ]);
    const sessionId = await newSession(api, org, t.identifier, {});
    const svg = `data:image/svg+xml;base64,${Buffer.from('<svg xmlns="http://www.w3.org/2000/svg"><script>alert(1)</script></svg>').toString("base64")}`;
    const refused = [
      [svg, "must be a PNG or JPEG signature image (data URL)", "signature_invalid"],
      // 12 KB declaring 10000 x 10000 pixels: the PDF of the submission would decode all of them.
      [
        pngDataUrl(makeBilevelPng(10_000, 10_000)),
        "the signature image is 10000 × 10000 pixels; at most 4000 × 4000 and 4 megapixels are accepted",
        "signature_too_large",
      ],
      [
        pngDataUrl(makeBilevelPng(2500, 2000)),
        "the signature image is 2500 × 2000 pixels; at most 4000 × 4000 and 4 megapixels are accepted",
        "signature_too_large",
      ],
    ] as const;
    for (const [value, message, code] of refused) {
      const res = await submit({ sessionId, values: { sig: value } });
      expect(res.status).toBe(400);
      expect(res.body.fieldErrors).toHaveLength(1);
      expect(res.body.fieldErrors[0]).toMatchObject({ key: "sig", message, code });
    }
    expect(
      await api.services.db.select().from(submissions).where(eq(submissions.templateIdentifier, t.identifier)),
    ).toEqual([]);
    const signed = await submit({ sessionId, values: { sig: pngDataUrl(makeSignaturePng(1170, 600)) } });
    expect(signed.status).toBe(200);
  });

  it("keeps the submission when the webhook fails, and retries the webhook later", async () => {
    const t = await activeTemplate(org, fields);
    const sessionId = await newSession(api, org, t.identifier, { webhookUrl: `${receiver.url}/flaky` });
    receiver.respond = () => ({ status: 503 });
    const res = await submit({ sessionId, values: valid, rnummer: "R-9" });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ ok: true, rnummer: "R-9", webhookDelivered: false, redirectUrl: null });
    expect(
      await api.services.db.select().from(submissions).where(eq(submissions.id, res.body.submissionId)),
    ).toHaveLength(1);
    const log = await api.request(
      "GET",
      `/api/embed/webhook-events?token=${org.token}&orgId=${org.orgId}&templateIdentifier=${t.identifier}`,
    );
    expect(log.body.events).toMatchObject([
      { eventType: "form.submitted", delivered: false, statusCode: 503, attempt: 1 },
    ]);
  });

  it("works with token, orgId and templateIdentifier (actor api_key), and keeps organizations apart", async () => {
    const t = await activeTemplate(org, fields);
    const plain = await api.createOrg("Plain");
    const pt = await activeTemplate(plain, fields);
    const res = await submit({
      ...creds(plain),
      templateIdentifier: pt.identifier,
      values: valid,
      rnummer: "A-1",
      phone: "+491701234567",
    });
    expect(res.body).toMatchObject({ ok: true, rnummer: "A-1", webhookDelivered: false });
    const [row] = await api.services.db.select().from(submissions).where(eq(submissions.id, res.body.submissionId));
    expect(row).toMatchObject({ actorType: "api_key", organizationId: plain.orgId });
    expect((await submit({ ...creds(other), templateIdentifier: t.identifier, values: valid })).status).toBe(404);
    expect(
      (await submit({ token: other.token, orgId: org.orgId, templateIdentifier: t.identifier, values: valid })).status,
    ).toBe(401);
    expect((await submit({ sessionId: "fs_bad", values: valid })).status).toBe(401);
    expect((await submit({ ...creds(org), values: valid })).body.error).toBe("templateIdentifier: is required");
    const sessionId = await newSession(api, org, t.identifier);
    expect((await submit({ sessionId, templateIdentifier: pt.identifier, values: valid })).status).toBe(403);
  });

  it("is the same procedure over tRPC, and staff can list submissions of their organization only", async () => {
    const t = await activeTemplate(org, fields);
    const sessionId = await newSession(api, org, t.identifier);
    const result = await api.trpc({ sessionId }).submissions.submit.mutate({ values: valid });
    expect(result).toMatchObject({ webhookDelivered: false, rnummer: null });
    await expect(api.trpc({ sessionId }).submissions.submit.mutate({ values: { name: "E" } })).rejects.toMatchObject({
      data: {
        httpStatus: 400,
        fieldErrors: expect.arrayContaining([
          { key: "name", message: "must be at least 2 characters", code: "too_short", params: { min: 2 } },
        ]),
      },
    });
    const cookie = await logInCookie(api, org.ownerEmail, org.ownerPassword);
    const list = await api.trpc({ cookie }).submissions.list.query({ templateIdentifier: t.identifier });
    expect(list.items.map((s) => s.id)).toEqual([result.submissionId]);
    const otherCookie = await logInCookie(api, other.ownerEmail, other.ownerPassword);
    expect(
      await api.trpc({ cookie: otherCookie }).submissions.list.query({ templateIdentifier: t.identifier }),
    ).toEqual({ items: [], nextCursor: null, hasMore: false });
    await expect(
      api.trpc({ cookie: otherCookie }).submissions.get.query({ id: result.submissionId }),
    ).rejects.toMatchObject({ data: { httpStatus: 404 } });
  });

  it("a resend of the same submission after a lost answer is answered with the first, never stored twice (issue 35)", async () => {
    const t = await activeTemplate(org, fields);
    const sessionId = await newSession(api, org, t.identifier);
    const page = api.trpc({ sessionId }).submissions;
    const actionId = randomUUID();
    const first = await page.submit.mutate({ values: valid, actionId });
    // The page never heard back and sends the same submission again; two at once as well.
    const again = await page.submit.mutate({ values: valid, actionId });
    const racing = await Promise.all([1, 2].map(() => page.submit.mutate({ values: valid, actionId })));
    for (const answer of [again, ...racing]) expect(answer.submissionId).toBe(first.submissionId);
    const stored = await api.services.db
      .select()
      .from(submissions)
      .where(eq(submissions.templateIdentifier, t.identifier));
    expect(stored.map((row) => row.id)).toEqual([first.submissionId]);
    const audited = await api.services.db
      .select()
      .from(auditLog)
      .where(and(eq(auditLog.templateIdentifier, t.identifier), eq(auditLog.action, "form.submitted")));
    expect(audited).toHaveLength(1);

    // Another submission of the page (a new id) is a submission of its own; another session's
    // browser naming the same id is not answered with this one.
    const second = await page.submit.mutate({ values: valid, actionId: randomUUID() });
    expect(second.submissionId).not.toBe(first.submissionId);
    const stranger = await newSession(api, org, t.identifier);
    await expect(
      api.trpc({ sessionId: stranger }).submissions.submit.mutate({ values: valid, actionId }),
    ).rejects.toMatchObject({ data: { httpStatus: 409 } });
    await expect(page.submit.mutate({ values: valid, actionId: "not-a-uuid" })).rejects.toMatchObject({
      data: { httpStatus: 400 },
    });
  });

  it("gives the form page the key it holds answers with offline: the session's own, stable, never a token's (issue 35)", async () => {
    const t = await activeTemplate(org, fields);
    const sessionId = await newSession(api, org, t.identifier);
    const { holdKey } = await api.trpc({ sessionId }).forms.holdKey.query();
    expect(Buffer.from(holdKey, "base64url")).toHaveLength(32);
    expect((await api.trpc({ sessionId }).forms.holdKey.query()).holdKey).toBe(holdKey);
    const otherSession = await newSession(api, org, t.identifier);
    expect((await api.trpc({ sessionId: otherSession }).forms.holdKey.query()).holdKey).not.toBe(holdKey);
    // An organization's token fills no form of its own: it has nothing to hold.
    await expect(api.trpc({ bearer: org.token }).forms.holdKey.query()).rejects.toMatchObject({
      data: { httpStatus: 401 },
    });
    await expect(api.trpc({}).forms.holdKey.query()).rejects.toMatchObject({ data: { httpStatus: 401 } });
  });

  it("takes phone answers typed nationally in the organization's phone country and stores them in E.164", async () => {
    const phoneFields: FormField[] = [{ id: "1", type: "phone", key: "mobile", label: "Mobil", required: true }];
    const t = await activeTemplate(org, phoneFields);
    const sessionId = await newSession(api, org, t.identifier);
    const res = await submit({ sessionId, values: { mobile: "0170 7654321" } });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    const [stored] = await api.services.db.select().from(submissions).where(eq(submissions.id, res.body.submissionId));
    expect(stored!.values).toEqual({ mobile: "+491707654321" });
    // An Austrian organization's national numbers are Austrian.
    const vienna = await api.createOrg("Klinik Wien F10");
    await updateOrganizationSettings(vienna.ctx, { phoneCountry: "AT" });
    const theirs = await activeTemplate(vienna, phoneFields);
    const theirSession = await newSession(api, vienna, theirs.identifier);
    const austrian = await submit({ sessionId: theirSession, values: { mobile: "0664 1234567" } });
    expect(austrian.status).toBe(200);
    const [kept] = await api.services.db
      .select()
      .from(submissions)
      .where(eq(submissions.id, austrian.body.submissionId));
    expect(kept!.values).toEqual({ mobile: "+436641234567" });
    const refused = await submit({ sessionId: theirSession, values: { mobile: "12" } });
    expect(refused.body, JSON.stringify(refused.body)).toMatchObject({
      fieldErrors: [{ key: "mobile", message: "must be a valid phone number", code: "phone" }],
    });
  });

  it("skips fields hidden by their conditions: not required, not validated, not stored, not sent", async () => {
    const conditional: FormField[] = [
      { id: "1", type: "radio", key: "pregnant", label: "Schwanger?", options: ["yes", "no"], required: true },
      {
        id: "2",
        type: "number",
        key: "week",
        label: "Woche",
        required: true,
        min: 1,
        max: 42,
        visibleWhen: { field: "pregnant", operator: "equals", value: "yes" },
      },
      {
        id: "3",
        type: "text",
        key: "note",
        label: "Notiz",
        visibleWhen: {
          all: [
            { field: "pregnant", operator: "equals", value: "yes" },
            { field: "week", operator: "filled" },
          ],
        },
      },
    ];
    const t = await activeTemplate(org, conditional);
    const sessionId = await newSession(api, org, t.identifier, { webhookUrl: `${receiver.url}/conditional` });

    const res = await submit({ sessionId, values: { pregnant: "no", week: 99, note: "stale answer" } });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    const [stored] = await api.services.db.select().from(submissions).where(eq(submissions.id, res.body.submissionId));
    expect(stored!.values).toEqual({ pregnant: "no" });
    expect(JSON.parse(receiver.requests[0]!.body).data.values).toEqual({ pregnant: "no" });

    const shown = await submit({ sessionId, values: { pregnant: "yes", note: "x" } });
    expect(shown.body.fieldErrors).toEqual([{ key: "week", message: "is required", code: "required" }]);
    const bounded = await submit({ sessionId, values: { pregnant: "yes", week: 43 } });
    expect(bounded.body.fieldErrors).toEqual([
      { key: "week", message: "must be at most 42", code: "too_large", params: { max: 42 } },
    ]);
  });

  it("records a failing e-mail provider on the message and retries it", async () => {
    const broken = await startTestApi({ SMTP_URL: "smtp://127.0.0.1:1" });
    try {
      const o = await broken.createOrg();
      const t = await activeTemplate(o, fields);
      await updateOrganizationSettings(o.ctx, {});
      const sessionId = await newSession(broken, o, t.identifier, { emailTo: "doc@clinic.test" });
      expect((await broken.request("POST", "/api/embed/submit", { body: { sessionId, values: valid } })).status).toBe(
        200,
      );
      await new JobRunner(broken.services, jobHandlers).runDue();
      const [mail] = await broken.services.db.select().from(messages).where(eq(messages.organizationId, o.orgId));
      expect(mail).toMatchObject({
        status: "queued",
        attempts: 1,
        lastError: expect.stringMatching(/ECONNREFUSED|connect/i),
      });
      expect(
        await broken.services.db.select().from(submissions).where(eq(submissions.organizationId, o.orgId)),
      ).toHaveLength(1);
    } finally {
      await broken.close();
    }
  });
});

describe("F2/F5 templates with visibleWhen", () => {
  const name = { id: "1", type: "text", key: "name", label: "Name" };
  const detail = {
    id: "2",
    type: "text",
    key: "detail",
    label: "Detail",
    visibleWhen: { field: "reason", operator: "filled" },
  };
  const reason = { id: "3", type: "text", key: "reason", label: "Grund" };
  const create = (fields: unknown[]) =>
    api.request("POST", "/api/embed/templates", {
      body: { ...creds(org), title: "Bedingt", schema: { version: 1, fields } },
    });

  it("refuses a condition on a field defined later, naming the field, and keeps one on an earlier field", async () => {
    const res = await create([name, detail, reason]);
    expect(res.status).toBe(400);
    expect(res.body.ok).toBe(false);
    expect(res.body.error).toMatch(/^schema\.fields\.1\.visibleWhen\.field: refers to "reason", which comes later/);

    const created = await create([name, reason, detail]);
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    expect(created.body.template.schema.fields[2].visibleWhen).toEqual({ field: "reason", operator: "filled" });

    const patched = await api.request("PATCH", `/api/embed/templates/${created.body.template.identifier}`, {
      body: { ...creds(org), schema: { version: 2, fields: [name, detail, reason] } },
    });
    expect(patched.status).toBe(400);
    expect(patched.body.error).toMatch(/^schema\.fields\.1\.visibleWhen\.field: /);
  });
});

describe("submitForm inside a caller's transaction (composable transactions)", () => {
  it("runs its effects (webhook delivery, job wake-up) only after the outermost commit, and never after a rollback", async () => {
    const t = await activeTemplate(org, [{ id: "1", type: "text", key: "name", label: "Name" }], "After commit");
    const wakes: string[] = [];
    // An embed session's grant with its own webhook, and a job runner that only records its wake-ups.
    const ctx: OrgContext = {
      ...org.ctx,
      services: { ...org.ctx.services, jobs: { wake: () => void wakes.push("wake") } },
      formGrant: {
        id: randomUUID(),
        templateIdentifier: t.identifier,
        config: { webhookUrl: `${receiver.url}/after-commit` },
        expiresAt: new Date(Date.now() + 3_600_000),
      },
    };
    const stored = () =>
      api.services.db
        .select()
        .from(submissions)
        .where(and(eq(submissions.organizationId, org.orgId), eq(submissions.templateIdentifier, t.identifier)));

    // Rolled back by the caller after submitForm returned: nothing stored, delivered or woken.
    await expect(
      inTransaction(ctx, async (tx) => {
        await submitForm(tx, { templateIdentifier: t.identifier, values: { name: "Rolled back" } });
        throw new Error("the caller's next step fails");
      }),
    ).rejects.toThrow("the caller's next step fails");
    expect(await stored()).toEqual([]);
    expect(receiver.requests).toHaveLength(0);
    expect(wakes).toEqual([]);

    // Committed: the effects wait for the caller's last step and the commit, then run once.
    const seenInside: unknown[] = [];
    const result = await inTransaction(ctx, async (tx) => {
      const submitted = await submitForm(tx, { templateIdentifier: t.identifier, values: { name: "Committed" } });
      seenInside.push(receiver.requests.length, [...wakes]);
      return submitted;
    });
    expect(seenInside).toEqual([0, []]);
    expect(receiver.requests).toHaveLength(1);
    expect(receiver.requests[0]!.path).toBe("/after-commit");
    expect(wakes).toEqual(["wake"]);
    // Only the call that opens the transaction learns how the first attempt went.
    expect(result.webhookDelivered).toBe(false);
    expect((await stored()).map((row) => row.values)).toEqual([{ name: "Committed" }]);

    // Called on its own, submitForm is the outermost transaction: the answer says the webhook arrived.
    const alone = await submitForm(ctx, { templateIdentifier: t.identifier, values: { name: "Alone" } });
    expect(alone.webhookDelivered).toBe(true);
    expect(wakes).toEqual(["wake", "wake"]);
  });
});
