import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { questionnaireLibrary, type FormField } from "@clinsign/contracts";
import { eq, submissions } from "@clinsign/db";
import { expectValidFhir, R4_CODES } from "../testing/fhir";
import { activeTemplate, creds } from "../testing/forms";
import { startTestApi, type TestApi, type TestOrg } from "../testing/harness";
import { startReceiver, type Receiver } from "../testing/receiver";
import { updateOrganizationSettings } from "../core/organizations/organizations";
import { createTemplate } from "../core/templates/templates";
import {
  bearer,
  makeSignaturePng,
  pngDataUrl,
  signAndSeal,
  startFileServer,
  type FileServer,
} from "../testing/signature-fixtures";

let api: TestApi;
let files: FileServer;
let org: TestOrg;
let other: TestOrg;
let receiver: Receiver;

beforeAll(async () => {
  files = await startFileServer();
  receiver = await startReceiver();
  api = await startTestApi({ OUTBOUND_ALLOW_HOSTS: `${new URL(files.origin).host},127.0.0.1:${receiver.port}` });
  org = await api.createOrg("Klinik Nord");
  other = await api.createOrg("Klinik Süd");
});
afterAll(async () => {
  await api?.close();
  await files?.close();
  await receiver?.close();
});

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- tests read arbitrary FHIR JSON
type Json = any;

async function fhir(
  path: string,
  who: TestOrg | null = org,
  init: { method?: string; body?: unknown; headers?: Record<string, string> } = {},
) {
  const res = await fetch(`${api.baseUrl}/fhir/r4${path}`, {
    method: init.method ?? "GET",
    headers: {
      ...(who && bearer(who)),
      ...(init.body !== undefined && { "content-type": "application/fhir+json" }),
      ...init.headers,
    },
    body: init.body === undefined ? undefined : JSON.stringify(init.body),
  });
  const text = await res.text();
  return { status: res.status, headers: res.headers, body: (text ? JSON.parse(text) : undefined) as Json };
}

const expectOutcome = async (res: { status: number; headers: Headers; body: Json }, status: number, code: string) => {
  expect(res.status).toBe(status);
  expect(res.headers.get("content-type")).toBe("application/fhir+json; charset=utf-8");
  expect(res.body.resourceType).toBe("OperationOutcome");
  expect(res.body.issue[0]).toMatchObject({ severity: "error", code });
  await expectValidFhir(res.body);
};

const FIELDS: FormField[] = [
  { id: "1", type: "text", key: "name", label: "Name", required: true },
  { id: "2", type: "number", key: "weight", label: "Gewicht" },
  { id: "3", type: "date", key: "born", label: "Geburtsdatum" },
  {
    id: "4",
    type: "select",
    key: "insurance",
    label: "Versicherung",
    options: [{ value: "pkv", label: "Privat" }, "GKV"],
  },
  { id: "5", type: "multiselect", key: "allergies", label: "Allergien", options: ["Pollen", "Nüsse"] },
  { id: "6", type: "checkbox", key: "smoker", label: "Raucher" },
  { id: "7", type: "file", key: "scan", label: "Befund", accept: "application/pdf" },
  { id: "8", type: "signature", key: "sig", label: "Unterschrift" },
  {
    id: "9",
    type: "text",
    key: "packs",
    label: "Packungen",
    visibleWhen: { field: "smoker", operator: "equals", value: true },
  },
];
const PDF = Buffer.concat([Buffer.from("%PDF-1.4\n"), Buffer.alloc(100, 0x20)]);

async function submit(identifier: string, rnummer: string, values: Record<string, unknown>, who = org) {
  const res = await api.request("POST", "/api/embed/submit", {
    body: { ...creds(who), templateIdentifier: identifier, rnummer, values },
  });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body.submissionId as string;
}

async function uploadPdf(identifier: string) {
  const form = new FormData();
  for (const [k, v] of Object.entries({ ...creds(org), templateIdentifier: identifier, fieldKey: "scan" }))
    form.append(k, v);
  form.append("file", new Blob([new Uint8Array(PDF)], { type: "application/pdf" }), "befund.pdf");
  const res = await fetch(`${api.baseUrl}/api/embed/uploads`, { method: "POST", body: form });
  expect(res.status).toBe(200);
  return ((await res.json()) as { files: { name: string; path: string; size: number; type: string }[] }).files[0]!;
}

describe("/fhir/r4: the door", () => {
  it("publishes a valid CapabilityStatement at /metadata without credentials", async () => {
    const res = await fhir("/metadata", null);
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toBe("application/fhir+json; charset=utf-8");
    await expectValidFhir(res.body);
    expect(res.body.rest[0].resource.map((r: Json) => [r.type, r.interaction.map((i: Json) => i.code)])).toEqual([
      ["Questionnaire", ["read", "search-type", "create"]],
      ["QuestionnaireResponse", ["read", "search-type"]],
      ["DocumentReference", ["read", "search-type"]],
    ]);
    // The SDC version the forms target, and the one operation.
    expect(res.body.implementationGuide).toEqual([
      "http://hl7.org/fhir/uv/sdc/ImplementationGuide/hl7.fhir.uv.sdc|4.0.0",
    ]);
    expect(res.body.rest[0].resource[1].operation).toEqual([
      expect.objectContaining({
        name: "extract",
        definition: "http://hl7.org/fhir/uv/sdc/OperationDefinition/QuestionnaireResponse-extract",
      }),
    ]);
  });

  it("answers errors as OperationOutcome with the right status", async () => {
    const unauthorized = await fhir("/Questionnaire", null);
    await expectOutcome(unauthorized, 401, "login");
    expect(unauthorized.headers.get("www-authenticate")).toContain("Bearer");
    await expectOutcome(await fhir("/Questionnaire", { ...org, token: "cs_nope" }), 401, "login");
    await expectOutcome(await fhir("/Patient/1"), 404, "not-found");
    await expectOutcome(await fhir("/Questionnaire/no-such-form"), 404, "not-found");
    await expectOutcome(await fhir("/Questionnaire?title=x"), 400, "invalid");
    await expectOutcome(await fhir("/QuestionnaireResponse?authored=yesterday"), 400, "invalid");
    await expectOutcome(await fhir("/QuestionnaireResponse?_count=1000"), 400, "invalid");
    const notAllowed = await fhir("/DocumentReference", org, { method: "POST", body: {} });
    await expectOutcome(notAllowed, 405, "invalid");
    expect(notAllowed.headers.get("allow")).toBe("GET");
    await expectOutcome(
      await fhir("/metadata", null, { headers: { accept: "application/fhir+xml" } }),
      406,
      "not-supported",
    );
    await expectOutcome(
      await fhir("/Questionnaire", org, { method: "POST", body: "x", headers: { "content-type": "text/plain" } }),
      415,
      "not-supported",
    );
  });

  it("is HTTPS only, like area A", async () => {
    // Plain HTTP is allowed in tests from loopback only when no proxy forwarded the request.
    const res = await fhir("/metadata", null, { headers: { "x-forwarded-for": "203.0.113.9" } });
    await expectOutcome(res, 403, "security");
  });
});

describe("Questionnaire", () => {
  it("reads and searches templates as Questionnaires; another organization's is 404", async () => {
    const t = await activeTemplate(org, FIELDS, "Aufnahme");
    const read = await fhir(`/Questionnaire/${t.identifier}`);
    expect(read.status).toBe(200);
    await expectValidFhir(read.body);
    expect(read.body).toMatchObject({ id: t.identifier, version: "1", title: "Aufnahme", status: "active" });
    await expectOutcome(await fhir(`/Questionnaire/${t.identifier}`, other), 404, "not-found");

    const byUrl = await fhir(`/Questionnaire?url=${encodeURIComponent(`${read.body.url}|1`)}`);
    expect(byUrl.body.entry.map((e: Json) => e.resource.id)).toEqual([t.identifier]);
    await expectValidFhir(byUrl.body);
    expect((await fhir(`/Questionnaire?identifier=${t.identifier}`, other)).body.entry).toBeUndefined();
  });

  it("imports the PHQ-9: 201 with Location, warnings in the OperationOutcome, a usable template", async () => {
    const phq9 = JSON.parse(readFileSync(join(__dirname, "../core/fhir-mapping/fixtures/phq-9.json"), "utf8"));
    const res = await fhir("/Questionnaire", org, {
      method: "POST",
      body: phq9,
      headers: { prefer: "return=OperationOutcome" },
    });
    expect(res.status).toBe(201);
    await expectValidFhir(res.body);
    expect(res.body.issue[0].diagnostics).toMatch(
      /^created template phq-9-quick-depression-assessment-panel-\w+ with 11 fields$/,
    );
    expect(res.body.issue.some((i: Json) => i.severity === "warning" && /calculated/.test(i.diagnostics))).toBe(true);
    const location = res.headers.get("location")!;
    const created = await fhir(location.replace("/fhir/r4", ""));
    expect(created.status).toBe(200);
    expect(created.body.item.length).toBe(11);
    const f3 = await api.request(
      "GET",
      `/api/embed/template?token=${org.token}&orgId=${org.orgId}&templateIdentifier=${created.body.id}`,
    );
    expect(f3.status).toBe(200);
  });

  it("round trips through HTTP: an exported Questionnaire imports as a template with the same fields", async () => {
    const t = await activeTemplate(org, FIELDS, "Rundreise");
    const exported = (await fhir(`/Questionnaire/${t.identifier}`)).body;
    const res = await fhir("/Questionnaire", org, { method: "POST", body: exported });
    expect(res.status).toBe(201);
    expect(res.body.id).not.toBe(t.identifier);
    const f3 = await api.request(
      "GET",
      `/api/embed/template?token=${org.token}&orgId=${org.orgId}&templateIdentifier=${res.body.id}`,
    );
    expect(f3.body.template.schema).toEqual(t.schema);
    expect(f3.body.template.title).toBe("Rundreise");
  });

  it("refuses a Questionnaire it cannot map with 422, naming what is unsupported", async () => {
    const res = await fhir("/Questionnaire", org, {
      method: "POST",
      body: {
        resourceType: "Questionnaire",
        status: "draft",
        item: [{ linkId: "w", type: "quantity", text: "Gewicht" }],
      },
    });
    await expectOutcome(res, 422, "not-supported");
    expect(res.body.issue[0]).toMatchObject({
      diagnostics: 'item "w": item type quantity is not supported',
      expression: ["Questionnaire.item[0]"],
    });
  });
});

describe("QuestionnaireResponse", () => {
  let identifier: string;
  const ids: string[] = [];

  beforeAll(async () => {
    identifier = (await activeTemplate(org, FIELDS, "Anamnese")).identifier;
    const file = await uploadPdf(identifier);
    ids.push(
      await submit(identifier, "R-100", {
        name: "Erika Muster",
        weight: 61.5,
        born: "1980-02-03",
        insurance: "pkv",
        allergies: ["Pollen", "Nüsse"],
        smoker: true,
        packs: "1",
        scan: [file],
        sig: pngDataUrl(makeSignaturePng()),
      }),
    );
    ids.push(await submit(identifier, "R-100", { name: "Erika Muster", smoker: false }));
    ids.push(await submit(identifier, "R-200", { name: "Max Muster" }));
  });

  it("reads a submission as a valid QuestionnaireResponse with typed answers and hashed attachments", async () => {
    const res = await fhir(`/QuestionnaireResponse/${ids[0]}`);
    expect(res.status).toBe(200);
    await expectValidFhir(res.body);
    expect(R4_CODES.responseStatus).toContain(res.body.status);
    const answers = Object.fromEntries(res.body.item.map((i: Json) => [i.linkId, i.answer]));
    expect(res.body.questionnaire).toMatch(new RegExp(`/fhir/r4/Questionnaire/${identifier}\\|1$`));
    expect(res.body.subject.identifier.value).toBe("R-100");
    expect(answers).toMatchObject({
      name: [{ valueString: "Erika Muster" }],
      weight: [{ valueDecimal: 61.5 }],
      born: [{ valueDate: "1980-02-03" }],
      insurance: [{ valueCoding: { code: "pkv", display: "Privat" } }],
      allergies: [{ valueCoding: { code: "Pollen" } }, { valueCoding: { code: "Nüsse" } }],
      smoker: [{ valueBoolean: true }],
      packs: [{ valueString: "1" }],
    });
    const [scan] = answers.scan;
    expect(scan.valueAttachment).toMatchObject({
      contentType: "application/pdf",
      size: PDF.length,
      title: "befund.pdf",
      hash: createHash("sha1").update(PDF).digest("base64"),
      extension: [{ valueString: createHash("sha256").update(PDF).digest("hex") }],
    });
    const download = await fetch(
      `${api.baseUrl}${new URL(scan.valueAttachment.url).pathname}${new URL(scan.valueAttachment.url).search}`,
    );
    expect(Buffer.from(await download.arrayBuffer()).equals(PDF)).toBe(true);
    expect(answers.sig[0].valueAttachment).toMatchObject({ contentType: "image/png", hash: expect.any(String) });
    // Every answer is typed as its Questionnaire item says.
    const questionnaire = (await fhir(`/Questionnaire/${identifier}`)).body;
    const typeOf = Object.fromEntries(questionnaire.item.map((i: Json) => [i.linkId, i.type]));
    const valueKey: Record<string, string> = {
      string: "valueString",
      decimal: "valueDecimal",
      date: "valueDate",
      choice: "valueCoding",
      boolean: "valueBoolean",
      attachment: "valueAttachment",
    };
    for (const item of res.body.item)
      for (const a of item.answer) expect(Object.keys(a)).toEqual([valueKey[typeOf[item.linkId]]]);
  });

  it("searches by patient number, questionnaire and date, paging through Bundle links", async () => {
    const all = await fhir(`/QuestionnaireResponse?patient:identifier=R-100&questionnaire=${identifier}`);
    await expectValidFhir(all.body);
    expect(all.body.entry.map((e: Json) => e.resource.id)).toEqual([ids[1], ids[0]]);

    const first = await fhir(`/QuestionnaireResponse?subject:identifier=R-100&_count=1&_sort=authored`);
    expect(first.body.entry.map((e: Json) => e.resource.id)).toEqual([ids[0]]);
    const next = first.body.link.find((l: Json) => l.relation === "next").url as string;
    const second = await fhir(next.slice(next.indexOf("/fhir/r4") + "/fhir/r4".length));
    expect(second.body.entry.map((e: Json) => e.resource.id)).toEqual([ids[1]]);
    expect(second.body.link.find((l: Json) => l.relation === "next")).toBeUndefined();

    const today = new Date().toISOString().slice(0, 10);
    const inRange = await fhir(
      `/QuestionnaireResponse?authored=ge${today}&authored=le${today}&questionnaire=${identifier}`,
    );
    expect(inRange.body.entry).toHaveLength(3);
    const before = await fhir(`/QuestionnaireResponse?authored=lt${today}&questionnaire=${identifier}`);
    expect(before.body.entry).toBeUndefined();
    const system = all.body.entry[0].resource.subject.identifier.system;
    const bySystem = await fhir(`/QuestionnaireResponse?patient:identifier=${encodeURIComponent(`${system}|R-200`)}`);
    expect(bySystem.body.entry.map((e: Json) => e.resource.id)).toEqual([ids[2]]);
    await expectOutcome(await fhir(`/QuestionnaireResponse?patient:identifier=urn:other|R-200`), 400, "invalid");
  });

  it("keeps organizations apart: another organization's submission is 404 and absent from its searches", async () => {
    await expectOutcome(await fhir(`/QuestionnaireResponse/${ids[0]}`, other), 404, "not-found");
    expect((await fhir(`/QuestionnaireResponse?patient:identifier=R-100`, other)).body.entry).toBeUndefined();
    await expectOutcome(await fhir(`/QuestionnaireResponse/not-a-uuid`), 404, "not-found");
  });

  it("answers from the template version a submission was made with", async () => {
    const [row] = await api.services.db.select().from(submissions).where(eq(submissions.id, ids[2]!));
    expect(row!.templateSchema.version).toBe(1);
  });
});

describe("DocumentReference", () => {
  it("shows each sealed PDF with its SHA-256, SHA-1, request, patient and signing time; searchable by patient", async () => {
    const sealed = await signAndSeal(api, files, org, "PAT-7");
    const res = await fhir(`/DocumentReference/${sealed.id}`);
    expect(res.status).toBe(200);
    await expectValidFhir(res.body);
    expect(R4_CODES.documentReferenceStatus).toContain(res.body.status);
    expect(R4_CODES.compositionStatus).toContain(res.body.docStatus);
    const sha256 = createHash("sha256").update(sealed.pdf).digest();
    expect(res.body.masterIdentifier.value).toBe(`ni:///sha-256;${sha256.toString("base64url")}`);
    expect(res.body.subject.identifier.value).toBe("PAT-7");
    expect(res.body.identifier[0].value).toBe(sealed.id);
    expect(res.body.context.related[0].identifier.value).toBe(sealed.id);
    const pdf = res.body.content[0].attachment;
    expect(pdf).toMatchObject({
      contentType: "application/pdf",
      size: sealed.pdf.length,
      hash: createHash("sha1").update(sealed.pdf).digest("base64"),
      extension: [{ valueString: sha256.toString("hex") }],
      url: expect.stringMatching(new RegExp(`/signature-requests/${sealed.id}/signed.pdf$`)),
    });
    expect(Date.parse(pdf.creation)).toBeGreaterThan(Date.now() - 120_000);

    const search = await fhir(`/DocumentReference?patient:identifier=PAT-7`);
    await expectValidFhir(search.body);
    expect(search.body.entry.map((e: Json) => e.resource.id)).toEqual([sealed.id]);
    expect((await fhir(`/DocumentReference?patient:identifier=PAT-8`)).body.entry).toBeUndefined();
    await expectOutcome(await fhir(`/DocumentReference/${sealed.id}`, other), 404, "not-found");
    expect((await fhir(`/DocumentReference?patient:identifier=PAT-7`, other)).body.entry).toBeUndefined();
  });
});

describe("form.submitted webhooks in the organization's format", () => {
  it("carries the native body by default, the QuestionnaireResponse instead (fhir), or both", async () => {
    const clinic = await api.createOrg("Klinik West");
    const settings = await updateOrganizationSettings(clinic.ctx, {
      webhookUrls: [`${receiver.url}/hook`],
      webhookSecret: "a-secret-of-sixteen-chars",
    });
    expect(settings.webhookFormat).toBe("native");
    const t = await activeTemplate(clinic, FIELDS.slice(0, 2), "Kurz");
    const delivered = async (values: Record<string, unknown>) => {
      const before = receiver.requests.length;
      const id = await submit(t.identifier, "R-9", values, clinic);
      await expect.poll(() => receiver.requests.length).toBe(before + 1);
      return { id, body: JSON.parse(receiver.requests.at(-1)!.body) as Json };
    };

    const native = await delivered({ name: "A" });
    expect(native.body).toMatchObject({
      event: "form.submitted",
      data: { submissionId: native.id, values: { name: "A" } },
    });
    expect(native.body.data.questionnaireResponse).toBeUndefined();

    await updateOrganizationSettings(clinic.ctx, { webhookFormat: "fhir" });
    const fhirOnly = await delivered({ name: "B", weight: 70 });
    await expectValidFhir(fhirOnly.body);
    expect(fhirOnly.body).toMatchObject({
      resourceType: "QuestionnaireResponse",
      id: fhirOnly.id,
      subject: { identifier: { value: "R-9" } },
      item: [
        { linkId: "name", answer: [{ valueString: "B" }] },
        { linkId: "weight", answer: [{ valueDecimal: 70 }] },
      ],
    });
    expect(receiver.requests.at(-1)!.headers["x-service-signature"]).toMatch(/^[0-9a-f]{64}$/);

    await updateOrganizationSettings(clinic.ctx, { webhookFormat: "both" });
    const both = await delivered({ name: "C" });
    expect(both.body.data).toMatchObject({ submissionId: both.id, values: { name: "C" } });
    expect(both.body.data.questionnaireResponse).toMatchObject({ resourceType: "QuestionnaireResponse", id: both.id });
  });
});

describe("SDC $extract", () => {
  it("makes the PHQ-9 total an Observation, of a stored response and of one sent, and refuses another version", async () => {
    const phq9 = questionnaireLibrary.find((q) => q.id === "phq-9-en")!;
    const template = await createTemplate(org.ctx, { title: phq9.title, status: "active", schema: phq9.schema });
    // 3+3+3+2+2+2+1+1+1 = 18: "moderately severe".
    const weights = [3, 3, 3, 2, 2, 2, 1, 1, 1];
    const values = Object.fromEntries(weights.map((w, i) => [`phq9_${i + 1}`, String(w)]));
    const id = await submit(template.identifier, "R-extract", values);

    const stored = await fhir(`/QuestionnaireResponse/${id}/$extract`);
    expect(stored.status).toBe(200);
    await expectValidFhir(stored.body);
    expect(stored.body).toMatchObject({ resourceType: "Bundle", type: "transaction" });
    const observations = stored.body.entry.map((e: Json) => e.resource);
    expect(observations).toHaveLength(1);
    expect(observations[0]).toMatchObject({
      resourceType: "Observation",
      status: "final",
      code: { coding: [expect.objectContaining({ system: "http://loinc.org", code: "44261-6" })] },
      valueInteger: 18,
      subject: { identifier: { value: "R-extract" } },
    });

    const response = (await fhir(`/QuestionnaireResponse/${id}`)).body;
    const sent = await fhir("/QuestionnaireResponse/$extract", org, { method: "POST", body: response });
    expect(sent.status).toBe(200);
    expect(sent.body.entry.map((e: Json) => e.resource.valueInteger)).toEqual([18]);
    const wrapped = await fhir("/QuestionnaireResponse/$extract", org, {
      method: "POST",
      body: { resourceType: "Parameters", parameter: [{ name: "questionnaire-response", resource: response }] },
    });
    expect(wrapped.body).toEqual(sent.body);

    const older = { ...response, questionnaire: `${response.questionnaire.split("|")[0]}|99` };
    await expectOutcome(
      await fhir("/QuestionnaireResponse/$extract", org, { method: "POST", body: older }),
      422,
      "conflict",
    );
    await expectOutcome(await fhir(`/QuestionnaireResponse/${id}/$extract`, other), 404, "not-found");
  });
});
