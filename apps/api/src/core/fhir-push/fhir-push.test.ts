import { generateKeyPairSync } from "node:crypto";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { auditLog, eq, fhirDeliveries, jobs, sql } from "@clinsign/db";
import { jobHandlers } from "../../jobs/handlers";
import { JobRunner } from "../../jobs/runner";
import { activeTemplate, newSession } from "../../testing/forms";
import { startFhirServer, type TestFhirServer } from "../../testing/fhir-server";
import {
  makeSignaturePng,
  pngDataUrl,
  signAndSeal,
  startSignatureApi,
  type SignatureTestApi,
} from "../../testing/signature-fixtures";
import { isikProblems } from "../fhir-mapping/isik-profiles";
import { answersOf, libraryTemplate } from "../fhir-mapping/push-fixtures";
import { setDocumentRecordClass } from "../documents/record-class";
import { erasePatient } from "../patients/erasure";
import { updateDocument } from "../documents/documents";
import { createTemplate } from "../templates/templates";
import { listFhirDeliveries, resendFhirDelivery } from "./deliveries";
import { getFhirPushTarget, saveFhirPushTarget } from "./targets";

let setup: SignatureTestApi;
let fhir: TestFhirServer;

beforeAll(async () => {
  // The hospital's server refuses (422) any resource that misses a transcribed ISiK rule.
  fhir = await startFhirServer({ profileCheck: (resource) => isikProblems({ ...resource }) });
  setup = await startSignatureApi({ allowHosts: [fhir.hostPort], env: { FHIR_PUSH_TIMEOUT_SECONDS: "1" } });
});
afterAll(async () => {
  await setup?.close();
  await fhir?.close();
});
beforeEach(() => {
  fhir.received.length = 0;
});

/** Runs every due FHIR push now, retries included (their backoff is made due at once). */
async function runPushes(): Promise<void> {
  const runner = new JobRunner(setup.api.services, jobHandlers);
  for (let pass = 0; pass < 20; pass++) {
    await setup.api.services.db
      .update(jobs)
      .set({ runAt: sql`now()` })
      .where(eq(jobs.kind, "fhir.push"));
    if ((await runner.runDue()) === 0) return;
  }
}

async function submitOnce(): Promise<string> {
  const { api, org } = setup;
  const template = await activeTemplate(org);
  const sessionId = await newSession(api, org, template.identifier, { rnummer: `R-${Date.now()}` });
  const res = await api.request("POST", "/api/embed/submit", { body: { sessionId, values: { name: "Eri" } } });
  expect(res.status).toBe(200);
  return res.body.submissionId as string;
}

/** A resource the server holds, as plain FHIR JSON to read assertions from. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- tests read arbitrary FHIR JSON
const plain = (resource: unknown): any => JSON.parse(JSON.stringify(resource ?? null));

/** How the hospital finds the QuestionnaireResponse of a submission: ClinSign's submission identifier. */
const responseSearch = (submissionId: string) => `identifier=https://api.test/fhir/r4/sid/submission|${submissionId}`;

const deliveryOf = async (sourceId: string) =>
  (await setup.api.services.db.select().from(fhirDeliveries).where(eq(fhirDeliveries.sourceId, sourceId)))[0]!;

const pushTo = (overrides: Partial<Parameters<typeof saveFhirPushTarget>[1]> = {}) =>
  saveFhirPushTarget(setup.org.ctx, { enabled: true, baseUrl: fhir.baseUrl, auth: "none", ...overrides });

describe("the FHIR server of an organization", () => {
  it("is saved with its credential sealed: never returned, audited as changed without its value", async () => {
    const saved = await pushTo({ auth: "bearer", secret: "s3cr3t-token" });
    expect(saved).toMatchObject({ enabled: true, baseUrl: fhir.baseUrl, auth: "bearer", hasSecret: true });
    expect(JSON.stringify(await getFhirPushTarget(setup.org.ctx))).not.toContain("s3cr3t-token");
    const entries = await setup.api.services.db
      .select()
      .from(auditLog)
      .where(eq(auditLog.organizationId, setup.org.orgId));
    const entry = entries.filter((e) => (e.metadata as { kind?: string }).kind === "fhir_push").at(-1)!;
    expect(JSON.stringify(entry.metadata)).not.toContain("s3cr3t-token");
    expect(entry.metadata).toMatchObject({ changes: { secret: { secret: true } } });
    await pushTo();
  });

  it("refuses a plain-http or private address the deployment does not allow, naming the field", async () => {
    await expect(pushTo({ baseUrl: "http://10.1.2.3/fhir" })).rejects.toMatchObject({
      code: "invalid_request",
      details: { field: "baseUrl" },
    });
    await expect(pushTo({ baseUrl: "http://fhir.example.org/fhir" })).rejects.toMatchObject({
      details: { field: "baseUrl" },
    });
  });

  it("needs a credential for every kind of authentication but none, and a new one when the kind changes", async () => {
    const target = (auth: "bearer" | "client_credentials", secret?: string) =>
      saveFhirPushTarget(setup.other.ctx, {
        enabled: true,
        baseUrl: fhir.baseUrl,
        auth,
        ...(secret && { secret }),
        ...(auth === "client_credentials" && { clientId: "c", tokenUrl: fhir.tokenUrl }),
      });
    await expect(target("bearer")).rejects.toMatchObject({ details: { field: "secret" } });
    await target("bearer", "a-bearer-token");
    // The bearer token stays for the same kind, and is never taken for a client secret.
    await expect(target("bearer")).resolves.toMatchObject({ hasSecret: true });
    await expect(target("client_credentials")).rejects.toMatchObject({ details: { field: "secret" } });
  });
});

describe("pushing a submission", () => {
  it("queues one delivery after commit and the server stores the response once, however often it is sent", async () => {
    await pushTo();
    const submissionId = await submitOnce();
    expect(await deliveryOf(submissionId)).toMatchObject({ status: "pending", attempts: 0 });
    await runPushes();
    const delivered = await deliveryOf(submissionId);
    expect(delivered).toMatchObject({ status: "delivered", attempts: 1, lastStatusCode: 200 });
    expect(delivered.bundle).toBeNull();
    const search = responseSearch(submissionId);
    expect(await fhir.resources("QuestionnaireResponse", search)).toHaveLength(1);

    // A resend after the server lost its answer: the same Bundle, so still one response.
    await setup.api.services.db
      .update(fhirDeliveries)
      .set({ status: "failed" })
      .where(eq(fhirDeliveries.id, delivered.id));
    await resendFhirDelivery(setup.org.ctx, { id: delivered.id });
    await runPushes();
    expect(await deliveryOf(submissionId)).toMatchObject({ status: "delivered", attempts: 2 });
    expect(await fhir.resources("QuestionnaireResponse", search)).toHaveLength(1);
  });

  it("retries after server errors and a dropped connection, and arrives once", async () => {
    await pushTo();
    fhir.failNext("5xx", 2);
    fhir.failNext("close", 1);
    const submissionId = await submitOnce();
    await runPushes();
    const delivery = await deliveryOf(submissionId);
    expect(delivery).toMatchObject({ status: "delivered", attempts: 4 });
    expect(await fhir.resources("QuestionnaireResponse", responseSearch(submissionId))).toHaveLength(1);
  });

  it("sends again when the answer was lost after the server stored the Bundle, and the server keeps one", async () => {
    await pushTo();
    fhir.failNext("timeout", 1);
    const submissionId = await submitOnce();
    await runPushes();
    const delivery = await deliveryOf(submissionId);
    expect(delivery).toMatchObject({ status: "delivered", attempts: 2 });
    expect(await fhir.resources("QuestionnaireResponse", responseSearch(submissionId))).toHaveLength(1);
  });

  it("stops at an OperationOutcome refusing the content, with its issues for staff to read", async () => {
    await pushTo();
    fhir.failNext("422", 1);
    const submissionId = await submitOnce();
    await runPushes();
    const delivery = await deliveryOf(submissionId);
    expect(delivery).toMatchObject({ status: "failed", attempts: 1, lastStatusCode: 422 });
    expect(delivery.lastError).toMatch(/^HTTP 422: error /);
    const page = await listFhirDeliveries(setup.org.ctx, { status: "failed", limit: 50, sort: "newest" });
    expect(page.items.map((d) => d.id)).toContain(delivery.id);
  });

  it("sends nothing while the organization's FHIR push is off", async () => {
    await pushTo({ enabled: false });
    const submissionId = await submitOnce();
    expect(await deliveryOf(submissionId)).toBeUndefined();
    await pushTo();
  });
});

describe("a PHQ-9 to the chart", () => {
  it("arrives as the ISiK response, the total as a LOINC Observation with its band, the patient by the hospital's case number system, and a Provenance", async () => {
    const caseSystem = "https://his.klinik-nord.example/sid/fallnummer";
    await pushTo({ rnummerSystem: caseSystem });
    const { api, org } = setup;
    const phq9 = libraryTemplate("phq-9-en");
    const template = await createTemplate(org.ctx, { title: phq9.title, status: "active", schema: phq9.schema });
    const caseNumber = `F-${Date.now()}`;
    const sessionId = await newSession(api, org, template.identifier, { rnummer: caseNumber });
    // Weights 2,2,2,1,1,1,1,0,0 (and the unscored difficulty question): 10, "moderate".
    const values = { ...answersOf("phq9", [2, 2, 2, 1, 1, 1, 1, 0, 0]), phq9_difficulty: "1" };
    const res = await api.request("POST", "/api/embed/submit", { body: { sessionId, values } });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    await runPushes();
    expect(await deliveryOf(res.body.submissionId)).toMatchObject({ status: "delivered" });

    const [patient] = await fhir.resources("Patient", `identifier=${caseSystem}|${caseNumber}`);
    expect(patient).toBeDefined();
    const [observation] = await fhir.resources("Observation", `subject=Patient/${patient!.id}`);
    expect(observation).toMatchObject({
      status: "final",
      code: { coding: [expect.objectContaining({ system: "http://loinc.org", code: "44261-6" })] },
      valueInteger: 10,
      derivedFrom: [{ reference: expect.stringMatching(/^QuestionnaireResponse\//) }],
    });
    expect(JSON.stringify(observation)).toMatch(/[Mm]oderate/);
    const [response] = await fhir.resources("QuestionnaireResponse", responseSearch(res.body.submissionId));
    expect(response).toMatchObject({ status: "completed", subject: { reference: `Patient/${patient!.id}` } });
    const derivedFrom = plain(observation).derivedFrom[0].reference as string;
    const provenances = await fhir.resources("Provenance", `target=${derivedFrom}`);
    expect(provenances).toHaveLength(1);
  });
});

describe("a form signed by hand", () => {
  it("arrives with the PDF of the signed form as an ISiK document, related to the response and named by the Provenance", async () => {
    await pushTo();
    const { api, org } = setup;
    const template = await activeTemplate(org, [
      { id: "1", type: "text", key: "name", label: "Name" },
      { id: "2", type: "signature", key: "unterschrift", label: "Unterschrift" },
      {
        id: "3",
        type: "number",
        key: "gewicht",
        label: "Gewicht",
        code: { system: "http://loinc.org", code: "29463-7" },
      },
    ]);
    const sessionId = await newSession(api, org, template.identifier, { rnummer: `S-${Date.now()}` });
    const values = { name: "Eri", unterschrift: pngDataUrl(makeSignaturePng()), gewicht: 72 };
    const res = await api.request("POST", "/api/embed/submit", { body: { sessionId, values } });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    await runPushes();
    expect(await deliveryOf(res.body.submissionId)).toMatchObject({ status: "delivered" });

    const [response] = await fhir.resources("QuestionnaireResponse", responseSearch(res.body.submissionId));
    const [document] = await fhir.resources("DocumentReference", responseSearch(res.body.submissionId));
    const doc = plain(document);
    expect(isikProblems(doc)).toEqual([]);
    expect(doc.context.related).toEqual([
      expect.objectContaining({ reference: `QuestionnaireResponse/${response!.id}` }),
    ]);
    const attachment = doc.content[0].attachment as { data?: string };
    const pdf = Buffer.from(attachment.data ?? plain((await fhir.resources("Binary")).at(-1)).data, "base64");
    expect(pdf.subarray(0, 5).toString()).toBe("%PDF-");
    // A coded question's answer is an Observation too (not only a score).
    const [weight] = await fhir.resources("Observation", `derived-from=QuestionnaireResponse/${response!.id}`);
    expect(weight).toMatchObject({ code: { coding: [{ code: "29463-7" }] }, valueInteger: 72 });
    const [proof] = await fhir.resources("Provenance", `target=DocumentReference/${document!.id}`);
    expect(plain(proof).target).toEqual(
      expect.arrayContaining([expect.objectContaining({ reference: `QuestionnaireResponse/${response!.id}` })]),
    );
  });

  it("without a signature, sends no document", async () => {
    await pushTo();
    const submissionId = await submitOnce();
    await runPushes();
    expect(await fhir.resources("DocumentReference", responseSearch(submissionId))).toHaveLength(0);
  });
});

describe("credentials", () => {
  it("sends the bearer token, and an access token from client credentials and from SMART backend services", async () => {
    const secured = await startFhirServer({ token: "static-token" });
    const { privateKey, publicKey } = generateKeyPairSync("ec", { namedCurve: "P-384" });
    secured.registerClient({ clientId: "clinsign-secret", secret: "client-secret" });
    secured.registerClient({ clientId: "clinsign-smart", jwks: [publicKey.export({ format: "jwk" })] });
    const api = setup.api;
    api.services.config.outboundAllowHosts.push(secured.hostPort);
    try {
      const cases = [
        { auth: "bearer", secret: "static-token" },
        {
          auth: "client_credentials",
          secret: "client-secret",
          clientId: "clinsign-secret",
          tokenUrl: secured.tokenUrl,
        },
        {
          auth: "smart_backend",
          secret: privateKey.export({ format: "pem", type: "pkcs8" }).toString(),
          clientId: "clinsign-smart",
          tokenUrl: secured.tokenUrl,
          scope: "system/*.write",
        },
      ] as const;
      for (const credential of cases) {
        await pushTo({ baseUrl: secured.baseUrl, ...credential });
        const submissionId = await submitOnce();
        await runPushes();
        expect(await deliveryOf(submissionId), credential.auth).toMatchObject({ status: "delivered" });
      }
    } finally {
      await secured.close();
      await pushTo();
    }
  });
});

describe("pushing a completed signature request", () => {
  it("sends the sealed PDF's DocumentReference once the request completes", async () => {
    await pushTo();
    const { id, pdf } = await signAndSeal(setup.api, setup.files, setup.org, "P-fhir-1");
    await runPushes();
    expect(await deliveryOf(id)).toMatchObject({ sourceKind: "signature_request", status: "delivered" });
    const [document] = await fhir.resources(
      "DocumentReference",
      `identifier=https://api.test/fhir/r4/sid/signature-request|${id}`,
    );
    expect(isikProblems(plain(document))).toEqual([]);
    // The sealed PDF itself travels in the Bundle: the hospital holds the very bytes A3 serves.
    const attachment = plain(document).content[0].attachment as { data?: string };
    const held = Buffer.from(attachment.data ?? plain((await fhir.resources("Binary"))[0]).data, "base64");
    expect(held.equals(pdf)).toBe(true);
    const [proof] = await fhir.resources("Provenance", `target=DocumentReference/${document!.id}`);
    expect(proof).toMatchObject({ signature: [expect.objectContaining({ sigFormat: "application/pkcs7-signature" })] });
  });
});

describe("filing a sealed PDF as the hospital asks", () => {
  it("carries the document's KDL type and confidentiality, and a new version's PDF replaces the one before", async () => {
    await pushTo();
    const first = await signAndSeal(setup.api, setup.files, setup.org, "P-fhir-2");
    await runPushes();
    await setDocumentRecordClass(setup.org.ctx, { id: first.documentId, kdlType: "AM010303", confidentiality: "R" });
    await updateDocument(setup.org.ctx, { id: first.documentId, title: "OP-Aufklärung, Fassung 2" });
    const second = await signAndSeal(setup.api, setup.files, setup.org, "P-fhir-2", first.documentId);
    await runPushes();
    const documentOf = async (requestId: string) => {
      const [found] = await fhir.resources(
        "DocumentReference",
        `identifier=https://api.test/fhir/r4/sid/signature-request|${requestId}`,
      );
      return plain(found);
    };
    const earlier = await documentOf(first.id);
    const later = await documentOf(second.id);
    // The first was sent before staff classed the document: the default, and nothing to replace.
    expect(earlier.type.coding[0].code).toBe("AM050199");
    expect(earlier.relatesTo).toBeUndefined();
    expect(later).toMatchObject({
      type: { coding: [{ system: "http://dvmd.de/fhir/CodeSystem/kdl", code: "AM010303" }] },
      securityLabel: [{ coding: [{ code: "R" }] }],
      relatesTo: [{ code: "replaces", target: { identifier: { value: first.id } } }],
    });
    expect(isikProblems(later)).toEqual([]);
  });

  it("is set by staff of the organization only, and audited when it changes", async () => {
    const { documentId } = await signAndSeal(setup.api, setup.files, setup.org, "P-fhir-3");
    await expect(
      setDocumentRecordClass(setup.other.ctx, { id: documentId, kdlType: "AM050107", confidentiality: "V" }),
    ).rejects.toMatchObject({ code: "not_found" });
    await setDocumentRecordClass(setup.org.ctx, { id: documentId, kdlType: "AM050107", confidentiality: "V" });
    await setDocumentRecordClass(setup.org.ctx, { id: documentId, kdlType: "AM050107", confidentiality: "V" });
    const entries = await setup.api.services.db
      .select()
      .from(auditLog)
      .where(eq(auditLog.action, "document.record_class_changed"));
    const mine = entries.filter((e) => (e.metadata as { documentId?: string }).documentId === documentId);
    expect(mine).toHaveLength(1);
    expect(mine[0]!.metadata).toMatchObject({
      from: { kdlType: null, confidentiality: "N" },
      to: { kdlType: "AM050107", confidentiality: "V" },
    });
  });
});

describe("the patient's rights", () => {
  it("names what was pushed in the patient's records, and erasure deletes the delivery with the submission", async () => {
    await pushTo();
    const { api, org } = setup;
    const template = await activeTemplate(org);
    const caseNumber = `E-${Date.now()}`;
    const sessionId = await newSession(api, org, template.identifier, { rnummer: caseNumber });
    const res = await api.request("POST", "/api/embed/submit", { body: { sessionId, values: { name: "Eri" } } });
    expect(res.status).toBe(200);
    await runPushes();
    const delivery = await deliveryOf(res.body.submissionId as string);
    expect(delivery).toMatchObject({ status: "delivered" });

    const selector = { rnummer: caseNumber };
    const preview = await erasePatient(org.ctx, { selector, dryRun: true });
    expect(preview.counts).toMatchObject({ submissions: 1, fhirDeliveries: 1 });
    await erasePatient(org.ctx, {
      selector,
      dryRun: false,
      confirmation: caseNumber,
      reason: "Art. 17 request, tested",
    });
    expect(await deliveryOf(res.body.submissionId as string)).toBeUndefined();
  });
});

describe("tenancy", () => {
  it("shows and resends only the organization's own deliveries", async () => {
    await pushTo();
    const submissionId = await submitOnce();
    const delivery = await deliveryOf(submissionId);
    const theirs = await listFhirDeliveries(setup.other.ctx, { limit: 200, sort: "newest" });
    expect(theirs.items.map((d) => d.id)).not.toContain(delivery.id);
    await expect(resendFhirDelivery(setup.other.ctx, { id: delivery.id })).rejects.toMatchObject({ code: "not_found" });
  });
});
