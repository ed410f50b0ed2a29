import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import type { FormField } from "@clinsign/contracts";
import { auditLog, and, eq, formSessions, submissions, webhookDeliveries } from "@clinsign/db";
import { logInCookie, startTestApi, type TestApi, type TestOrg } from "../../testing/harness";
import { activeTemplate, creds, newSession } from "../../testing/forms";
import { expectValidFhir } from "../../testing/fhir";
import { startReceiver, twilioEnv, type Receiver } from "../../testing/receiver";

/**
 * Issue 32, item 5: the browser does not choose the patient. An embed session that pins an rnummer
 * or phone refuses another (403, nothing stored); one that pins none keeps what the browser sends
 * as patient-reported: marked in the submission, under `untrustedClientData` in the webhook, never
 * a FHIR subject. Organization credentials and the SMS form (identifiers from the request) are
 * trusted as before.
 */

let api: TestApi;
let org: TestOrg;
let receiver: Receiver;
let twilio: Receiver;
let staff: ReturnType<TestApi["trpc"]>;

const fields: FormField[] = [{ id: "1", type: "text", key: "name", label: "Name", required: true }];
const values = { name: "Erika Muster" };

beforeAll(async () => {
  receiver = await startReceiver();
  twilio = await startReceiver();
  twilio.respond = () => ({ status: 201, body: JSON.stringify({ sid: "SM1" }) });
  api = await startTestApi({
    ...twilioEnv(twilio),
    PUBLIC_WEB_URL: "https://forms.test",
    OUTBOUND_ALLOW_HOSTS: `127.0.0.1:${receiver.port}`,
  });
  org = await api.createOrg("Klinik Nord");
  staff = api.trpc({ cookie: await logInCookie(api, org.ownerEmail, org.ownerPassword) });
}, 120_000);
afterAll(async () => {
  await api?.close();
  await receiver?.close();
  await twilio?.close();
});
beforeEach(() => {
  receiver.requests.length = 0;
  receiver.respond = () => ({ status: 200 });
});

const submit = (body: Record<string, unknown>) => api.request("POST", "/api/embed/submit", { body });
const storedOf = (templateIdentifier: string) =>
  api.services.db.select().from(submissions).where(eq(submissions.templateIdentifier, templateIdentifier));
const deliveriesOf = (templateIdentifier: string) =>
  api.services.db.select().from(webhookDeliveries).where(eq(webhookDeliveries.templateIdentifier, templateIdentifier));
const webhookData = () => JSON.parse(receiver.requests.at(-1)!.body).data;

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- tests read arbitrary FHIR JSON
async function fhirResponse(id: string): Promise<any> {
  const res = await fetch(`${api.baseUrl}/fhir/r4/QuestionnaireResponse/${id}`, {
    headers: { authorization: `Bearer ${org.token}` },
  });
  expect(res.status).toBe(200);
  return res.json();
}

async function fhirSearchBySubject(rnummer: string): Promise<string[]> {
  const res = await fetch(
    `${api.baseUrl}/fhir/r4/QuestionnaireResponse?patient:identifier=${encodeURIComponent(rnummer)}`,
    { headers: { authorization: `Bearer ${org.token}` } },
  );
  expect(res.status).toBe(200);
  const bundle = (await res.json()) as { entry?: { resource: { id: string } }[] };
  return (bundle.entry ?? []).map((e) => e.resource.id);
}

describe("a session that pins the patient refuses another", () => {
  it("pinned rnummer: another is 403 on REST F10 and on the embedded form's tRPC door, nothing stored or sent", async () => {
    const t = await activeTemplate(org, fields);
    const sessionId = await newSession(api, org, t.identifier, {
      rnummer: "R-BOUND-1",
      webhookUrl: `${receiver.url}/hook`,
    });

    const rest = await submit({ sessionId, values, rnummer: "R-VICTIM-9" });
    expect(rest.status).toBe(403);
    expect(rest.body).toMatchObject({ ok: false, error: "this session is bound to another rnummer" });
    await expect(
      api.trpc({ sessionId }).submissions.submit.mutate({ values, rnummer: "R-VICTIM-9" }),
    ).rejects.toMatchObject({ data: { httpStatus: 403 }, message: "this session is bound to another rnummer" });
    expect(await storedOf(t.identifier)).toEqual([]);
    expect(await deliveriesOf(t.identifier)).toEqual([]);
    expect(receiver.requests).toHaveLength(0);

    // The same value, or none, is the session's patient, trusted.
    const same = await submit({ sessionId, values, rnummer: "R-BOUND-1" });
    expect(same.status).toBe(200);
    const none = await api.trpc({ sessionId }).submissions.submit.mutate({ values });
    expect(none.rnummer).toBe("R-BOUND-1");
    const rows = await storedOf(t.identifier);
    expect(rows.map((r) => [r.rnummer, r.rnummerPatientReported])).toEqual([
      ["R-BOUND-1", false],
      ["R-BOUND-1", false],
    ]);
    expect(webhookData()).toMatchObject({ rnummer: "R-BOUND-1" });
    expect(webhookData()).not.toHaveProperty("untrustedClientData");
    const detail = await staff.submissions.get.query({ id: none.submissionId });
    expect(detail).toMatchObject({ rnummer: "R-BOUND-1", patientReported: [] });
    const resource = await fhirResponse(none.submissionId);
    expect(resource.subject.identifier.value).toBe("R-BOUND-1");
  });

  it("pinned phone: another number is 403, the same number in any format is the pinned one", async () => {
    const t = await activeTemplate(org, fields);
    const sessionId = await newSession(api, org, t.identifier, { phone: "+491701234567" });

    const rest = await submit({ sessionId, values, phone: "+491709999999" });
    expect(rest.status).toBe(403);
    expect(rest.body).toMatchObject({ ok: false, error: "this session is bound to another phone" });
    await expect(
      api.trpc({ sessionId }).submissions.submit.mutate({ values, phone: "+491709999999" }),
    ).rejects.toMatchObject({ data: { httpStatus: 403 } });
    expect(await storedOf(t.identifier)).toEqual([]);

    expect((await submit({ sessionId, values, phone: "0170 1234567" })).status).toBe(200);
    expect((await submit({ sessionId, values })).status).toBe(200);
    const rows = await storedOf(t.identifier);
    expect(rows.map((r) => [r.phone, r.phonePatientReported])).toEqual([
      ["+491701234567", false],
      ["+491701234567", false],
    ]);
  });
});

describe("without a pin, what the browser names is patient-reported", () => {
  it("an unpinned session's rnummer is stored, marked, sent as untrusted and never a FHIR subject", async () => {
    const t = await activeTemplate(org, fields);
    const sessionId = await newSession(api, org, t.identifier, { webhookUrl: `${receiver.url}/hook` });

    const res = await submit({ sessionId, values, rnummer: "R-VICTIM-9", phone: "+491701234567" });
    expect(res.status).toBe(200);
    const id = res.body.submissionId as string;
    const [row] = await storedOf(t.identifier);
    expect(row).toMatchObject({
      rnummer: "R-VICTIM-9",
      phone: "+491701234567",
      rnummerPatientReported: true,
      phonePatientReported: true,
    });

    // The staff API says so, in the detail and the list.
    expect(await staff.submissions.get.query({ id })).toMatchObject({
      rnummer: "R-VICTIM-9",
      patientReported: ["rnummer", "phone"],
    });
    const list = await staff.submissions.list.query({ templateIdentifier: t.identifier });
    expect(list.items[0]).toMatchObject({ rnummer: "R-VICTIM-9", patientReported: ["rnummer", "phone"] });

    // The webhook keeps the documented keys; the service vouches for neither identifier.
    expect(webhookData()).toEqual({
      rnummer: null,
      phone: null,
      untrustedClientData: { rnummer: "R-VICTIM-9", phone: "+491701234567" },
      values,
      submissionId: id,
      language: "de",
    });
    const [audit] = await api.services.db
      .select()
      .from(auditLog)
      .where(and(eq(auditLog.templateIdentifier, t.identifier), eq(auditLog.action, "form.submitted")));
    expect(audit!.metadata).toMatchObject({ rnummer: "R-VICTIM-9", patientReported: ["rnummer", "phone"] });

    // FHIR: no subject; the value rides in an extension that says what it is.
    const resource = await fhirResponse(id);
    await expectValidFhir(resource);
    expect(resource.subject).toBeUndefined();
    expect(resource.extension).toEqual([
      {
        url: "urn:clinsign:fhir:extension:patient-reported-identifier",
        valueIdentifier: { system: `${api.services.config.publicApiUrl}/fhir/r4/sid/rnummer`, value: "R-VICTIM-9" },
      },
    ]);
    expect(await fhirSearchBySubject("R-VICTIM-9")).toEqual([]);
    // The FHIR validator loads the R4 definitions on its first use.
  }, 120_000);

  it("an anonymous visitor of a public embed: the same", async () => {
    const t = await activeTemplate(org, fields);
    const embed = await staff.publicEmbeds.save.mutate({
      templateIdentifier: t.identifier,
      allowedOrigins: ["https://clinic.example"],
      enabled: true,
    });
    const visitor = await api.trpc({}).publicEmbeds.start.mutate({ code: embed.code });
    const result = await api
      .trpc({ sessionId: visitor.sessionId })
      .submissions.submit.mutate({ values, rnummer: "R-VICTIM-9" });
    const [row] = await storedOf(t.identifier);
    expect(row).toMatchObject({ rnummer: "R-VICTIM-9", rnummerPatientReported: true, phonePatientReported: false });
    expect(await staff.submissions.get.query({ id: result.submissionId })).toMatchObject({
      patientReported: ["rnummer"],
    });
    expect((await fhirResponse(result.submissionId)).subject).toBeUndefined();
  });
});

describe("organization credentials and the SMS form are trusted as before", () => {
  it("an API token's rnummer is the subject, and an SMS form request's rnummer comes from the request", async () => {
    const t = await activeTemplate(org, fields);
    const byToken = await submit({ ...creds(org), templateIdentifier: t.identifier, values, rnummer: "R-TOKEN-1" });
    expect(byToken.status).toBe(200);
    expect(await staff.submissions.get.query({ id: byToken.body.submissionId })).toMatchObject({
      rnummer: "R-TOKEN-1",
      patientReported: [],
    });
    expect((await fhirResponse(byToken.body.submissionId)).subject.identifier.value).toBe("R-TOKEN-1");
    expect(await fhirSearchBySubject("R-TOKEN-1")).toEqual([byToken.body.submissionId]);

    const requested = await api.request("POST", "/api/portal/request", {
      body: { ...creds(org), phone: "+49 170 1234567", rnummer: "R-SMS-1", templateIdentifier: t.identifier },
    });
    expect(requested.status).toBe(200);
    const sms = new URLSearchParams(twilio.requests.at(-1)!.body).get("Body")!;
    const linkToken = /\/f\/([A-Za-z0-9_-]+)/.exec(sms)![1]!;
    const verified = await fetch(`${api.baseUrl}/trpc/smsForm.verify`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ linkToken, rnummer: "R-SMS-1", phone: "0170 1234567" }),
    });
    expect(verified.status).toBe(200);
    const access = verified.headers
      .getSetCookie()
      .find((c) => c.startsWith("cs_form_access="))!
      .split(";")[0]!;
    const result = await api.trpc({ cookie: access }).smsForm.submit.mutate({ linkToken, values });
    expect(await staff.submissions.get.query({ id: result.submissionId })).toMatchObject({
      rnummer: "R-SMS-1",
      patientReported: [],
    });
    expect((await fhirResponse(result.submissionId)).subject.identifier.value).toBe("R-SMS-1");
  });
});

describe("a session's webhookUrl is checked when the session is made", () => {
  it("refuses what Settings refuses (plain http, private addresses, credentials) with 400 naming config.webhookUrl", async () => {
    const t = await activeTemplate(org, fields);
    for (const webhookUrl of [
      "http://his.clinic.example/hook",
      "https://10.0.0.7/hook",
      "https://[::1]/hook",
      "https://user:secret@his.clinic.example/hook",
    ]) {
      const res = await api.request("POST", "/api/embed/sessions", {
        body: { ...creds(org), templateIdentifier: t.identifier, config: { webhookUrl } },
      });
      expect(res.status, webhookUrl).toBe(400);
      expect(res.body.fieldErrors[0].key).toBe("config.webhookUrl");
      await expect(
        staff.sessions.create.mutate({ templateIdentifier: t.identifier, config: { webhookUrl } }),
      ).rejects.toMatchObject({ data: { httpStatus: 400 } });
    }
    expect(
      await api.services.db.select().from(formSessions).where(eq(formSessions.templateIdentifier, t.identifier)),
    ).toEqual([]);
    // A public https URL, and a receiver the deployment allows, are taken.
    expect(await newSession(api, org, t.identifier, { webhookUrl: "https://his.clinic.example/hook" })).toMatch(/^fs_/);
    expect(await newSession(api, org, t.identifier, { webhookUrl: `${receiver.url}/hook` })).toMatch(/^fs_/);
  });
});
