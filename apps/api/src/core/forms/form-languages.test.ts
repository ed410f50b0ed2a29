import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import type { FormField, TemplateTranslations } from "@clinsign/contracts";
import { eq, formRequests, submissions } from "@clinsign/db";
import { logInCookie, startTestApi, type TestApi, type TestOrg } from "../../testing/harness";
import { creds, newSession, query } from "../../testing/forms";
import { startReceiver, twilioEnv, type Receiver } from "../../testing/receiver";
import { createTemplate } from "../templates/templates";
import { submissionPdfContent } from "../submissions/pdf";

// Issue 19: a form in several languages. Values never depend on the language; the submission
// records which one the patient read; staff read German labels and see the answered language.

let api: TestApi;
let org: TestOrg;
let twilio: Receiver;

const fields: FormField[] = [
  { id: "f1", key: "name", type: "text", label: "Name", required: true },
  {
    id: "f2",
    key: "insurance",
    type: "radio",
    label: "Versicherung",
    options: [{ value: "gkv", label: "Gesetzlich" }, "privat"],
    required: true,
  },
  { id: "f3", key: "pain", type: "multiselect", label: "Beschwerden", options: ["kopf", "ruecken"] },
];
const translations: TemplateTranslations = {
  tr: {
    title: "Anamnez",
    fields: {
      name: { label: "Adınız" },
      insurance: { label: "Sigorta", options: { gkv: "Devlet sigortası", privat: "Özel" } },
      pain: { label: "Şikayetler", options: { kopf: "Baş", ruecken: "Sırt" } },
    },
  },
  ar: {
    title: "التاريخ الطبي",
    fields: { name: { label: "الاسم" }, insurance: { label: "التأمين", options: { gkv: "حكومي", privat: "خاص" } } },
  },
};
const answers = { name: "Ayşe Yılmaz", insurance: "gkv", pain: ["kopf", "ruecken"] };

const translatedTemplate = () =>
  createTemplate(org.ctx, {
    title: "Anamnese",
    status: "active",
    schema: { version: 1, fields },
    defaultLanguage: "de",
    translations,
  });

const submit = (body: Record<string, unknown>) => api.request("POST", "/api/embed/submit", { body });
const storedSubmission = async (id: string) =>
  (await api.services.db.select().from(submissions).where(eq(submissions.id, id)))[0]!;

beforeAll(async () => {
  twilio = await startReceiver();
  api = await startTestApi({ ...twilioEnv(twilio), PUBLIC_WEB_URL: "https://forms.test" });
  org = await api.createOrg("Klinik Nord");
});
afterAll(async () => {
  await api?.close();
  await twilio?.close();
});
beforeEach(() => {
  twilio.requests.length = 0;
  twilio.respond = () => ({ status: 201, body: JSON.stringify({ sid: `SM${Math.random().toString(16).slice(2)}` }) });
});

describe("templates with translations (F2–F5)", () => {
  it("stores and answers defaultLanguage and translations; unknown keys are a 400 naming them", async () => {
    const created = await api.request("POST", "/api/embed/templates", {
      body: { ...creds(org), title: "Anamnese", schema: { version: 1, fields }, defaultLanguage: "de", translations },
    });
    expect(created.status).toBe(201);
    expect(created.body.template).toMatchObject({ defaultLanguage: "de", translations });

    const wrong = await api.request("POST", "/api/embed/templates", {
      body: {
        ...creds(org),
        title: "Anamnese",
        schema: { version: 1, fields },
        translations: { tr: { fields: { nmae: { label: "x" }, insurance: { options: { bkk: "y" } } } } },
      },
    });
    expect(wrong.status).toBe(400);
    expect(wrong.body.fieldErrors).toEqual([
      { key: "translations.tr.fields.nmae", message: 'unknown field key "nmae"' },
      { key: "translations.tr.fields.insurance.options.bkk", message: '"bkk" is not an option of "insurance"' },
    ]);

    const unknownLanguage = await api.request("POST", "/api/embed/templates", {
      body: { ...creds(org), title: "Anamnese", translations: { xx: { fields: {} } } },
    });
    expect(unknownLanguage.status).toBe(400);
    expect(unknownLanguage.body.error).toMatch(/translations\.xx/);
  });

  it("takes the organization's language for templates that name none", async () => {
    const res = await api.request("POST", "/api/embed/templates", { body: { ...creds(org), title: "Ohne Sprache" } });
    expect(res.body.template).toMatchObject({ defaultLanguage: "de", translations: {} });
  });

  it("checks translations against the schema on update, and drops texts of removed fields", async () => {
    const t = await translatedTemplate();
    const update = (body: Record<string, unknown>) =>
      api.request("PATCH", `/api/embed/templates/${t.identifier}`, { body: { ...creds(org), ...body } });
    const wrong = await update({ translations: { tr: { fields: { gone: { label: "x" } } } } });
    expect(wrong.status).toBe(400);
    expect(wrong.body.fieldErrors[0].key).toBe("translations.tr.fields.gone");

    // Making Turkish the default while Turkish texts are stored would lose them: refused, named.
    const turkishDefault = await update({ defaultLanguage: "tr" });
    expect(turkishDefault.status).toBe(400);
    expect(turkishDefault.body.fieldErrors[0].key).toBe("translations.tr");

    const fewer = await update({ schema: { version: 2, fields: [fields[0]] } });
    expect(fewer.status).toBe(200);
    expect(fewer.body.template.translations.tr).toEqual({ title: "Anamnez", fields: { name: { label: "Adınız" } } });
    const got = await api.request(
      "GET",
      `/api/embed/template?${query({ ...creds(org), templateIdentifier: t.identifier })}`,
    );
    expect(got.body.template.translations.ar.fields).toEqual({ name: { label: "الاسم" } });
  });
});

describe("the answered language", () => {
  it("stores the same values for a Turkish, an Arabic and a German submission, and the language each was read in", async () => {
    const t = await translatedTemplate();
    const sessionDe = await newSession(api, org, t.identifier);
    const sessionTr = await newSession(api, org, t.identifier);
    const sessionAr = await newSession(api, org, t.identifier);
    const de = await submit({ sessionId: sessionDe, values: answers });
    const tr = await submit({ sessionId: sessionTr, values: answers, language: "tr" });
    const ar = await submit({ sessionId: sessionAr, values: answers, language: "ar" });
    expect([de.status, tr.status, ar.status]).toEqual([200, 200, 200]);
    const [rowDe, rowTr, rowAr] = await Promise.all(
      [de, tr, ar].map((res) => storedSubmission(res.body.submissionId as string)),
    );
    expect(rowTr!.values).toEqual(rowDe!.values);
    expect(rowAr!.values).toEqual(rowDe!.values);
    expect(rowTr!.values).toEqual(answers);
    expect([rowDe!.language, rowTr!.language, rowAr!.language]).toEqual(["de", "tr", "ar"]);
    expect(rowTr).toMatchObject({ templateLanguage: "de", templateTranslations: translations });
  });

  it("stores the default language when the template lacks the one asked for; option labels are no values", async () => {
    const t = await translatedTemplate();
    const sessionId = await newSession(api, org, t.identifier);
    const res = await submit({ sessionId, values: answers, language: "pl" });
    expect((await storedSubmission(res.body.submissionId as string)).language).toBe("de");
    const labelled = await submit({
      sessionId: await newSession(api, org, t.identifier),
      values: { ...answers, insurance: "Devlet sigortası" },
      language: "tr",
    });
    expect(labelled.status).toBe(400);
    expect(labelled.body.fieldErrors[0]).toMatchObject({ key: "insurance" });
  });

  it("takes the embed session's preset language, and the patient's choice over it", async () => {
    const t = await translatedTemplate();
    const sessionId = await newSession(api, org, t.identifier, { language: "tr" });
    expect(await api.trpc({ sessionId }).sessions.current.query()).toMatchObject({ language: "tr" });
    const preset = await submit({ sessionId, values: answers });
    expect((await storedSubmission(preset.body.submissionId as string)).language).toBe("tr");
    const chosen = await submit({
      sessionId: await newSession(api, org, t.identifier, { language: "tr" }),
      values: answers,
      language: "ar",
    });
    expect((await storedSubmission(chosen.body.submissionId as string)).language).toBe("ar");
    const bad = await api.request("POST", "/api/embed/sessions", {
      body: { ...creds(org), templateIdentifier: t.identifier, config: { language: "fr" } },
    });
    expect(bad.status).toBe(400);
    expect(bad.body.error).toMatch(/config\.language/);
  });

  it("remembers the language with the draft, also before any answer", async () => {
    const t = await translatedTemplate();
    const sessionId = await newSession(api, org, t.identifier);
    const save = (body: Record<string, unknown>) =>
      api.request("POST", "/api/embed/drafts", { body: { sessionId, draftKey: "k", ...body } });
    const load = async () =>
      (await api.request("GET", `/api/embed/drafts?${query({ sessionId, draftKey: "k" })}`)).body.draft;
    expect((await save({ values: {}, language: "ar" })).status).toBe(200);
    expect(await load()).toMatchObject({ values: {}, language: "ar" });
    await save({ values: { name: "Ayşe" } });
    expect(await load()).toMatchObject({ values: { name: "Ayşe" }, language: "ar" });
    await save({ values: { insurance: "gkv" }, language: "tr" });
    expect(await load()).toMatchObject({ values: { name: "Ayşe", insurance: "gkv" }, language: "tr" });
    // Still: an empty save without a language saves nothing.
    expect((await save({ values: {} })).status).toBe(400);
  });
});

describe("SMS form requests in the patient's language", () => {
  it("takes any patient language as locale: the form opens and is stored in it, and the SMS is written in it", async () => {
    const t = await translatedTemplate();
    const res = await api.request("POST", "/api/portal/request", {
      body: {
        ...creds(org),
        phone: "+49 170 1234567",
        rnummer: "R-TR-1",
        templateIdentifier: t.identifier,
        locale: "tr",
      },
    });
    expect(res.status).toBe(200);
    const [row] = await api.services.db.select().from(formRequests).where(eq(formRequests.rnummer, "R-TR-1"));
    expect(row!.locale).toBe("tr");
    const sms = new URLSearchParams(twilio.requests.at(-1)!.body).get("Body")!;
    expect(sms).toMatch(/^Klinik[^:]*: doldurmanız gereken bir form var: /);
    const linkToken = /\/f\/([A-Za-z0-9_-]+)/.exec(sms)![1]!;
    const smsForm = (cookie?: string) => api.trpc(cookie ? { cookie } : {}).smsForm;
    expect(await smsForm().open.query({ linkToken })).toMatchObject({ language: "tr" });

    const verify = await fetch(`${api.baseUrl}/trpc/smsForm.verify`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ linkToken, rnummer: "R-TR-1", phone: "0170 1234567" }),
    });
    const cookie = verify.headers
      .getSetCookie()
      .find((c) => c.startsWith("cs_form_access="))!
      .split(";")[0]!;
    await smsForm(cookie).saveDraft.mutate({ linkToken, values: { name: "Ayşe" }, language: "tr" });
    expect(await smsForm(cookie).loadDraft.query({ linkToken })).toMatchObject({ language: "tr" });
    const submitted = await smsForm(cookie).submit.mutate({ linkToken, values: answers });
    const stored = await storedSubmission(submitted.submissionId);
    expect(stored.language).toBe("tr");
    expect(stored.values).toEqual(answers);

    const wrong = await api.request("POST", "/api/portal/request", {
      body: {
        ...creds(org),
        phone: "+49 170 1234567",
        rnummer: "R-TR-2",
        templateIdentifier: t.identifier,
        locale: "fr",
      },
    });
    expect(wrong.status).toBe(400);
  });
});

describe("staff read the answers in German", () => {
  it("detail: German labels, the Turkish ones beside them, and the answered language; CSV and FHIR too", async () => {
    const t = await translatedTemplate();
    const res = await submit({ sessionId: await newSession(api, org, t.identifier), values: answers, language: "tr" });
    const id = res.body.submissionId as string;
    const cookie = await logInCookie(api, org.ownerEmail, org.ownerPassword);
    const staff = api.trpc({ cookie });
    const detail = await staff.submissions.get.query({ id });
    expect(detail).toMatchObject({ language: "tr", templateLanguage: "de" });
    expect(detail.answers.map((a) => [a.label, a.answeredLabel, a.text])).toEqual([
      ["Name", "Adınız", "Ayşe Yılmaz"],
      ["Versicherung", "Sigorta", "Gesetzlich"],
      ["Beschwerden", "Şikayetler", "kopf; ruecken"],
    ]);

    // The PDF: the German label, the Turkish one beside it (Turkish letters its fonts lack as
    // their Latin base), and the language among the facts. Arabic labels cannot be printed there.
    const pdf = await submissionPdfContent(org.ctx, { id });
    expect(pdf.facts).toContain("Beantwortet in: Türkisch");
    expect(pdf.answers.map((a) => a.label)).toEqual([
      "Name / Adiniz",
      "Versicherung / Sigorta",
      "Beschwerden / Sikayetler",
    ]);
    const arabic = await submit({
      sessionId: await newSession(api, org, t.identifier),
      values: answers,
      language: "ar",
    });
    const arabicPdf = await submissionPdfContent(org.ctx, { id: arabic.body.submissionId as string });
    expect(arabicPdf.facts).toContain("Beantwortet in: Arabisch");
    expect(arabicPdf.answers.map((a) => a.label)).toEqual(["Name", "Versicherung", "Beschwerden"]);

    const csv = await fetch(
      `${api.baseUrl}/staff/submissions/export?${query({ format: "csv", templateIdentifier: t.identifier })}`,
      { headers: { cookie } },
    );
    const [header, ...lines] = (await csv.text()).replace(/^\uFEFF/, "").split("\r\n");
    expect(header).toContain(";Quelle;Beantwortet in;Name;Versicherung;Beschwerden");
    expect(lines.find((line) => line.includes(";Türkisch;"))).toContain(";Türkisch;Ayşe Yılmaz;Gesetzlich;");
    expect(lines.find((line) => line.includes(";Arabisch;"))).toContain(";Arabisch;Ayşe Yılmaz;Gesetzlich;");

    const response = await api.request("GET", `/fhir/r4/QuestionnaireResponse/${id}`, {
      headers: { authorization: `Bearer ${org.token}` },
    });
    expect(response.body).toMatchObject({ resourceType: "QuestionnaireResponse", language: "tr" });
    expect(response.body.item[0]).toMatchObject({
      text: "Name",
      _text: {
        extension: [
          {
            url: "http://hl7.org/fhir/StructureDefinition/translation",
            extension: [
              { url: "lang", valueCode: "tr" },
              { url: "content", valueString: "Adınız" },
            ],
          },
        ],
      },
    });
    const questionnaire = await api.request("GET", `/fhir/r4/Questionnaire/${t.identifier}`, {
      headers: { authorization: `Bearer ${org.token}` },
    });
    expect(questionnaire.body).toMatchObject({ language: "de", title: "Anamnese" });
    expect(
      questionnaire.body._title.extension
        .map((e: { extension: { valueCode?: string }[] }) => e.extension[0]!.valueCode)
        .sort(),
    ).toEqual(["ar", "tr"]);
    const insurance = questionnaire.body.item[1];
    expect(insurance.answerOption[0].valueCoding).toMatchObject({ code: "gkv", display: "Gesetzlich" });
    expect(insurance.answerOption[0].valueCoding._display.extension).toHaveLength(2);
  });
});
