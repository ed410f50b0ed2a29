import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { createTemplateInput } from "@clinsign/contracts";
import { and, auditLog, drafts, eq, formRequests, jobs, messages, otpChallenges, sql, submissions } from "@clinsign/db";
import { logInCookie, startTestApi, type TestApi, type TestOrg } from "../../testing/harness";
import { activeTemplate, creds } from "../../testing/forms";
import { startReceiver, twilioEnv, type Receiver } from "../../testing/receiver";
import { jobHandlers } from "../../jobs/handlers";
import { JobRunner } from "../../jobs/runner";
import { saveDefaultBranding, saveDesign } from "../branding/branding";
import { updateOrganizationSettings } from "../organizations/organizations";
import { createTemplate } from "../templates/templates";

let api: TestApi;
let org: TestOrg;
let other: TestOrg;
let twilio: Receiver;
let receiver: Receiver;

const MOBILE = "+49 170 1234567";
const E164 = "+491701234567";

beforeAll(async () => {
  twilio = await startReceiver();
  receiver = await startReceiver();
  api = await startTestApi({
    ...twilioEnv(twilio),
    PUBLIC_WEB_URL: "https://forms.test",
    OUTBOUND_ALLOW_HOSTS: `127.0.0.1:${receiver.port}`,
  });
  org = await api.createOrg("Klinik Nord");
  other = await api.createOrg("Klinik Süd");
});
afterAll(async () => {
  await api?.close();
  await twilio?.close();
  await receiver?.close();
});
beforeEach(() => {
  twilio.requests.length = 0;
  twilio.respond = () => ({ status: 201, body: JSON.stringify({ sid: `SM${Math.random().toString(16).slice(2)}` }) });
});

const request = (body: Record<string, unknown>) => api.request("POST", "/api/portal/request", { body });
const smsBody = (i = -1) => new URLSearchParams(twilio.requests.at(i)!.body);
const linkTokenFrom = (text: string) => /\/f\/([A-Za-z0-9_-]+)/.exec(text)![1]!;
/** The OTP code in an SMS text, in either language. */
const codeIn = /\b(\d{6})\b/;

describe("F1 POST /api/portal/request", () => {
  it("stores the request, normalises the phone to E.164 and sends the portal link by SMS", async () => {
    const t = await activeTemplate(org);
    const res = await request({
      ...creds(org),
      phone: MOBILE,
      rnummer: "R-100",
      templateIdentifier: t.identifier,
      from: "KlinikNord",
      emailTo: "doc@clinic.test",
      emailSubject: "Ergebnis",
    });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ ok: true, rnummer: "R-100", phone: E164, templateIdentifier: t.identifier });
    expect(twilio.requests).toHaveLength(1);
    expect(twilio.requests[0]!.path).toBe("/2010-04-01/Accounts/AC123/Messages.json");
    expect(twilio.requests[0]!.headers.authorization).toBe(
      `Basic ${Buffer.from("AC123:secret-token").toString("base64")}`,
    );
    const sms = smsBody();
    expect(sms.get("To")).toBe(E164);
    expect(sms.get("From")).toBe("KlinikNord");
    expect(sms.get("Body")).toMatch(/https:\/\/forms\.test\/f\/[A-Za-z0-9_-]{43}/);
    const [row] = await api.services.db.select().from(formRequests).where(eq(formRequests.rnummer, "R-100"));
    expect(row).toMatchObject({ phone: E164, emailTo: ["doc@clinic.test"], emailSubject: "Ergebnis", status: "sent" });
    // Only the hash of the link token is stored.
    expect(JSON.stringify(row)).not.toContain(linkTokenFrom(sms.get("Body")!));
    const [msg] = await api.services.db.select().from(messages).where(eq(messages.id, row!.smsMessageId!));
    expect(msg).toMatchObject({ status: "sent", provider: "twilio", attempts: 1 });
  });

  it("answers 400 for invalid phones and every field rule of the table", async () => {
    const t = await activeTemplate(org);
    const base = { ...creds(org), phone: MOBILE, rnummer: "R-1", templateIdentifier: t.identifier };
    for (const [body, key] of [
      [{ phone: "12345" }, "phone"],
      [{ phone: "0170 12" }, "phone"], // too short, nationally too
      [{ phone: "+49 30 1234567" }, "phone"], // fixed line, not mobile
      [{ phone: undefined }, "phone"],
      [{ rnummer: "R" }, "rnummer"],
      [{ rnummer: "x".repeat(65) }, "rnummer"],
      [{ rnummer: undefined }, "rnummer"],
      [{ from: "" }, "from"],
      [{ from: "x".repeat(33) }, "from"],
      [{ emailTo: "nope" }, "emailTo"],
      [{ emailTo: ["a@b.test", "bad"] }, "emailTo"],
      [{ emailSubject: "s".repeat(201) }, "emailSubject"],
    ] as const) {
      const res = await request({ ...base, ...body });
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(res.body.ok).toBe(false);
      expect(res.body.fieldErrors[0].key.startsWith(key), JSON.stringify(res.body)).toBe(true);
    }
    expect(
      (
        await request({
          ...base,
          rnummer: "RR",
          from: "x".repeat(32),
          emailSubject: "s".repeat(200),
          emailTo: ["a@b.test", "c@d.test"],
        })
      ).status,
    ).toBe(200);
    expect((await request({ ...base, rnummer: "x".repeat(64), from: "A" })).status).toBe(200);
  });

  it("accepts a national mobile number of the organization's phone country and answers E.164", async () => {
    const t = await activeTemplate(org);
    const res = await request({
      ...creds(org),
      phone: "0170 7654321",
      rnummer: "R-NAT",
      templateIdentifier: t.identifier,
    });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.phone).toBe("+491707654321");
    expect(smsBody().get("To")).toBe("+491707654321");
    // An Austrian clinic's staff type Austrian numbers nationally; a German fixed line stays refused.
    const vienna = await api.createOrg("Klinik Wien");
    await updateOrganizationSettings(vienna.ctx, { phoneCountry: "AT" });
    const theirs = await activeTemplate(vienna);
    const austrian = await request({
      ...creds(vienna),
      phone: "0664 1234567",
      rnummer: "R-AT",
      templateIdentifier: theirs.identifier,
    });
    expect(austrian.body).toMatchObject({ ok: true, phone: "+436641234567" });
    const fixed = await request({
      ...creds(org),
      phone: "030 1234567",
      rnummer: "R-FIX",
      templateIdentifier: t.identifier,
    });
    expect(fixed.status).toBe(400);
    expect(fixed.body.fieldErrors).toEqual([{ key: "phone", message: "must be a mobile number" }]);
  });

  it("writes the link SMS in the request's language with the clinic's name and no form title: German by default, else the organization's or the request's", async () => {
    const t = await activeTemplate(org);
    await request({ ...creds(org), phone: MOBILE, rnummer: "R-DE", templateIdentifier: t.identifier });
    expect(smsBody().get("Body")).toMatch(
      /^Klinik Nord: Sie haben ein Formular auszufüllen: https:\/\/forms\.test\/f\/[A-Za-z0-9_-]{43}$/,
    );
    // A lock screen shows the text to anyone near the phone: the title ("PHQ-9") stays on the page.
    expect(smsBody().get("Body")).not.toContain("Anamnese");
    await request({ ...creds(org), phone: MOBILE, rnummer: "R-EN", templateIdentifier: t.identifier, locale: "en" });
    expect(smsBody().get("Body")).toMatch(/^Klinik Nord: you have a form to fill in: https:\/\/forms\.test\/f\//);
    // Every patient language, not only German and English.
    await request({ ...creds(org), phone: MOBILE, rnummer: "R-TR", templateIdentifier: t.identifier, locale: "tr" });
    expect(smsBody().get("Body")).toMatch(/^Klinik Nord: doldurmanız gereken bir form var: https:\/\/forms\.test\/f\//);
    const english = await api.createOrg("London Clinic");
    await updateOrganizationSettings(english.ctx, { locale: "en" });
    const theirs = await activeTemplate(english);
    await request({ ...creds(english), phone: MOBILE, rnummer: "R-ORG-EN", templateIdentifier: theirs.identifier });
    expect(smsBody().get("Body")).toMatch(/^London Clinic: you have a form to fill in/);
    await request({
      ...creds(english),
      phone: MOBILE,
      rnummer: "R-ORG-DE",
      templateIdentifier: theirs.identifier,
      locale: "de",
    });
    expect(smsBody().get("Body")).toMatch(/^London Clinic: Sie haben ein Formular/);
    expect(
      (await request({ ...creds(org), phone: MOBILE, rnummer: "R-FR", templateIdentifier: t.identifier, locale: "fr" }))
        .status,
    ).toBe(400);
    // A resent link keeps the request's language.
    const [row] = await api.services.db.select().from(formRequests).where(eq(formRequests.rnummer, "R-EN"));
    const cookie = await logInCookie(api, org.ownerEmail, org.ownerPassword);
    await api.trpc({ cookie }).formRequests.resend.mutate({ id: row!.id });
    expect(smsBody().get("Body")).toMatch(/^Klinik Nord: you have a form to fill in/);
  });

  it("may name an institution of the organization, whose branding the portal then shows", async () => {
    const t = await activeTemplate(org);
    await saveDefaultBranding(org.ctx, { design_parameters: { primaryColor: "#222222" } });
    await saveDesign(
      org.ctx,
      { institution_id: "klinik-ost", design_parameters: { primaryColor: "#0a5c36" } },
      "create",
    );
    await saveDesign(
      other.ctx,
      { institution_id: "their-clinic", design_parameters: { primaryColor: "#990000" } },
      "create",
    );
    const base = { ...creds(org), phone: MOBILE, templateIdentifier: t.identifier };
    for (const institutionId of ["unknown-clinic", "their-clinic", ""]) {
      const refused = await request({ ...base, rnummer: "R-INST-X", institutionId });
      expect(refused.status, institutionId).toBe(400);
      expect(refused.body.fieldErrors[0].key).toBe("institutionId");
    }
    expect(await api.services.db.select().from(formRequests).where(eq(formRequests.rnummer, "R-INST-X"))).toEqual([]);
    expect((await request({ ...base, rnummer: "R-INST", institutionId: "klinik-ost" })).status).toBe(200);
    const withInstitution = await api.trpc({}).smsForm.open.query({ linkToken: linkTokenFrom(smsBody().get("Body")!) });
    expect(withInstitution).toMatchObject({ organizationName: "Klinik Nord", branding: { primaryColor: "#0a5c36" } });
    await request({ ...base, rnummer: "R-DEFAULT" });
    const withDefault = await api.trpc({}).smsForm.open.query({ linkToken: linkTokenFrom(smsBody().get("Body")!) });
    expect(withDefault).toMatchObject({ organizationName: "Klinik Nord", branding: { primaryColor: "#222222" } });
  });

  it("answers 401 for a bad token, 403 for another organization's template, 404 without or for an inactive template", async () => {
    const t = await activeTemplate(org);
    const theirs = await activeTemplate(other);
    const draft = await createTemplate(org.ctx, createTemplateInput.parse({ title: "draft" }));
    const base = { phone: MOBILE, rnummer: "R-2" };
    expect(
      (await request({ token: "cs_wrong", orgId: org.orgId, ...base, templateIdentifier: t.identifier })).status,
    ).toBe(401);
    expect(
      (await request({ token: other.token, orgId: org.orgId, ...base, templateIdentifier: t.identifier })).status,
    ).toBe(401);
    const forbidden = await request({ ...creds(org), ...base, templateIdentifier: theirs.identifier });
    expect(forbidden.status).toBe(403);
    expect(forbidden.body).toMatchObject({ ok: false, error: "this template does not belong to the organization" });
    expect((await request({ ...creds(org), ...base })).status).toBe(404);
    expect((await request({ ...creds(org), ...base, templateIdentifier: draft.identifier })).status).toBe(404);
    expect((await request({ ...creds(org), ...base, templateIdentifier: "does-not-exist" })).status).toBe(404);
    expect(await api.services.db.select().from(formRequests).where(eq(formRequests.rnummer, "R-2"))).toEqual([]);
  });

  it("keeps the request when the SMS provider fails, shows the failure and retries it", async () => {
    const t = await activeTemplate(org);
    twilio.respond = () => ({ status: 500, body: JSON.stringify({ code: 20500, message: "Internal Server Error" }) });
    const res = await request({ ...creds(org), phone: MOBILE, rnummer: "R-FAIL", templateIdentifier: t.identifier });
    expect(res.status).toBe(200);
    const [row] = await api.services.db.select().from(formRequests).where(eq(formRequests.rnummer, "R-FAIL"));
    expect(row).toBeTruthy();
    const cookie = await logInCookie(api, org.ownerEmail, org.ownerPassword);
    const [listed] = (await api.trpc({ cookie }).formRequests.list.query({})).items;
    expect(listed).toMatchObject({
      rnummer: "R-FAIL",
      state: "sms_retrying",
      smsError: expect.stringContaining("HTTP 500"),
    });
    // The provider recovers; the retry sends the same SMS.
    twilio.respond = () => ({ status: 201, body: JSON.stringify({ sid: "SMok" }) });
    await api.services.db
      .update(jobs)
      .set({ runAt: new Date(Date.now() - 1000) })
      .where(and(eq(jobs.organizationId, org.orgId), eq(jobs.status, "pending")));
    await new JobRunner(api.services, jobHandlers).runDue();
    const [after] = (await api.trpc({ cookie }).formRequests.list.query({})).items;
    expect(after).toMatchObject({ state: "sent", smsError: null });
    expect(twilio.requests).toHaveLength(2);
    expect(smsBody(0).get("Body")).toBe(smsBody(1).get("Body"));
    // Staff of another organization see none of it.
    const otherCookie = await logInCookie(api, other.ownerEmail, other.ownerPassword);
    expect(
      (await api.trpc({ cookie: otherCookie }).formRequests.list.query({})).items.some((r) => r.rnummer === "R-FAIL"),
    ).toBe(false);
  });

  it("is the same procedure over tRPC", async () => {
    const t = await activeTemplate(org);
    const out = await api
      .trpc({ bearer: org.token })
      .formRequests.create.mutate({ phone: MOBILE, rnummer: "R-RPC", templateIdentifier: t.identifier });
    expect(out).toEqual({ rnummer: "R-RPC", phone: E164, templateIdentifier: t.identifier });
    await expect(
      api
        .trpc({ bearer: org.token })
        .formRequests.create.mutate({ phone: "1", rnummer: "R-RPC", templateIdentifier: t.identifier }),
    ).rejects.toMatchObject({
      data: { httpStatus: 400 },
    });
  });
});

describe("the SMS portal", () => {
  async function start(rnummer: string, extra: Record<string, unknown> = {}, o: TestOrg = org) {
    const t = await activeTemplate(o, [
      { id: "1", type: "text", key: "name", label: "Name", required: true },
      { id: "2", type: "file", key: "befund", label: "Befund", accept: ".pdf" },
    ]);
    await request({ ...creds(o), phone: MOBILE, rnummer, templateIdentifier: t.identifier, ...extra });
    return { t, linkToken: linkTokenFrom(smsBody().get("Body")!) };
  }
  const smsForm = (cookie?: string) => api.trpc(cookie ? { cookie } : {}).smsForm;

  /** An identification step over HTTP: its answer and the access cookie it set (if any). */
  async function smsFormStep(procedure: "verify" | "checkOtp", input: Record<string, string>, cookie?: string) {
    const response = await fetch(`${api.baseUrl}/trpc/smsForm.${procedure}`, {
      method: "POST",
      headers: { "content-type": "application/json", ...(cookie && { cookie }) },
      body: JSON.stringify(input),
    });
    const body = (await response.json()) as { result?: { data: Record<string, unknown> } };
    const setCookie = response.headers.getSetCookie().find((c) => c.startsWith("cs_form_access="));
    const setIdentity = response.headers.getSetCookie().find((c) => c.startsWith("cs_form_identified="));
    return {
      status: response.status,
      data: body.result?.data,
      setCookie,
      cookie: setCookie?.split(";")[0],
      setIdentity,
      identity: setIdentity?.split(";")[0],
    };
  }

  it("without two-factor: rnummer + phone give access; the form is filled, saved and submitted with actor portal", async () => {
    const { t, linkToken } = await start("R-P1", { emailTo: "doc@clinic.test", emailSubject: "Bogen R-P1" });
    expect(await smsForm().open.query({ linkToken })).toMatchObject({
      status: "sent",
      templateTitle: "Anamnese",
      otpRequired: false,
    });
    const access = await smsFormStep("verify", { linkToken, rnummer: "R-P1", phone: "0170 1234567" });
    expect(access.data).toMatchObject({ otpRequired: false });
    // The access is an HTTP-only cookie for the portal's pages; the page's script never sees it.
    expect(JSON.stringify(access.data)).not.toMatch(/accessToken/);
    expect(access.setCookie).toMatch(
      /^cs_form_access=[A-Za-z0-9_-]{43}; Path=\/f\/; HttpOnly; SameSite=Strict; Max-Age=\d+/,
    );
    const accessCookie = access.cookie!;
    // Without the cookie, or with it for another link, nothing opens.
    await expect(smsForm().template.query({ linkToken })).rejects.toMatchObject({ data: { httpStatus: 401 } });
    const otherLink = await start("R-P1-OTHER");
    await expect(smsForm(accessCookie).template.query({ linkToken: otherLink.linkToken })).rejects.toMatchObject({
      data: { httpStatus: 401 },
    });
    expect(await smsForm(accessCookie).open.query({ linkToken })).toMatchObject({
      status: "verified",
      hasAccess: true,
      organizationName: "Klinik Nord",
    });
    expect(await smsForm().open.query({ linkToken })).toMatchObject({ hasAccess: false });
    expect((await smsForm(accessCookie).template.query({ linkToken })).identifier).toBe(t.identifier);
    // The key the page holds answers with offline (issue 35): the recipient's only, stable, per link.
    await expect(smsForm().holdKey.query({ linkToken })).rejects.toMatchObject({ data: { httpStatus: 401 } });
    const { holdKey } = await smsForm(accessCookie).holdKey.query({ linkToken });
    expect(Buffer.from(holdKey, "base64url")).toHaveLength(32);
    expect((await smsForm(accessCookie).holdKey.query({ linkToken })).holdKey).toBe(holdKey);
    // Uploads of the portal's form: the access cookie and the link, nothing else.
    const upload = (headers: Record<string, string>) => {
      const form = new FormData();
      form.append("fieldKey", "befund");
      form.append("file", new Blob(["%PDF-1.4\n%%EOF\n"], { type: "application/pdf" }), "befund.pdf");
      return fetch(`${api.baseUrl}/api/embed/uploads`, { method: "POST", headers, body: form });
    };
    const uploaded = await upload({ cookie: accessCookie, "x-portal-link": linkToken });
    expect(uploaded.status).toBe(200);
    expect(((await uploaded.json()) as { files: { name: string }[] }).files[0]).toMatchObject({ name: "befund.pdf" });
    expect((await upload({ "x-portal-link": linkToken })).status).toBe(401);
    expect((await upload({ cookie: accessCookie, "x-portal-link": otherLink.linkToken })).status).toBe(401);
    await smsForm(accessCookie).saveDraft.mutate({ linkToken, values: { name: "Eri" } });
    expect((await smsForm(accessCookie).loadDraft.query({ linkToken }))!.values).toEqual({ name: "Eri" });
    await expect(smsForm(accessCookie).submit.mutate({ linkToken, values: {} })).rejects.toMatchObject({
      data: { httpStatus: 400 },
    });
    const result = await smsForm(accessCookie).submit.mutate({ linkToken, values: { name: "Erika" } });
    expect(result).toMatchObject({ ok: true, rnummer: "R-P1" });
    const [stored] = await api.services.db.select().from(submissions).where(eq(submissions.id, result.submissionId));
    expect(stored).toMatchObject({
      actorType: "sms_recipient",
      rnummer: "R-P1",
      phone: E164,
      values: { name: "Erika" },
    });
    // The request's own draft (a namespace no caller may name) went with the submission.
    const [request] = await api.services.db.select().from(formRequests).where(eq(formRequests.rnummer, "R-P1"));
    expect(
      await api.services.db
        .select()
        .from(drafts)
        .where(eq(drafts.draftKey, `form-request:${request!.id}`)),
    ).toEqual([]);
    const [audit] = await api.services.db
      .select()
      .from(auditLog)
      .where(and(eq(auditLog.templateIdentifier, t.identifier), eq(auditLog.action, "form.submitted")));
    expect(audit).toMatchObject({
      actorType: "sms_recipient",
      metadata: { rnummer: "R-P1", phone: E164, fieldCount: 1 },
    });
    const [mail] = await api.services.db
      .select()
      .from(messages)
      .where(
        and(eq(messages.organizationId, org.orgId), eq(messages.channel, "email"), eq(messages.subject, "Bogen R-P1")),
      );
    expect(mail).toMatchObject({ recipients: ["doc@clinic.test"] });
    await new JobRunner(api.services, jobHandlers).runDue();
    const [sent] = await api.services.db.select().from(messages).where(eq(messages.id, mail!.id));
    expect(sent).toMatchObject({ status: "sent", provider: "outbox" });
    // Staff see the SMS and the e-mail in their organization's message list; others see none.
    const cookie = await logInCookie(api, org.ownerEmail, org.ownerPassword);
    const listed = await api.trpc({ cookie }).messages.list.query({});
    expect(listed.find((m) => m.id === mail!.id)).toMatchObject({
      channel: "email",
      status: "sent",
      subject: "Bogen R-P1",
    });
    expect((await api.trpc({ cookie }).messages.list.query({ channel: "sms" })).every((m) => m.channel === "sms")).toBe(
      true,
    );
    const otherCookie = await logInCookie(api, other.ownerEmail, other.ownerPassword);
    expect((await api.trpc({ cookie: otherCookie }).messages.list.query({})).some((m) => m.id === mail!.id)).toBe(
      false,
    );
    await expect(api.trpc({ bearer: org.token }).messages.list.query({})).rejects.toMatchObject({
      data: { httpStatus: 401 },
    });
    // Submitted once; the access token is spent.
    await expect(smsForm(accessCookie).submit.mutate({ linkToken, values: { name: "Again" } })).rejects.toMatchObject({
      data: { httpStatus: 401 },
    });
    await expect(smsForm().verify.mutate({ linkToken, rnummer: "R-P1", phone: MOBILE })).rejects.toMatchObject({
      data: { httpStatus: 409 },
    });
  });

  it("compares the case number without letter case or surrounding spaces, and such an entry costs no try", async () => {
    const { linkToken } = await start("R-Case 7");
    await expect(smsForm().verify.mutate({ linkToken, rnummer: "R-CASE 8", phone: MOBILE })).rejects.toMatchObject({
      data: { details: { attemptsLeft: 4 } },
    });
    expect(
      await smsForm().verify.mutate({ linkToken, rnummer: "  r-case 7 ", phone: " 0170 123 4567 " }),
    ).toMatchObject({ otpRequired: false });
    const [row] = await api.services.db.select().from(formRequests).where(eq(formRequests.rnummer, "R-Case 7"));
    expect(row).toMatchObject({ status: "verified", failedChecks: 0 });
  });

  it("names the organization and its phone country; the recipient may type the number nationally in that country", async () => {
    const vienna = await api.createOrg("Klinik Wien Portal");
    await updateOrganizationSettings(vienna.ctx, { phoneCountry: "AT" });
    const t = await activeTemplate(vienna);
    await request({ ...creds(vienna), phone: "+43 664 1234567", rnummer: "R-WIEN", templateIdentifier: t.identifier });
    const linkToken = linkTokenFrom(smsBody().get("Body")!);
    expect(await smsForm().open.query({ linkToken })).toMatchObject({
      organizationName: "Klinik Wien Portal",
      phoneCountry: "AT",
      branding: null,
    });
    expect(await smsForm().verify.mutate({ linkToken, rnummer: "R-WIEN", phone: "0664 1234567" })).toMatchObject({
      otpRequired: false,
    });
    // An expired link still says who sent it (whom to ask for a new one).
    await api.services.db
      .update(formRequests)
      .set({ expiresAt: new Date(Date.now() - 1000) })
      .where(eq(formRequests.rnummer, "R-WIEN"));
    expect(await smsForm().open.query({ linkToken })).toMatchObject({
      status: "expired",
      organizationName: "Klinik Wien Portal",
    });
  });

  it("sends the OTP code in the request's language with the clinic's name", async () => {
    const otpOrg = await api.createOrg("Praxis Dr. Weiß");
    await updateOrganizationSettings(otpOrg.ctx, { otpEnabled: true });
    const { linkToken } = await start("R-OTP-DE", {}, otpOrg);
    await smsForm().verify.mutate({ linkToken, rnummer: "R-OTP-DE", phone: MOBILE });
    expect(smsBody().get("Body")).toMatch(
      /^Praxis Dr\. Weiß: Ihr Code lautet \d{6} \(10 Minuten gültig\)\. Geben Sie ihn nicht weiter\.$/,
    );
    const english = await start("R-OTP-EN", { locale: "en" }, otpOrg);
    await smsForm().verify.mutate({ linkToken: english.linkToken, rnummer: "R-OTP-EN", phone: MOBILE });
    expect(smsBody().get("Body")).toMatch(
      /^Praxis Dr\. Weiß: your code is \d{6} \(valid for 10 minutes\)\. Do not share it\.$/,
    );
  });

  it("locks the request after 5 wrong entries, even with the right ones afterwards", async () => {
    const { linkToken } = await start("R-LOCK");
    for (let i = 1; i <= 4; i++) {
      await expect(smsForm().verify.mutate({ linkToken, rnummer: "R-WRONG", phone: MOBILE })).rejects.toMatchObject({
        data: { httpStatus: 401, details: { attemptsLeft: 5 - i } },
      });
    }
    await expect(
      smsForm().verify.mutate({ linkToken, rnummer: "R-LOCK", phone: "+491709999999" }),
    ).rejects.toMatchObject({ data: { httpStatus: 403 } });
    await expect(smsForm().verify.mutate({ linkToken, rnummer: "R-LOCK", phone: MOBILE })).rejects.toMatchObject({
      data: { httpStatus: 403 },
    });
    expect((await smsForm().open.query({ linkToken })).status).toBe("locked");
    await expect(smsForm().open.query({ linkToken: "x".repeat(43) })).rejects.toMatchObject({
      data: { httpStatus: 404 },
    });
  });

  /** portal.verify from a client address of its own, as an attacker with many addresses would. */
  const verifyFrom = (address: string, input: Record<string, string>) =>
    fetch(`${api.baseUrl}/trpc/smsForm.verify`, {
      method: "POST",
      headers: { "content-type": "application/json", "x-forwarded-for": address },
      body: JSON.stringify(input),
    }).then((res) => res.status);

  it("counts parallel wrong entries atomically: 20 at once from 20 addresses are 5 tries, then the link is locked", async () => {
    const { linkToken } = await start("R-RACE");
    const statuses = await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        verifyFrom(`198.51.100.${i + 1}`, { linkToken, rnummer: "R-WRONG", phone: MOBILE }),
      ),
    );
    expect(statuses.filter((s) => s === 401)).toHaveLength(4);
    expect(statuses.filter((s) => s === 403)).toHaveLength(16);
    const [row] = await api.services.db.select().from(formRequests).where(eq(formRequests.rnummer, "R-RACE"));
    expect(row).toMatchObject({ status: "locked", failedChecks: 5 });
    const failures = await api.services.db
      .select()
      .from(auditLog)
      .where(eq(auditLog.action, "form_request.identity_failed"));
    expect(failures.filter((e) => (e.metadata as { formRequestId?: string }).formRequestId === row!.id)).toHaveLength(
      5,
    );
  });

  it("a correct entry racing wrong ones never clears the lock they set", async () => {
    const { linkToken } = await start("R-RACE2");
    const statuses = await Promise.all([
      ...Array.from({ length: 10 }, (_, i) =>
        verifyFrom(`203.0.113.${i + 1}`, { linkToken, rnummer: "R-WRONG", phone: MOBILE }),
      ),
      verifyFrom("203.0.113.99", { linkToken, rnummer: "R-RACE2", phone: MOBILE }),
    ]);
    const [row] = await api.services.db.select().from(formRequests).where(eq(formRequests.rnummer, "R-RACE2"));
    // Whatever the order, 10 wrong entries lock the link (at most 4 could precede the right one, 5 more follow it).
    expect(row).toMatchObject({ status: "locked", failedChecks: 5 });
    expect(statuses.filter((s) => s === 401 || s === 200).length).toBeLessThanOrEqual(9);
  });

  it("claims, submits and links in one transaction: a failure in any step rolls all of it back, so the request stays claimable and the retry stores it once", async () => {
    const { t, linkToken } = await start("R-ONCE");
    const { cookie } = await smsFormStep("verify", { linkToken, rnummer: "R-ONCE", phone: MOBILE });
    const [before] = await api.services.db.select().from(formRequests).where(eq(formRequests.rnummer, "R-ONCE"));
    // Linking the stored submission to its request fails: the last step of the transaction.
    await api.services.db.execute(
      sql.raw("alter table form_requests add constraint refuse_link check (submission_id is null) not valid"),
    );
    try {
      await expect(smsForm(cookie).submit.mutate({ linkToken, values: { name: "Erika" } })).rejects.toMatchObject({
        data: { httpStatus: 500 },
      });
    } finally {
      await api.services.db.execute(sql.raw("alter table form_requests drop constraint refuse_link"));
    }
    // Nothing of it committed: the claim, the submission, its audit entry and its e-mail are gone.
    const [during] = await api.services.db.select().from(formRequests).where(eq(formRequests.id, before!.id));
    expect(during).toMatchObject({
      status: "verified",
      submissionId: null,
      accessTokenHash: before!.accessTokenHash,
      accessExpiresAt: before!.accessExpiresAt,
    });
    expect(await api.services.db.select().from(submissions).where(eq(submissions.formRequestId, before!.id))).toEqual(
      [],
    );
    expect(
      await api.services.db
        .select()
        .from(auditLog)
        .where(and(eq(auditLog.templateIdentifier, t.identifier), eq(auditLog.action, "form.submitted"))),
    ).toEqual([]);
    // The same access submits again, once.
    const retry = await smsForm(cookie).submit.mutate({ linkToken, values: { name: "Erika" } });
    expect(retry).toMatchObject({ ok: true, rnummer: "R-ONCE" });
    await expect(smsForm(cookie).submit.mutate({ linkToken, values: { name: "Erika" } })).rejects.toMatchObject({
      data: { httpStatus: 401 },
    });
    const [row] = await api.services.db.select().from(formRequests).where(eq(formRequests.id, before!.id));
    expect(row).toMatchObject({ status: "submitted", submissionId: retry.submissionId });
    expect(await api.services.db.select().from(submissions).where(eq(submissions.formRequestId, row!.id))).toHaveLength(
      1,
    );
  });

  it("keeps the link token and the OTP code out of the stored messages, the staff list and the jobs", async () => {
    const otpOrg = await api.createOrg("Outbox clinic");
    await updateOrganizationSettings(otpOrg.ctx, { otpEnabled: true });
    const { linkToken } = await start("R-SECRET", {}, otpOrg);
    await smsFormStep("verify", { linkToken, rnummer: "R-SECRET", phone: MOBILE });
    const code = codeIn.exec(smsBody().get("Body")!)![1]!;
    // The provider got both secrets; nothing the service keeps, or shows staff, holds either.
    const stored = await api.services.db.select().from(messages).where(eq(messages.organizationId, otpOrg.orgId));
    expect(stored.map((m) => [m.purpose, m.status, m.body])).toEqual(
      expect.arrayContaining([
        ["form_request.link", "sent", "Outbox clinic: Sie haben ein Formular auszufüllen: https://forms.test/f/••••••"],
        [
          "portal.otp",
          "sent",
          "Outbox clinic: Ihr Code lautet •••••• (10 Minuten gültig). Geben Sie ihn nicht weiter.",
        ],
      ]),
    );
    const cookie = await logInCookie(api, otpOrg.ownerEmail, otpOrg.ownerPassword);
    const listed = JSON.stringify(await api.trpc({ cookie }).messages.list.query({}));
    const jobRows = JSON.stringify(
      await api.services.db.select().from(jobs).where(eq(jobs.organizationId, otpOrg.orgId)),
    );
    for (const text of [JSON.stringify(stored), listed, jobRows]) {
      expect(text).not.toContain(linkToken);
      expect(text).not.toContain(code);
    }
    expect(jobRows).not.toContain("sealedBody");
  });

  it("with two-factor: a 6-digit OTP by SMS, stored hashed; 5 wrong codes end it; resend after 30 s", async () => {
    const otpOrg = await api.createOrg("OTP clinic");
    await updateOrganizationSettings(otpOrg.ctx, { otpEnabled: true });
    const { linkToken } = await start("R-OTP", {}, otpOrg);
    await expect(smsForm().checkOtp.mutate({ linkToken, code: "123456" })).rejects.toMatchObject({
      data: { httpStatus: 401 },
    });
    const step = await smsFormStep("verify", { linkToken, rnummer: "R-OTP", phone: MOBILE });
    expect(step.data).toEqual({ otpRequired: true, accessExpiresAt: null });
    expect(step.setCookie).toBeUndefined();
    // This browser is identified for the OTP step, with a cookie of its own.
    expect(step.setIdentity).toMatch(
      /^cs_form_identified=[A-Za-z0-9_-]{43}; Path=\/f\/; HttpOnly; SameSite=Strict; Max-Age=1800/,
    );
    const identified = step.identity!;
    const code = codeIn.exec(smsBody().get("Body")!)![1]!;
    const [challenge] = await api.services.db
      .select()
      .from(otpChallenges)
      .where(eq(otpChallenges.organizationId, otpOrg.orgId));
    expect(challenge!.codeHash).not.toContain(code);
    expect(Math.abs(challenge!.expiresAt.getTime() - challenge!.createdAt.getTime() - 10 * 60_000)).toBeLessThan(2000);
    // Resend too early.
    await expect(smsForm(identified).resendOtp.mutate({ linkToken })).rejects.toMatchObject({
      data: { httpStatus: 429 },
    });
    const wrong = code === "000000" ? "111111" : "000000";
    for (let i = 1; i <= 4; i++) {
      await expect(smsForm(identified).checkOtp.mutate({ linkToken, code: wrong })).rejects.toMatchObject({
        data: { httpStatus: 401, details: { attemptsLeft: 5 - i } },
      });
    }
    await expect(smsForm(identified).checkOtp.mutate({ linkToken, code: wrong })).rejects.toMatchObject({
      message: "too many wrong codes: request a new one",
    });
    // The right code no longer works: the challenge has ended.
    await expect(smsForm(identified).checkOtp.mutate({ linkToken, code })).rejects.toMatchObject({
      message: "no valid code: request a new one",
    });
    // 30 s later a new code may be sent, and it works.
    await api.services.db
      .update(otpChallenges)
      .set({ createdAt: new Date(Date.now() - 31_000) })
      .where(eq(otpChallenges.organizationId, otpOrg.orgId));
    await smsForm(identified).resendOtp.mutate({ linkToken });
    const second = codeIn.exec(smsBody().get("Body")!)![1]!;
    const access = await smsFormStep("checkOtp", { linkToken, code: second }, identified);
    expect(access.data).toMatchObject({ otpRequired: false });
    expect(access.cookie).toMatch(/^cs_form_access=[A-Za-z0-9_-]{43}$/);
    // The identification cookie has served its purpose.
    expect(access.setIdentity).toMatch(/^cs_form_identified=; .*Max-Age=0/);
    expect((await smsForm(access.cookie).template.query({ linkToken })).title).toBe("Anamnese");
  });

  it("OTP codes expire after 10 minutes, and at most 5 are sent per phone and hour", async () => {
    const otpOrg = await api.createOrg("OTP limits");
    await updateOrganizationSettings(otpOrg.ctx, { otpEnabled: true });
    const phone = "+491761112233";
    const t = await activeTemplate(otpOrg);
    await request({ ...creds(otpOrg), phone, rnummer: "R-EXP", templateIdentifier: t.identifier });
    const linkToken = linkTokenFrom(smsBody().get("Body")!);
    const identified = (await smsFormStep("verify", { linkToken, rnummer: "R-EXP", phone })).identity!;
    const code = codeIn.exec(smsBody().get("Body")!)![1]!;
    await api.services.db
      .update(otpChallenges)
      .set({ expiresAt: new Date(Date.now() - 1000) })
      .where(eq(otpChallenges.organizationId, otpOrg.orgId));
    await expect(smsForm(identified).checkOtp.mutate({ linkToken, code })).rejects.toMatchObject({
      data: { httpStatus: 401 },
      message: "no valid code: request a new one",
    });
    // Sends 2 to 5 are allowed (30 s apart), the 6th within the hour is refused.
    for (let i = 2; i <= 5; i++) {
      await api.services.db
        .update(otpChallenges)
        .set({ createdAt: new Date(Date.now() - 31_000) })
        .where(eq(otpChallenges.organizationId, otpOrg.orgId));
      await smsForm(identified).resendOtp.mutate({ linkToken });
    }
    await api.services.db
      .update(otpChallenges)
      .set({ createdAt: new Date(Date.now() - 31_000) })
      .where(eq(otpChallenges.organizationId, otpOrg.orgId));
    await expect(smsForm(identified).resendOtp.mutate({ linkToken })).rejects.toMatchObject({
      data: { httpStatus: 429 },
    });
    const sends = await api.services.db
      .select()
      .from(otpChallenges)
      .where(eq(otpChallenges.organizationId, otpOrg.orgId));
    expect(sends).toHaveLength(5);
  });

  it("binds the OTP step to the browser that passed identification: others with the link cannot burn its tries", async () => {
    const otpOrg = await api.createOrg("OTP binding");
    await updateOrganizationSettings(otpOrg.ctx, { otpEnabled: true });
    // A phone of its own: the earlier tests used up MOBILE's five code SMS of this hour.
    const phone = "+491761234599";
    const { linkToken } = await start("R-BIND", { phone }, otpOrg);
    const identified = (await smsFormStep("verify", { linkToken, rnummer: "R-BIND", phone })).identity!;
    const code = codeIn.exec(smsBody().get("Body")!)![1]!;
    const wrong = code === "000000" ? "111111" : "000000";
    // Another browser with the link, without or with a made-up identification cookie, is refused
    // before any code is compared: the recipient's five tries stay untouched.
    for (const cookie of [undefined, "cs_form_identified=" + "A".repeat(43), "cs_form_identified=%ZZ"]) {
      for (let i = 0; i < 6; i++) {
        await expect(smsForm(cookie).checkOtp.mutate({ linkToken, code: wrong })).rejects.toMatchObject({
          data: { httpStatus: 401 },
          message: "enter the case number and phone number first",
        });
      }
      await expect(smsForm(cookie).resendOtp.mutate({ linkToken })).rejects.toMatchObject({
        data: { httpStatus: 401 },
      });
    }
    const [challenge] = await api.services.db
      .select()
      .from(otpChallenges)
      .where(eq(otpChallenges.organizationId, otpOrg.orgId));
    expect(challenge).toMatchObject({ failedAttempts: 0, endedAt: null });
    // The identified browser's cookie does not open another link's OTP step either.
    const other = await start("R-BIND-2", {}, otpOrg);
    await expect(
      smsForm(identified).checkOtp.mutate({ linkToken: other.linkToken, code: wrong }),
    ).rejects.toMatchObject({ data: { httpStatus: 401 } });
    const access = await smsFormStep("checkOtp", { linkToken, code }, identified);
    expect(access.cookie).toMatch(/^cs_form_access=/);
    // Used up: the cookie does not start an OTP step again.
    await expect(smsForm(identified).resendOtp.mutate({ linkToken })).rejects.toMatchObject({
      data: { httpStatus: 401 },
    });
  });

  it("holds an access to 120 calls a minute across the form, drafts, uploads and submit (429 with Retry-After)", async () => {
    const { linkToken } = await start("R-RATE");
    const accessCookie = (await smsFormStep("verify", { linkToken, rnummer: "R-RATE", phone: MOBILE })).cookie!;
    const client = smsForm(accessCookie);
    await client.template.query({ linkToken });
    for (let i = 2; i <= 60; i++) await client.saveDraft.mutate({ linkToken, values: { name: `N${i}` } });
    for (let i = 61; i <= 120; i++) await client.loadDraft.query({ linkToken });
    await expect(client.saveDraft.mutate({ linkToken, values: { name: "late" } })).rejects.toMatchObject({
      data: { httpStatus: 429, details: { retryAfterSeconds: expect.any(Number) } },
    });
    await expect(client.submit.mutate({ linkToken, values: { name: "late" } })).rejects.toMatchObject({
      data: { httpStatus: 429 },
    });
    const form = new FormData();
    form.append("fieldKey", "befund");
    form.append("file", new Blob(["%PDF-1.4\n%%EOF\n"], { type: "application/pdf" }), "befund.pdf");
    const upload = await fetch(`${api.baseUrl}/api/embed/uploads`, {
      method: "POST",
      headers: { cookie: accessCookie, "x-portal-link": linkToken },
      body: form,
    });
    expect(upload.status).toBe(429);
    expect(Number(upload.headers.get("retry-after"))).toBeGreaterThan(0);
    // The last saved draft is the one before the limit; the request is still open.
    expect(
      (await api.services.db.select().from(formRequests).where(eq(formRequests.rnummer, "R-RATE")))[0],
    ).toMatchObject({ status: "verified" });
    // Identifying again does not start a fresh count: the limit is the request's.
    const again = (await smsFormStep("verify", { linkToken, rnummer: "R-RATE", phone: MOBILE })).cookie!;
    await expect(smsForm(again).loadDraft.query({ linkToken })).rejects.toMatchObject({ data: { httpStatus: 429 } });
  });
});
