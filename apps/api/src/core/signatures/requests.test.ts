import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { auditLog, eq, signatureRequests } from "@clinsign/db";
import { type TestApi, type TestOrg } from "../../testing/harness";
import {
  backdateExpiry,
  bearer,
  inOneHour,
  registerDocument,
  requestSignature,
  type FileServer,
  startSignatureApi,
  type SignatureTestApi,
} from "../../testing/signature-fixtures";
import { sha256Hex } from "../crypto";

let api: TestApi;
let files: FileServer;
let org: TestOrg;
let other: TestOrg;
let documentId: string;

let setup: SignatureTestApi;

beforeAll(async () => {
  setup = await startSignatureApi();
  ({ api, files, org, other } = setup);
  documentId = await registerDocument(api, files, org, { name: "Aufklärung Narkose" });
});
afterAll(() => setup?.close());

const a1 = (body: Record<string, unknown>, o: TestOrg = org) =>
  api.request("POST", "/signature-requests", {
    headers: bearer(o),
    body: {
      patient_id: "P-100",
      document_id: documentId,
      institution_id: "clinic-a",
      expiration_date: inOneHour(),
      order_by: "dr.who",
      ...body,
    },
  });
const a2 = (patientId: string, o: TestOrg = org) =>
  api.request("GET", `/signature-requests?patient_id=${encodeURIComponent(patientId)}`, { headers: bearer(o) });
const a7 = (id: string, body: Record<string, unknown>, o: TestOrg = org) =>
  api.request("PUT", `/assignments/${id}`, { headers: bearer(o), body: { id, ...body } });

describe("A1 POST /signature-requests", () => {
  it("creates a request with an unguessable link (stored hashed) and answers 201", async () => {
    const expiration = new Date(Date.now() + 86_400_000).toISOString();
    const res = await a1({ expiration_date: expiration });
    expect(res.status).toBe(201);
    expect(res.body).toEqual({
      signing_link: expect.stringMatching(/^https:\/\/portal\.test\/sign\/[A-Za-z0-9_-]{43}$/),
      signature_id: expect.stringMatching(/^[0-9a-f-]{36}$/),
      expiration_date: expiration,
    });
    const token = res.body.signing_link.split("/").pop();
    const [row] = await api.services.db
      .select()
      .from(signatureRequests)
      .where(eq(signatureRequests.id, res.body.signature_id));
    expect(row).toMatchObject({
      tokenHash: sha256Hex(token),
      status: "pending",
      visibility: "active",
      pinnedVersion: null,
      patientId: "P-100",
      orderBy: "dr.who",
    });
    expect(JSON.stringify(row)).not.toContain(token);
    const [entry] = await api.services.db.select().from(auditLog).where(eq(auditLog.action, "signature.created"));
    expect(entry).toMatchObject({
      actorType: "api_key",
      metadata: expect.objectContaining({ signatureId: expect.any(String) }),
    });
    expect(entry!.ip).toBeTruthy();
  });

  it("requires all five fields and validates them (400 naming the field)", async () => {
    for (const name of ["patient_id", "document_id", "institution_id", "expiration_date", "order_by"]) {
      const missing = await a1({ [name]: undefined });
      expect(missing.status, name).toBe(400);
      expect(missing.body.error).toMatchObject({ code: "invalid_request", details: { field: name } });
      const blank = await a1({ [name]: name === "expiration_date" ? "" : "   " });
      expect(blank.status, `${name} blank`).toBe(400);
      const wrongType = await a1({ [name]: 42 });
      expect(wrongType.status, `${name} number`).toBe(400);
    }
    for (const bad of ["tomorrow", "2030-01-01", "2030-01-01T10:00:00", new Date(Date.now() - 60_000).toISOString()]) {
      const res = await a1({ expiration_date: bad });
      expect(res.status, bad).toBe(400);
      expect(res.body.error.details.field).toBe("expiration_date");
    }
    expect((await a1({ expiration_date: "2031-05-01T10:00:00+02:00" })).status).toBe(201);
  });

  it("answers 404 for an unknown or foreign document, and 401 without a valid token", async () => {
    const unknown = await a1({ document_id: "00000000-0000-4000-8000-000000000000" });
    expect(unknown.status).toBe(404);
    expect(unknown.body.error).toMatchObject({ code: "not_found", details: { field: "document_id" } });
    expect((await a1({ document_id: "abc" })).status).toBe(404);
    expect((await a1({}, other)).status).toBe(404);
    expect((await api.request("POST", "/signature-requests", { body: {} })).status).toBe(401);
  });
});

describe("A2 GET /signature-requests", () => {
  it("lists the patient's open links; drafts, expired, other patients and other organizations are left out", async () => {
    const patient = "P-A2";
    const open = await requestSignature(api, org, documentId, patient);
    const hidden = await requestSignature(api, org, documentId, patient);
    const expired = await requestSignature(api, org, documentId, patient);
    await requestSignature(api, org, documentId, "P-someone-else");
    expect((await a7(hidden.id, { status: "draft" })).status).toBe(200);
    await backdateExpiry(api, expired.id);
    const res = await a2(patient);
    expect(res.status).toBe(200);
    expect(res.body).toEqual([
      {
        document_id: documentId,
        document_title: "Aufklärung Narkose",
        signing_link: open.link,
        status: "pending",
        expiration_date: expect.any(String),
      },
    ]);
    expect((await a2(patient, other)).body).toEqual([]);
    // Back to active: listed again.
    await a7(hidden.id, { status: "active" });
    expect((await a2(patient)).body).toHaveLength(2);
  });

  it("shows assigment_url instead of our link when set, and our link again when cleared", async () => {
    const { id, link } = await requestSignature(api, org, documentId, "P-URL");
    const res = await a7(id, { status: "active", assigment_url: "https://his.example.org/s/abc" });
    expect(res.status).toBe(200);
    expect((await a2("P-URL")).body[0].signing_link).toBe("https://his.example.org/s/abc");
    await a7(id, { status: "active", assigment_url: null });
    expect((await a2("P-URL")).body[0].signing_link).toBe(link);
  });

  it("needs patient_id (400)", async () => {
    const res = await api.request("GET", "/signature-requests", { headers: bearer(org) });
    expect(res.status).toBe(400);
    expect(res.body.error.details.field).toBe("patient_id");
    expect((await api.request("GET", "/signature-requests/completed", { headers: bearer(org) })).status).toBe(400);
  });
});

describe("A7 PUT /assignments/{id}", () => {
  it("changes visibility and expiry and answers id, status, expiration_timestamp", async () => {
    const { id } = await requestSignature(api, org, documentId, "P-A7");
    const later = new Date(Date.now() + 7 * 86_400_000).toISOString();
    const res = await a7(id, { status: "draft", expiration_timestamp: later });
    expect(res).toMatchObject({ status: 200, body: { id, status: "draft", expiration_timestamp: later } });
    const [entry] = await api.services.db
      .select()
      .from(auditLog)
      .where(eq(auditLog.action, "signature.assignment_updated"));
    expect(entry!.metadata).toMatchObject({ signatureId: expect.any(String), visibility: expect.any(Object) });
  });

  it("validates: body id equals path id, status draft|active, future expiry, http(s) URL; 404 unknown or foreign", async () => {
    const { id } = await requestSignature(api, org, documentId, "P-A7b");
    const mismatch = await api.request("PUT", `/assignments/${id}`, {
      headers: bearer(org),
      body: { id: "00000000-0000-4000-8000-000000000000", status: "active" },
    });
    expect(mismatch.status).toBe(400);
    expect(mismatch.body.error.details.field).toBe("id");
    const noId = await api.request("PUT", `/assignments/${id}`, { headers: bearer(org), body: { status: "active" } });
    expect(noId.status).toBe(400);
    expect(noId.body.error.details.field).toBe("id");
    for (const [body, field] of [
      [{ status: "hidden" }, "status"],
      [{}, "status"],
      [{ status: "active", expiration_timestamp: "2001-01-01T00:00:00Z" }, "expiration_timestamp"],
      [{ status: "active", expiration_timestamp: "soon" }, "expiration_timestamp"],
      [{ status: "active", assigment_url: "javascript:alert(1)" }, "assigment_url"],
    ] as const) {
      const res = await a7(id, body);
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(res.body.error.details.field).toBe(field);
    }
    expect((await a7(id, { status: "active" }, other)).status).toBe(404);
    expect((await a7("00000000-0000-4000-8000-000000000000", { status: "active" })).status).toBe(404);
  });

  it("enforces expiry on write: an expired request is marked expired and its expiry cannot change (409)", async () => {
    const { id } = await requestSignature(api, org, documentId, "P-A7c");
    await backdateExpiry(api, id);
    const res = await a7(id, { status: "active", expiration_timestamp: inOneHour() });
    expect(res.status).toBe(409);
    expect(res.body.error).toMatchObject({ code: "conflict", details: { reason: "request_expired" } });
    const [row] = await api.services.db.select().from(signatureRequests).where(eq(signatureRequests.id, id));
    expect(row!.status).toBe("expired");
    const expiredEntries = await api.services.db
      .select()
      .from(auditLog)
      .where(eq(auditLog.action, "signature.expired"));
    expect(expiredEntries.some((e) => e.metadata.signatureId === id)).toBe(true);
    // Visibility may still change.
    expect((await a7(id, { status: "draft" })).status).toBe(200);
  });
});

describe("A3 GET /signature-requests/completed", () => {
  it("is empty until a process completes (completion is covered in signing.test.ts)", async () => {
    await requestSignature(api, org, documentId, "P-A3");
    const res = await api.request("GET", "/signature-requests/completed?patient_id=P-A3", { headers: bearer(org) });
    expect(res).toMatchObject({ status: 200, body: [] });
  });

  it("answers 404 for downloads of unknown, foreign or unfinished requests", async () => {
    const { id } = await requestSignature(api, org, documentId, "P-A3b");
    for (const suffix of ["signed.pdf", "metadata.json"]) {
      const res = await api.request("GET", `/signature-requests/${id}/${suffix}`, { headers: bearer(org) });
      expect(res.status).toBe(404);
      expect(res.body.error.code).toBe("not_found");
      expect((await api.request("GET", `/signature-requests/${id}/${suffix}`, { headers: bearer(other) })).status).toBe(
        404,
      );
      expect((await api.request("GET", `/signature-requests/${id}/${suffix}`)).status).toBe(401);
    }
  });
});

describe("expiry sweep", () => {
  it("marks untouched open requests past their expiry as expired, with an audit entry", async () => {
    const { expireDueRequests } = await import("../jobs/signature-expiry");
    const { id } = await requestSignature(api, org, documentId, "P-sweep");
    const { id: fresh } = await requestSignature(api, org, documentId, "P-sweep");
    await backdateExpiry(api, id);
    expect(await expireDueRequests(api.services)).toBeGreaterThanOrEqual(1);
    const rows = await api.services.db
      .select()
      .from(signatureRequests)
      .where(eq(signatureRequests.patientId, "P-sweep"));
    expect(Object.fromEntries(rows.map((r) => [r.id, r.status]))).toEqual({ [id]: "expired", [fresh]: "pending" });
    const entries = await api.services.db.select().from(auditLog).where(eq(auditLog.action, "signature.expired"));
    expect(entries.find((e) => e.metadata.signatureId === id)).toMatchObject({ actorType: "system" });
  });
});
