import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { signatureRequests, eq } from "@clinsign/db";
import { logInCookie, startTestApi, type TestApi, type TestOrg } from "../../testing/harness";
import {
  makePdf,
  registerDocument,
  requestSignature,
  startFileServer,
  type FileServer,
} from "../../testing/signature-fixtures";

let api: TestApi;
let files: FileServer;
let org: TestOrg;
let other: TestOrg;
let cookie: string;
let otherCookie: string;

beforeAll(async () => {
  files = await startFileServer();
  api = await startTestApi({ OUTBOUND_ALLOW_HOSTS: files.hostPort });
  org = await api.createOrg("Klinik Nord");
  other = await api.createOrg("Klinik Süd");
  cookie = await logInCookie(api, org.ownerEmail, org.ownerPassword);
  otherCookie = await logInCookie(api, other.ownerEmail, other.ownerPassword);
});
afterAll(async () => {
  await files?.close();
  await api?.close();
});

const A4: [number, number] = [595.28, 841.89];
const field = { page: 2, x: 300, y: 700, width: 200, height: 60 };

/** POST /staff/documents as the browser sends it: the metadata part, then the PDF. */
function upload(
  pdf: Buffer | Uint8Array,
  metadata: unknown,
  options: { cookie?: string; headers?: Record<string, string>; metadataRaw?: string } = {},
) {
  const form = new FormData();
  form.append("metadata", options.metadataRaw ?? JSON.stringify(metadata));
  form.append("file", new Blob([pdf], { type: "application/pdf" }), "einwilligung.pdf");
  return fetch(`${api.baseUrl}/staff/documents`, {
    method: "POST",
    body: form,
    headers: { cookie: options.cookie ?? cookie, ...options.headers },
  });
}

describe("browser upload of a document (POST /staff/documents)", () => {
  it("stores the PDF with its fields as a draft version 1 that staff can fetch back byte for byte", async () => {
    const pdf = await makePdf([A4, A4]);
    const res = await upload(pdf, {
      document_name: "Aufklärung Narkose",
      document_description: "Anästhesie",
      signingfield_koordinates: [field],
    });
    expect(res.status).toBe(201);
    const created = (await res.json()) as { id: string; version: number };
    expect(created.version).toBe(1);

    const client = api.trpc({ cookie });
    const detail = await client.documents.detail.query({ id: created.id });
    expect(detail).toMatchObject({
      name: "Aufklärung Narkose",
      availability: "draft",
      currentVersion: 1,
      pageCount: 2,
      fields: [field],
      description: "Anästhesie",
    });
    expect(detail.versions.map((v) => v.version)).toEqual([1]);

    const back = await fetch(`${api.baseUrl}/staff/documents/${created.id}/pdf`, { headers: { cookie } });
    expect(back.status).toBe(200);
    expect(back.headers.get("content-type")).toBe("application/pdf");
    expect(Buffer.from(await back.arrayBuffer()).equals(pdf)).toBe(true);
    // Another organization's staff cannot read it.
    expect(
      (await fetch(`${api.baseUrl}/staff/documents/${created.id}/pdf`, { headers: { cookie: otherCookie } })).status,
    ).toBe(404);
  });

  it("refuses what A6 refuses, with the field named: not a PDF, a field off the page, bad metadata", async () => {
    const notPdf = await upload(Buffer.from("hello, not a pdf"), {
      document_name: "X",
      signingfield_koordinates: [field],
    });
    expect(notPdf.status).toBe(400);
    expect(((await notPdf.json()) as { error: { message: string } }).error.message).toMatch(/not a PDF/);

    const offPage = await upload(await makePdf([A4]), { document_name: "X", signingfield_koordinates: [field] });
    expect(offPage.status).toBe(400);
    expect(((await offPage.json()) as { error: { message: string } }).error.message).toMatch(/page 2 does not exist/);

    const noName = await upload(await makePdf([A4]), { signingfield_koordinates: [{ ...field, page: 1 }] });
    expect(noName.status).toBe(400);
    expect(((await noName.json()) as { error: { details: { field: string } } }).error.details.field).toBe(
      "document_name",
    );

    const broken = await upload(await makePdf([A4]), null, { metadataRaw: "{not json" });
    expect(broken.status).toBe(400);
  });

  it("needs a staff session and a same-site request, checked before the body is read", async () => {
    const pdf = await makePdf([A4]);
    const meta = { document_name: "X", signingfield_koordinates: [{ ...field, page: 1 }] };
    expect((await upload(pdf, meta, { cookie: "" })).status).toBe(401);
    expect((await upload(pdf, meta, { headers: { "sec-fetch-site": "cross-site" } })).status).toBe(403);
    const tooBig = await fetch(`${api.baseUrl}/staff/documents`, {
      method: "POST",
      headers: {
        cookie,
        "content-type": "multipart/form-data; boundary=x",
        "content-length": String(30 * 1024 * 1024),
      },
      body: "--x--",
    }).catch(() => null);
    // Either the API answered 413 from the declared length, or it closed the connection early.
    if (tooBig) expect(tooBig.status).toBe(413);
  });
});

describe("documents list and detail (staff)", () => {
  it("lists by newest first with search, availability and request counts; foreign documents never", async () => {
    const marker = `Liste-${Date.now()}`;
    const a = await registerDocument(api, files, org, { name: `${marker} Alpha` });
    const b = await registerDocument(api, files, org, { name: `${marker} Beta 100%` });
    await registerDocument(api, files, other, { name: `${marker} Fremd` });
    await requestSignature(api, org, a, "P-1");
    await requestSignature(api, org, a, "P-2");
    const client = api.trpc({ cookie });

    const all = await client.documents.overview.query({ search: marker });
    expect(all.items.map((d) => d.id)).toEqual([b, a]);
    expect(all.items[1]!.requestCounts).toMatchObject({ pending: 2, completed: 0 });
    expect(all.items[1]).toMatchObject({ fieldCount: 1, pageCount: 1, currentVersion: 1, availability: "active" });
    // `%` is a character of the search, not a wildcard.
    expect((await client.documents.overview.query({ search: `${marker} Beta 100%` })).items.map((d) => d.id)).toEqual([
      b,
    ]);
    expect((await client.documents.overview.query({ search: "100%x" })).items).toEqual([]);

    const paged = await client.documents.overview.query({ search: marker, limit: 1 });
    expect(paged.hasMore).toBe(true);
    const second = await client.documents.overview.query({ search: marker, limit: 1, cursor: paged.nextCursor! });
    expect(second.items.map((d) => d.id)).toEqual([a]);
    expect(second.hasMore).toBe(false);

    await client.documents.setAvailability.mutate({ id: b, availability: "inactive" });
    expect(
      (await client.documents.overview.query({ search: marker, availability: "inactive" })).items.map((d) => d.id),
    ).toEqual([b]);
    await expect(client.documents.overview.query({ cursor: "bm9wZQ" })).rejects.toThrow(/cursor/);
  });

  it("says which requests follow a new version and which keep the one they were opened on", async () => {
    const id = await registerDocument(api, files, org, { name: "Versionen" });
    const follows = await requestSignature(api, org, id, "P-follow");
    const keeps = await requestSignature(api, org, id, "P-keep");
    // Opening pins the version (as the signing portal does).
    await api.services.db
      .update(signatureRequests)
      .set({ pinnedVersion: 1, status: "opened" })
      .where(eq(signatureRequests.id, keeps.id));
    const client = api.trpc({ cookie });
    await client.documents.update.mutate({
      id,
      title: "Versionen v2",
      fields: { signature: { page: 1, x: 10, y: 10, width: 100, height: 40 } },
    });

    const detail = await client.documents.detail.query({ id });
    expect(detail.currentVersion).toBe(2);
    expect(detail.title).toBe("Versionen v2");
    expect(detail.versions.map((v) => [v.version, v.pinnedRequests])).toEqual([
      [2, 0],
      [1, 1],
    ]);
    expect(detail.followingRequests).toBe(1);
    expect(detail.pinnedOpenRequests).toBe(1);
    expect(follows.id).not.toBe(keeps.id);
    // An older version's PDF is still there.
    const v1 = await fetch(`${api.baseUrl}/staff/documents/${id}/pdf?version=1`, { headers: { cookie } });
    expect(v1.status).toBe(200);
    expect((await fetch(`${api.baseUrl}/staff/documents/${id}/pdf?version=3`, { headers: { cookie } })).status).toBe(
      404,
    );
    expect((await fetch(`${api.baseUrl}/staff/documents/${id}/pdf?version=abc`, { headers: { cookie } })).status).toBe(
      400,
    );
    await expect(api.trpc({ cookie: otherCookie }).documents.detail.query({ id })).rejects.toThrow(/not found/);
  });
});
