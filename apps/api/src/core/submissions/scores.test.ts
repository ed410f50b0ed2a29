import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { questionnaireLibrary } from "@clinsign/contracts";
import { eq, submissions } from "@clinsign/db";
import { logInCookie, startTestApi, type TestApi, type TestOrg } from "../../testing/harness";
import { creds, newSession, query } from "../../testing/forms";
import { pdfText } from "../../testing/pdf-text";
import { startReceiver, twilioEnv, type Receiver } from "../../testing/receiver";
import { createTemplate } from "../templates/templates";

let api: TestApi;
let org: TestOrg;
let cookie: string;
let receiver: Receiver;
let twilio: Receiver;
let identifier: string;

const phq9 = questionnaireLibrary.find((entry) => entry.id === "phq-9-en")!;
// Answers 3,3,2,2,1,1,0,0,1 → 13, "Moderate".
const answers = Object.fromEntries([3, 3, 2, 2, 1, 1, 0, 0, 1].map((a, i) => [`phq9_${i + 1}`, String(a)]));

beforeAll(async () => {
  receiver = await startReceiver();
  twilio = await startReceiver();
  twilio.respond = () => ({ status: 201, body: JSON.stringify({ sid: "SM1" }) });
  api = await startTestApi({
    ...twilioEnv(twilio),
    PUBLIC_WEB_URL: "https://forms.test",
    OUTBOUND_ALLOW_HOSTS: `127.0.0.1:${receiver.port}`,
  });
  org = await api.createOrg("Praxis Score");
  cookie = await logInCookie(api, org.ownerEmail, org.ownerPassword);
  const template = await createTemplate(org.ctx, {
    title: phq9.title,
    description: phq9.description,
    status: "active",
    schema: phq9.schema,
  });
  identifier = template.identifier;
});
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
const stored = async (id: string) =>
  (await api.services.db.select().from(submissions).where(eq(submissions.id, id)))[0]!.values;

describe("scored questionnaires at submit", () => {
  it("ignores a tampered client score: the server computes it from the answers (embed session door)", async () => {
    const sessionId = await newSession(api, org, identifier, { webhookUrl: `${receiver.url}/scored` });
    const res = await submit({ sessionId, values: { ...answers, phq9_score: { score: 0, band: "Minimal" } } });
    expect(res.status).toBe(200);
    const values = await stored(res.body.submissionId);
    expect(values.phq9_score).toEqual({ score: 13, band: "Moderate" });

    // The webhook carries the server's score.
    expect(receiver.requests).toHaveLength(1);
    expect(JSON.parse(receiver.requests[0]!.body).data.values.phq9_score).toEqual({ score: 13, band: "Moderate" });

    // Detail, CSV and PDF show it as "13 (Moderate)".
    const detail = await api.trpc({ cookie }).submissions.get.query({ id: res.body.submissionId });
    expect(detail.answers.find((a) => a.key === "phq9_score")).toMatchObject({
      label: "PHQ-9 total score",
      type: "score",
      value: { score: 13, band: "Moderate" },
      text: "13 (Moderate)",
    });
    const csv = await (
      await fetch(
        `${api.baseUrl}/staff/submissions/export?${query({ templateIdentifier: identifier, format: "csv" })}`,
        {
          headers: { cookie },
        },
      )
    ).text();
    expect(csv).toContain("PHQ-9 total score");
    expect(csv).toContain("13 (Moderate)");
    const pdf = await fetch(`${api.baseUrl}/staff/submissions/${res.body.submissionId}/pdf`, { headers: { cookie } });
    expect(pdf.status).toBe(200);
    const text = (await pdfText(new Uint8Array(await pdf.arrayBuffer()))).replace(/\s+/g, " ");
    expect(text).toContain("PHQ-9 total score");
    expect(text).toContain("13 (Moderate)");
  });

  it("overwrites a plain number sent under the score key (token door), and stores no score for an incomplete form", async () => {
    const res = await submit({
      ...creds(org),
      templateIdentifier: identifier,
      values: { ...answers, phq9_1: "0", phq9_score: 27 },
    });
    expect(res.status).toBe(200);
    expect((await stored(res.body.submissionId)).phq9_score).toEqual({ score: 10, band: "Moderate" });

    // The items are required: without them the form is refused, whatever score comes along.
    const incomplete = await submit({
      ...creds(org),
      templateIdentifier: identifier,
      values: { phq9_1: "3", phq9_score: { score: 27, band: "Severe" } },
    });
    expect(incomplete.status).toBe(400);
    expect(incomplete.body.fieldErrors.map((e: { key: string }) => e.key)).toEqual([
      "phq9_2",
      "phq9_3",
      "phq9_4",
      "phq9_5",
      "phq9_6",
      "phq9_7",
      "phq9_8",
      "phq9_9",
    ]);
  });

  it("the SMS form: a score sent with the answers is replaced by the server's", async () => {
    const requested = await api.request("POST", "/api/portal/request", {
      body: { ...creds(org), phone: "+49 170 1234567", rnummer: "R-SCORE-1", templateIdentifier: identifier },
    });
    expect(requested.status).toBe(200);
    const sms = new URLSearchParams(twilio.requests.at(-1)!.body).get("Body")!;
    const linkToken = /\/f\/([A-Za-z0-9_-]+)/.exec(sms)![1]!;
    const verified = await fetch(`${api.baseUrl}/trpc/smsForm.verify`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ linkToken, rnummer: "R-SCORE-1", phone: "0170 1234567" }),
    });
    expect(verified.status).toBe(200);
    const access = verified.headers
      .getSetCookie()
      .find((c) => c.startsWith("cs_form_access="))!
      .split(";")[0]!;
    const result = await api
      .trpc({ cookie: access })
      .smsForm.submit.mutate({ linkToken, values: { ...answers, phq9_score: { score: 1, band: "Minimal" } } });
    expect((await stored(result.submissionId)).phq9_score).toEqual({ score: 13, band: "Moderate" });
  });
});
