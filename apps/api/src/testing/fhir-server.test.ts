import { randomUUID } from "node:crypto";
import { createServer } from "node:net";
import { exportJWK, generateKeyPair, SignJWT } from "jose";
import { afterEach, describe, expect, it } from "vitest";
import { CLIENT_ASSERTION_TYPE, startFhirServer, type FhirServerOptions, type TestFhirServer } from "./fhir-server";

const PATIENT_SYSTEM = "https://his.hospital.test/sid/patient-id";
const OBSERVATION_SYSTEM = "https://clinsign.test/sid/observation";
const PATIENT_URL = "urn:uuid:6c1f1d2e-3d0b-4c8e-9a51-0d8f2f6a1b01";
const DOCUMENT_URL = "urn:uuid:6c1f1d2e-3d0b-4c8e-9a51-0d8f2f6a1b02";
const OBSERVATION_URL = "urn:uuid:6c1f1d2e-3d0b-4c8e-9a51-0d8f2f6a1b03";
const DOCUMENT_OID = "urn:oid:2.25.144000000000000000000000000000000000001";

interface Reply {
  status: number;
  headers: Headers;
  body: {
    resourceType?: string;
    type?: string;
    total?: number;
    entry?: { response?: { status: string; location?: string } }[];
    issue?: { severity: string; code: string; details?: { text?: string }; expression?: string[] }[];
    access_token?: string;
    scope?: string;
    error?: string;
  };
}

const servers: TestFhirServer[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => server.close()));
});

async function start(options?: FhirServerOptions): Promise<TestFhirServer> {
  const server = await startFhirServer(options);
  servers.push(server);
  return server;
}

async function fhir(
  server: TestFhirServer,
  method: string,
  path: string,
  body?: unknown,
  headers: Record<string, string> = {},
): Promise<Reply> {
  const response = await fetch(`${server.baseUrl}${path}`, {
    method,
    headers: { accept: "application/fhir+json", "content-type": "application/fhir+json", ...headers },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: response.status, headers: response.headers, body: (await response.json()) as Reply["body"] };
}

async function requestToken(
  server: TestFhirServer,
  form: Record<string, string>,
  authorization?: string,
): Promise<Reply> {
  const response = await fetch(server.tokenUrl, {
    method: "POST",
    headers: {
      "content-type": "application/x-www-form-urlencoded",
      ...(authorization ? { authorization } : {}),
    },
    body: new URLSearchParams(form),
  });
  return { status: response.status, headers: response.headers, body: (await response.json()) as Reply["body"] };
}

function entry(fullUrl: string, resource: { resourceType: string }, ifNoneExist: string) {
  return { fullUrl, resource, request: { method: "POST", url: resource.resourceType, ifNoneExist } };
}

function patientEntry() {
  const patient = { resourceType: "Patient", identifier: [{ system: PATIENT_SYSTEM, value: "4711" }] };
  return entry(PATIENT_URL, patient, `identifier=${PATIENT_SYSTEM}|4711`);
}

/** The signed PDF's DocumentReference. */
function documentEntry(subject: string) {
  const document = {
    resourceType: "DocumentReference",
    masterIdentifier: { system: "urn:ietf:rfc:3986", value: DOCUMENT_OID },
    status: "current",
    subject: { reference: subject },
    content: [{ attachment: { contentType: "application/pdf", url: "https://clinsign.test/files/1" } }],
  };
  return entry(DOCUMENT_URL, document, `identifier=urn:ietf:rfc:3986|${DOCUMENT_OID}`);
}

/** The PHQ-9 total as an Observation. */
function observationEntry(subject: string, score: unknown = 12) {
  const observation = {
    resourceType: "Observation",
    identifier: [{ system: OBSERVATION_SYSTEM, value: "request-1-phq9" }],
    status: "final",
    code: { coding: [{ system: "http://loinc.org", code: "44261-6" }] },
    subject: { reference: subject },
    valueInteger: score,
  };
  return entry(OBSERVATION_URL, observation, `identifier=${OBSERVATION_SYSTEM}|request-1-phq9`);
}

function transactionOf(...entries: object[]) {
  return { resourceType: "Bundle", type: "transaction", entry: entries };
}

/** A Patient (conditional create), the DocumentReference and the Observation, both referring to the Patient's fullUrl. */
function transaction() {
  return transactionOf(patientEntry(), documentEntry(PATIENT_URL), observationEntry(PATIENT_URL));
}

const entryStatuses = (reply: Reply) => reply.body.entry?.map((item) => item.response?.status);

async function storedCounts(server: TestFhirServer) {
  const count = async (type: string, search: string) => (await server.resources(type, search)).length;
  return [
    await count("Patient", `identifier=${PATIENT_SYSTEM}|4711`),
    await count("DocumentReference", `identifier=urn:ietf:rfc:3986|${DOCUMENT_OID}`),
    await count("Observation", `identifier=${OBSERVATION_SYSTEM}|request-1-phq9`),
  ];
}

describe("test FHIR server: transactions through Medplum's router", () => {
  it("stores each resource of a transaction posted twice once, and the second answer says they were found", async () => {
    const server = await start();
    const first = await fhir(server, "POST", "", transaction());
    expect(first.status).toBe(200);
    expect(first.body.type).toBe("transaction-response");
    expect(entryStatuses(first)).toEqual(["201", "201", "201"]);

    const second = await fhir(server, "POST", "", transaction());
    expect(second.status).toBe(200);
    expect(entryStatuses(second)).toEqual(["200", "200", "200"]);
    expect(await storedCounts(server)).toEqual([1, 1, 1]);

    // The urn:uuid reference became the stored Patient's id, and a search by it finds the score.
    const [patient] = await server.resources("Patient");
    expect(await server.resources("Observation")).toMatchObject([{ subject: { reference: `Patient/${patient?.id}` } }]);
    const search = await fhir(server, "GET", `/Observation?subject=Patient/${patient?.id}&code=44261-6`);
    expect(search.status).toBe(200);
    expect(search.body).toMatchObject({ type: "searchset", total: 1 });
  });

  it("resolves a conditional reference to the hospital's own Patient, and fails the transaction while none matches", async () => {
    const server = await start();
    const conditional = `Patient?identifier=${PATIENT_SYSTEM}|4711`;
    const bundle = transactionOf(documentEntry(conditional), observationEntry(conditional));
    const unknown = await fhir(server, "POST", "", bundle);
    expect(unknown.status).toBe(404);
    expect(unknown.body.issue?.[0]?.details?.text).toContain(conditional);
    expect(await storedCounts(server)).toEqual([0, 0, 0]);

    const patient = await server.repository.createResource({
      resourceType: "Patient",
      identifier: [{ system: PATIENT_SYSTEM, value: "4711" }],
    });
    const stored = await fhir(server, "POST", "", bundle);
    expect(stored.status).toBe(200);
    const subject = { subject: { reference: `Patient/${patient.id}` } };
    expect(await server.resources("DocumentReference")).toMatchObject([subject]);
    expect(await server.resources("Observation")).toMatchObject([subject]);
  });

  it("keeps nothing of a transaction whose later entry fails, deletions included (all or nothing)", async () => {
    const server = await start();
    // The HIS holds the patient twice, so the Patient's conditional create cannot choose: 412.
    for (let copy = 0; copy < 2; copy++)
      await server.repository.createResource({
        resourceType: "Patient",
        identifier: [{ system: PATIENT_SYSTEM, value: "4711" }],
      });
    const earlier = await server.repository.createResource({
      resourceType: "Observation",
      status: "preliminary",
      code: { text: "PHQ-9 total, an earlier delivery" },
    });
    const removal = { request: { method: "DELETE", url: `Observation/${earlier.id}` } };
    const bundle = transactionOf(removal, documentEntry("Patient/elsewhere"), patientEntry());
    const reply = await fhir(server, "POST", "", bundle);
    expect(reply.status).toBe(412);
    expect(await server.resources("DocumentReference")).toEqual([]);
    expect(await server.resources("Observation")).toEqual([earlier]);
  });
});

describe("test FHIR server: what it refuses", () => {
  it("answers 400 with the validator's OperationOutcome for a resource that is not valid R4, and stores nothing", async () => {
    const server = await start();
    const single = await fhir(server, "POST", "/Observation", { resourceType: "Observation", status: "final" });
    expect(single.status).toBe(400);
    expect(single.body).toMatchObject({
      resourceType: "OperationOutcome",
      issue: [{ expression: ["Observation.code"] }],
    });

    const invalidEntry = transactionOf(patientEntry(), documentEntry(PATIENT_URL), observationEntry(PATIENT_URL, "12"));
    const inBundle = await fhir(server, "POST", "", invalidEntry);
    expect(inBundle.status).toBe(400);
    // Medplum also warns about the urn:uuid references; the error names the entry's field.
    const errors = inBundle.body.issue?.filter((issue) => issue.severity === "error");
    expect(errors).toMatchObject([{ expression: ["Bundle.entry[2].resource.value[x]"] }]);
    expect(await storedCounts(server)).toEqual([0, 0, 0]);

    const notFhirJson = await fhir(server, "POST", "", transaction(), { "content-type": "text/plain" });
    expect(notFhirJson.status).toBe(415);
  });

  it("answers 422 naming the problems the profile check finds in any entry", async () => {
    const server = await start({
      profileCheck: (resource) =>
        resource.resourceType === "DocumentReference" && !resource.type
          ? ["DocumentReference.type: a KDL code is required"]
          : [],
    });
    const reply = await fhir(server, "POST", "", transaction());
    expect(reply.status).toBe(422);
    expect(reply.body.issue).toEqual([
      expect.objectContaining({
        details: { text: "DocumentReference.type: a KDL code is required" },
        expression: ["Bundle.entry[1].resource"],
      }),
    ]);
    expect(await storedCounts(server)).toEqual([0, 0, 0]);
  });

  it("requires the bearer token when one is set", async () => {
    const server = await start({ token: "hospital-token" });
    const missing = await fhir(server, "GET", "/Patient");
    expect(missing.status).toBe(401);
    expect(missing.body.resourceType).toBe("OperationOutcome");
    expect(missing.headers.get("www-authenticate")).toMatch(/^Bearer/);
    expect((await fhir(server, "GET", "/Patient", undefined, { authorization: "Bearer wrong" })).status).toBe(401);
    const allowed = await fhir(server, "GET", "/Patient", undefined, { authorization: "Bearer hospital-token" });
    expect(allowed.status).toBe(200);
  });
});

describe("test FHIR server: OAuth2 token endpoint", () => {
  const bearer = (reply: Reply) => ({ authorization: `Bearer ${reply.body.access_token}` });

  it("issues a token for the client credentials grant with the right secret, and refuses a wrong one", async () => {
    const server = await start();
    server.registerClient({ clientId: "clinsign", secret: "s3cret/+" });
    const basic = `Basic ${Buffer.from(`clinsign:${encodeURIComponent("s3cret/+")}`).toString("base64")}`;
    const viaBasic = await requestToken(server, { grant_type: "client_credentials" }, basic);
    expect(viaBasic.status).toBe(200);
    expect(viaBasic.body).toMatchObject({ token_type: "Bearer", expires_in: 300 });
    expect((await fhir(server, "GET", "/Patient", undefined, bearer(viaBasic))).status).toBe(200);
    const viaForm = await requestToken(server, {
      grant_type: "client_credentials",
      client_id: "clinsign",
      client_secret: "s3cret/+",
    });
    expect((await fhir(server, "GET", "/Patient", undefined, bearer(viaForm))).status).toBe(200);

    const wrong = await requestToken(server, {
      grant_type: "client_credentials",
      client_id: "clinsign",
      client_secret: "guess",
    });
    expect(wrong.status).toBe(401);
    expect(wrong.body).toEqual({ error: "invalid_client", error_description: expect.any(String) });
    // A registered client makes the FHIR API require a token.
    expect((await fhir(server, "GET", "/Patient")).status).toBe(401);
  });

  it("refuses a token once its lifetime has passed", async () => {
    const server = await start({ tokenLifetimeSeconds: 0 });
    server.registerClient({ clientId: "clinsign", secret: "s3cret" });
    const token = await requestToken(server, {
      grant_type: "client_credentials",
      client_id: "clinsign",
      client_secret: "s3cret",
    });
    expect(token.status).toBe(200);
    expect((await fhir(server, "GET", "/Patient", undefined, bearer(token))).status).toBe(401);
  });

  for (const alg of ["ES384", "RS384"] as const) {
    it(`issues a token for a SMART backend services assertion signed ${alg}, and refuses a foreign key or a replay`, async () => {
      const server = await start();
      const { publicKey, privateKey } = await generateKeyPair(alg);
      const clientId = `clinsign-${alg}`;
      server.registerClient({ clientId, jwks: [{ ...(await exportJWK(publicKey)), kid: "k1", alg }] });
      const assertion = (key: Parameters<SignJWT["sign"]>[0]) =>
        new SignJWT({})
          .setProtectedHeader({ alg, kid: "k1" })
          .setIssuer(clientId)
          .setSubject(clientId)
          .setAudience(server.tokenUrl)
          .setJti(randomUUID())
          .setIssuedAt()
          .setExpirationTime("2m")
          .sign(key);
      const form = (signed: string) => ({
        grant_type: "client_credentials",
        scope: "system/*.cruds",
        client_assertion_type: CLIENT_ASSERTION_TYPE,
        client_assertion: signed,
      });

      const signed = await assertion(privateKey);
      const granted = await requestToken(server, form(signed));
      expect(granted.status).toBe(200);
      expect(granted.body.scope).toBe("system/*.cruds");
      expect((await fhir(server, "GET", "/Patient", undefined, bearer(granted))).status).toBe(200);

      expect((await requestToken(server, form(signed))).status).toBe(401);
      const foreign = await generateKeyPair(alg);
      expect((await requestToken(server, form(await assertion(foreign.privateKey)))).body.error).toBe("invalid_client");
    });
  }
});

describe("test FHIR server: failure injection", () => {
  it('answers two 503s after failNext("5xx", 2), then processes the retry once', async () => {
    const server = await start();
    server.failNext("5xx", 2);
    const replies = [];
    for (let attempt = 0; attempt < 3; attempt++) replies.push(await fhir(server, "POST", "", transaction()));
    expect(replies.map((reply) => reply.status)).toEqual([503, 503, 200]);
    expect(replies[0]?.body.issue?.[0]?.code).toBe("transient");
    expect(server.received.map((request) => [request.status, request.injected])).toEqual([
      [503, "5xx"],
      [503, "5xx"],
      [200, undefined],
    ]);
    expect(server.received[0]?.body).toEqual(transaction());
    expect(await storedCounts(server)).toEqual([1, 1, 1]);
  });

  it("answers 422 with an OperationOutcome, or drops the connection, without processing", async () => {
    const server = await start();
    server.failNext("422");
    const refused = await fhir(server, "POST", "", transaction());
    expect(refused.status).toBe(422);
    expect(refused.body.resourceType).toBe("OperationOutcome");
    server.failNext("close");
    await expect(fhir(server, "POST", "", transaction())).rejects.toThrow();
    expect(await storedCounts(server)).toEqual([0, 0, 0]);
    expect((await fhir(server, "POST", "", transaction())).status).toBe(200);
  });

  it("processes a request whose answer it withholds (timeout), so the sender's retry finds what it stored", async () => {
    const server = await start();
    server.failNext("timeout");
    const send = fetch(server.baseUrl, {
      method: "POST",
      headers: { "content-type": "application/fhir+json" },
      body: JSON.stringify(transaction()),
      signal: AbortSignal.timeout(500),
    });
    await expect(send).rejects.toThrow();
    expect(await storedCounts(server)).toEqual([1, 1, 1]);
    const retry = await fhir(server, "POST", "", transaction());
    expect(entryStatuses(retry)).toEqual(["200", "200", "200"]);
    expect(await storedCounts(server)).toEqual([1, 1, 1]);
  });

  it("frees its port on close", async () => {
    const server = await startFhirServer();
    const port = Number(new URL(server.baseUrl).port);
    await server.close();
    await expect(fetch(`${server.baseUrl}/Patient`)).rejects.toThrow();
    const reuse = createServer();
    await new Promise<void>((resolve, reject) => reuse.once("error", reject).listen(port, "127.0.0.1", resolve));
    await new Promise<void>((resolve) => reuse.close(() => resolve()));
  });
});
