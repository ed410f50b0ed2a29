import { describe, expect, it } from "vitest";
import { expectValidFhir } from "../../testing/fhir";
import { documentReferenceLink, uuidAsOid } from "./isik-document";
import { isikProblems } from "./isik-profiles";
import { isikQuestionnaireResponse } from "./isik-questionnaire-response";
import { provenance } from "./provenance";
import {
  DNS_NAMESPACE,
  fullUrlOf,
  patientReference,
  pushBundle,
  transaction,
  uuidV5,
  type PushParts,
} from "./push-bundle";
import {
  API,
  AUTHORED,
  HIS_PATIENT,
  REQUEST_ID,
  SEALED_AT,
  answersOf,
  libraryTemplate,
  sealedConsent,
  submittedResponse,
} from "./push-fixtures";
import { CODE_SYSTEMS, type FhirJson } from "./resources";
import { codedObservations } from "./score-observations";

type Entry = { fullUrl: string; resource: FhirJson; request: { method: string; url: string; ifNoneExist: string } };
const entriesOf = (bundle: FhirJson) => bundle.entry as Entry[];

/** A PHQ-9 answered on a phone and signed in a PDF: what the lead's push job hands this library. */
function phq9Push(patient = HIS_PATIENT): PushParts {
  const template = libraryTemplate("phq-9-de");
  const answers = { ...answersOf("phq9", [2, 2, 1, 1, 1, 1, 1, 1, 1]), phq9_difficulty: "1" };
  const response = isikQuestionnaireResponse(submittedResponse(template, answers), {
    patient,
    questionnaireTitle: template.title,
    signedDocument: documentReferenceLink(API, REQUEST_ID),
  });
  const document = sealedConsent({ patient, questionnaireResponse: fullUrlOf(response) });
  const observations = codedObservations(template, answers, { response });
  const made = [document, response, ...observations];
  const record = provenance({
    targets: made.map(fullUrlOf),
    recorded: SEALED_AT,
    patient: patientReference(patient),
    signers: [{ role: "patient" }, { role: "physician", name: "Dr. med. Anna Berg" }],
    organization: { name: "Klinikum Beispielstadt" },
    seal: { when: SEALED_AT, cmsBase64: Buffer.from("cms signed data (DER)").toString("base64") },
  });
  return { patient, resources: [...made, record] };
}

describe("the push Bundle (issue 34)", () => {
  it("is a valid R4 transaction whose every resource is valid R4 and meets ISiK's mandatory rules", async () => {
    const bundle = pushBundle(phq9Push());
    await expectValidFhir(bundle);
    expect(bundle).toMatchObject({ resourceType: "Bundle", type: "transaction" });
    const types = entriesOf(bundle).map((e) => e.resource.resourceType);
    expect(types).toEqual(["Patient", "DocumentReference", "QuestionnaireResponse", "Observation", "Provenance"]);
    for (const { resource } of entriesOf(bundle)) {
      await expectValidFhir(resource);
      expect(isikProblems(resource), String(resource.resourceType)).toEqual([]);
    }
  });

  it("creates each resource at most once: POST with ifNoneExist on its identifier (a Provenance: its tag)", () => {
    const entries = entriesOf(pushBundle(phq9Push()));
    for (const { request, resource } of entries) {
      expect(request.method).toBe("POST");
      expect(request.url).toBe(resource.resourceType);
    }
    const patient = entries[0]!;
    expect(patient.resource).toEqual({ resourceType: "Patient", identifier: [HIS_PATIENT] });
    expect(decodeURIComponent(patient.request.ifNoneExist)).toBe(
      `identifier=${HIS_PATIENT.system}|${HIS_PATIENT.value}`,
    );
    expect(decodeURIComponent(entries[1]!.request.ifNoneExist)).toBe(
      `identifier=${API}/fhir/r4/sid/signature-request|${REQUEST_ID}`,
    );
    const record = entries.at(-1)!;
    expect(record.request.ifNoneExist).toMatch(/^_tag=/);
    expect(decodeURIComponent(record.request.ifNoneExist)).toContain(CODE_SYSTEMS.pushTag);
  });

  it("is byte-identical when built again from the same input, so a retry repeats the same conditional creates", () => {
    const first = JSON.stringify(pushBundle(phq9Push()));
    const again = JSON.stringify(pushBundle(phq9Push()));
    expect(again).toBe(first);
    // And a different patient is a different request, not a silent reuse.
    expect(JSON.stringify(pushBundle(phq9Push({ ...HIS_PATIENT, value: "4711-0816" })))).not.toBe(first);
  });

  it("resolves every reference inside the Bundle: subjects to the Patient entry, links to their resources", () => {
    const entries = entriesOf(pushBundle(phq9Push()));
    const fullUrls = new Set(entries.map((e) => e.fullUrl));
    const references = JSON.stringify(entries.map((e) => e.resource)).match(/"reference":"urn:uuid:[^"]+"/g) ?? [];
    expect(references.length).toBeGreaterThan(6);
    for (const reference of references) expect(fullUrls).toContain(reference.slice('"reference":"'.length, -1));
    const [patient, document, response, observation] = entries;
    for (const resource of [document, response, observation])
      expect(resource!.resource.subject).toMatchObject({ reference: patient!.fullUrl, identifier: HIS_PATIENT });
    expect(document!.resource.context).toMatchObject({ related: [{ reference: response!.fullUrl }] });
    expect(observation!.resource.derivedFrom).toEqual([
      { reference: response!.fullUrl, type: "QuestionnaireResponse" },
    ]);
    const record = entries.at(-1)!.resource;
    expect(record.target).toEqual(entries.slice(1, -1).map((e) => ({ reference: e.fullUrl })));
  });

  it("names the patient by a conditional reference and creates none where the HIS creates no patients from outside", async () => {
    const patient = { ...HIS_PATIENT, mode: "reference" as const };
    const bundle = pushBundle(phq9Push(patient));
    await expectValidFhir(bundle);
    const entries = entriesOf(bundle);
    expect(entries.map((e) => e.resource.resourceType)).not.toContain("Patient");
    const reference = (entries[0]!.resource.subject as { reference: string }).reference;
    expect(decodeURIComponent(reference)).toBe(`Patient?identifier=${HIS_PATIENT.system}|${HIS_PATIENT.value}`);
    expect(isikProblems(entries[0]!.resource)).toEqual([]);
  });

  it("refuses what a retry could not find again, and two resources with one identity", () => {
    expect(() => transaction([{ resourceType: "Observation", status: "final" }])).toThrow(/needs an identifier/);
    expect(() => transaction([sealedConsent(), sealedConsent()])).toThrow(/two resources/);
  });
});

describe("identities", () => {
  it("derives name-based UUIDs per RFC 4122 (v5), as other implementations do", () => {
    // Python: uuid.uuid5(uuid.NAMESPACE_DNS, "python.org"); uuid.uuid5(uuid.NAMESPACE_URL, "http://example.org/x|1").
    expect(uuidV5("python.org", DNS_NAMESPACE)).toBe("886313e1-3b8a-5372-9b90-0c9aee199e5d");
    expect(uuidV5("http://example.org/x|1")).toBe("0aba957e-b9eb-59a4-b77e-d7e7dab3f781");
  });

  it("writes the master identifier as the request's UUID under the OID arc 2.25 (ITU-T X.667's own example)", () => {
    expect(uuidAsOid("f81d4fae-7dec-11d0-a765-00a0c91e6bf6")).toBe("2.25.329800735698586629295641978511506172918");
    expect(sealedConsent().masterIdentifier).toEqual({
      system: "urn:ietf:rfc:3986",
      value: "urn:oid:2.25.329800735698586629295641978511506172918",
    });
    expect(() => uuidAsOid("not-a-uuid")).toThrow(/not a UUID/);
  });
});

describe("Provenance", () => {
  const record = pushBundle(phq9Push()).entry as Entry[];
  const prov = record.at(-1)!.resource;
  const agents = prov.agent as { type: { coding: { code: string }[] }; who: FhirJson; onBehalfOf?: FhirJson }[];

  it("names each signer and the organization's seal, the patient by the Bundle's reference", () => {
    expect(agents.map((a) => a.type.coding[0]!.code)).toEqual(["author", "verifier", "attester"]);
    expect(agents[0]!.who).toMatchObject({ reference: record[0]!.fullUrl, type: "Patient" });
    expect(agents[1]!.who).toEqual({ display: "Dr. med. Anna Berg" });
    expect(agents[2]!.who).toEqual({ type: "Organization", display: "Klinikum Beispielstadt" });
  });

  it("carries the sealed PDF's CMS as the organization's source signature", () => {
    expect(prov.signature).toEqual([
      {
        type: [{ system: "urn:iso-astm:E1762-95:2013", code: "1.2.840.10065.1.12.1.14", display: "Source Signature" }],
        when: SEALED_AT,
        who: { type: "Organization", display: "Klinikum Beispielstadt" },
        targetFormat: "application/pdf",
        sigFormat: "application/pkcs7-signature",
        data: Buffer.from("cms signed data (DER)").toString("base64"),
      },
    ]);
  });

  it("has a legal representative sign as author on the patient's behalf", async () => {
    const made = provenance({
      targets: [fullUrlOf(sealedConsent())],
      recorded: AUTHORED,
      patient: patientReference(HIS_PATIENT),
      signers: [{ role: "legal_representative", name: "Maria Muster" }],
      organization: {
        name: "Klinikum Beispielstadt",
        identifier: { system: "urn:ietf:rfc:3986", value: "urn:oid:1.2.276.0.76.4.8" },
      },
    });
    await expectValidFhir(made);
    expect((made.agent as FhirJson[])[0]).toMatchObject({
      type: { coding: [{ code: "author" }] },
      who: { display: "Maria Muster" },
      onBehalfOf: { reference: fullUrlOf({ resourceType: "Patient", identifier: [HIS_PATIENT] }) },
    });
    expect(made.signature).toBeUndefined();
  });
});
