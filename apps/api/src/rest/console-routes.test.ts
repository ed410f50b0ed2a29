import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { logInCookie, startTestApi, type TestApi, type TestOrg } from "../testing/harness";
import { makePdf } from "../testing/signature-fixtures";

let api: TestApi;
let org: TestOrg;
let cookie: string;

beforeAll(async () => {
  api = await startTestApi();
  org = await api.createOrg("Klinik Ost");
  cookie = await logInCookie(api, org.ownerEmail, org.ownerPassword);
});
afterAll(() => api?.close());

const get = (path: string, init: RequestInit = {}) =>
  fetch(`${api.baseUrl}${path}`, { ...init, headers: { cookie, ...(init.headers as Record<string, string>) } });

const FIELD = { page: 1, x: 300, y: 700, width: 200, height: 60 };

async function uploadDocument(): Promise<string> {
  const form = new FormData();
  form.append("metadata", JSON.stringify({ document_name: "Aufklärung", signingfield_koordinates: [FIELD] }));
  form.append("file", new Blob([await makePdf([[595.28, 841.89]])], { type: "application/pdf" }), "a.pdf");
  const res = await fetch(`${api.baseUrl}/staff/documents`, { method: "POST", headers: { cookie }, body: form });
  expect(res.status).toBe(201);
  return ((await res.json()) as { id: string }).id;
}

describe("the console's file routes in the route table", () => {
  it("answers another method on a console path 404 in area A's envelope, not 405", async () => {
    for (const [method, path] of [
      ["DELETE", "/staff/documents"],
      ["POST", "/staff/submissions/export"],
      ["HEAD", "/staff/audit-log/export"],
      ["PUT", "/branding/logos/x"],
    ] as const) {
      const res = await get(path, { method });
      expect(res.status, `${method} ${path}`).toBe(404);
      expect(res.headers.get("allow"), `${method} ${path}`).toBeNull();
      if (method !== "HEAD")
        expect(await res.json()).toMatchObject({ error: { code: "not_found", message: "no such endpoint" } });
    }
  });

  it("matches path parameters by their pattern and takes no trailing slash as an alias", async () => {
    for (const path of ["/staff/documents/not-a-uuid/pdf", "/staff/submissions/x/pdf", "/staff/submissions/export/"]) {
      const res = await get(path);
      expect(res.status, path).toBe(404);
      expect(await res.json()).toMatchObject({ error: { code: "not_found", message: "no such endpoint" } });
    }
  });

  it("serves a document's PDF for GET and its headers for HEAD, with the id in either case", async () => {
    const id = await uploadDocument();
    const head = await get(`/staff/documents/${id.toUpperCase()}/pdf`, { method: "HEAD" });
    expect(head.status).toBe(200);
    expect(head.headers.get("content-type")).toBe("application/pdf");
    expect(head.headers.get("content-disposition")).toBe(`inline; filename="document-${id}-v1.pdf"`);
    expect(head.headers.get("x-document-version")).toBe("1");
    const body = await get(`/staff/documents/${id}/pdf?version=`);
    const whole = Buffer.from(await body.arrayBuffer());
    expect(Number(body.headers.get("content-length"))).toBe(whole.length);
    // Streamed from storage, one byte range when asked (pdf.js reads large PDFs in ranges).
    const range = await get(`/staff/documents/${id}/pdf`, { headers: { range: "bytes=0-7" } });
    expect(range.status).toBe(206);
    expect(range.headers.get("content-range")).toBe(`bytes 0-7/${whole.length}`);
    expect(Buffer.from(await range.arrayBuffer()).equals(whole.subarray(0, 8))).toBe(true);
    const bad = await get(`/staff/documents/${id}/pdf?version=1.5`);
    expect(bad.status).toBe(400);
    expect(await bad.json()).toMatchObject({
      error: { code: "invalid_request", message: "version: must be a whole number", details: { field: "version" } },
    });
  });

  it("names the metadata's problems as before: missing, not JSON, a field of it", async () => {
    const send = async (metadata: string | null) => {
      const form = new FormData();
      if (metadata !== null) form.append("metadata", metadata);
      form.append("file", new Blob([await makePdf([[595.28, 841.89]])], { type: "application/pdf" }), "a.pdf");
      const res = await fetch(`${api.baseUrl}/staff/documents`, { method: "POST", headers: { cookie }, body: form });
      expect(res.status).toBe(400);
      return ((await res.json()) as { error: { message: string; details: { field: string } } }).error;
    };
    expect(await send(null)).toMatchObject({
      message: "metadata: is required (a JSON part sent before the file)",
      details: { field: "metadata" },
    });
    expect(await send("{")).toMatchObject({ message: "metadata: is not valid JSON", details: { field: "metadata" } });
    expect(await send("5")).toMatchObject({ details: { field: "metadata" } });
    expect((await send("5")).message).toMatch(/^metadata: /);
    expect(await send(JSON.stringify({ signingfield_koordinates: [] }))).toMatchObject({
      details: { field: "document_name" },
    });
  });

  it("checks the staff cookie before the body, and closes the connection on a refused upload", async () => {
    const res = await fetch(`${api.baseUrl}/staff/documents`, {
      method: "POST",
      headers: { "content-type": "multipart/form-data; boundary=x" },
      body: "--x--\r\n",
    });
    expect(res.status).toBe(401);
    expect(res.headers.get("connection")).toBe("close");
  });
});
