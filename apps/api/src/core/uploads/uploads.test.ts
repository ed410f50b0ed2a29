import { request as httpRequest } from "node:http";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { FormField } from "@clinsign/contracts";
import { and, auditLog, eq, formUploads } from "@clinsign/db";
import { startTestApi, type TestApi, type TestOrg, type TestResponse } from "../../testing/harness";
import { activeTemplate, creds, newSession } from "../../testing/forms";
import { MAX_UPLOAD_REQUEST_BYTES } from "./uploads";

let api: TestApi;
let org: TestOrg;
let other: TestOrg;

const fields: FormField[] = [
  { id: "1", type: "file", key: "scan", label: "Befund", accept: "application/pdf,image/*", maxSizeMb: 1 },
  { id: "2", type: "text", key: "note", label: "Notiz" },
];
const PDF = Buffer.concat([Buffer.from("%PDF-1.4\n"), Buffer.alloc(100, 0x20)]);
const PNG = Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), Buffer.alloc(50)]);

beforeAll(async () => {
  api = await startTestApi({ PUBLIC_API_URL: "http://127.0.0.1:1" });
  org = await api.createOrg("Klinik Nord");
  other = await api.createOrg("Klinik Süd");
});
afterAll(() => api?.close());

async function upload(
  fieldsIn: Record<string, string>,
  files: { name: string; type: string; bytes: Buffer }[],
): Promise<Pick<TestResponse, "status" | "body">> {
  const form = new FormData();
  for (const [k, v] of Object.entries(fieldsIn)) form.append(k, v);
  for (const f of files) form.append("file", new Blob([new Uint8Array(f.bytes)], { type: f.type }), f.name);
  const res = await fetch(`${api.baseUrl}/api/embed/uploads`, { method: "POST", body: form });
  return { status: res.status, body: await res.json() };
}
/** The signed URL points at PUBLIC_API_URL; fetch the same path from the test server. */
const local = (url: string) => `${api.baseUrl}${new URL(url).pathname}${new URL(url).search}`;

describe("POST /api/embed/uploads", () => {
  it("stores files privately, answers signed expiring URLs and audits file.uploaded", async () => {
    const t = await activeTemplate(org, fields);
    const sessionId = await newSession(api, org, t.identifier);
    const res = await upload({ sessionId }, [
      { name: "befund.pdf", type: "application/pdf", bytes: PDF },
      { name: "foto.png", type: "image/png", bytes: PNG },
    ]);
    expect(res.status).toBe(200);
    expect(res.body.ok).toBe(true);
    expect(res.body.files).toEqual([
      {
        name: "befund.pdf",
        path: expect.stringMatching(/^form-uploads\//),
        url: expect.stringMatching(/^http:\/\/127\.0\.0\.1:1\/api\/embed\/files\//),
        size: PDF.length,
        type: "application/pdf",
      },
      { name: "foto.png", path: expect.any(String), url: expect.any(String), size: PNG.length, type: "image/png" },
    ]);
    const download = await fetch(local(res.body.files[0].url));
    expect(download.status).toBe(200);
    expect(download.headers.get("content-type")).toBe("application/pdf");
    expect(download.headers.get("content-disposition")).toContain("attachment");
    expect(Buffer.from(await download.arrayBuffer()).equals(PDF)).toBe(true);
    // Tampered or unsigned links are refused; the bytes are never public.
    const tampered = new URL(local(res.body.files[0].url));
    tampered.searchParams.set("exp", String(Number(tampered.searchParams.get("exp")) + 10));
    expect((await fetch(tampered)).status).toBe(401);
    expect((await fetch(`${api.baseUrl}${tampered.pathname}`)).status).toBe(401);
    const [entry] = await api.services.db
      .select()
      .from(auditLog)
      .where(and(eq(auditLog.templateIdentifier, t.identifier), eq(auditLog.action, "file.uploaded")));
    expect(entry).toMatchObject({
      actorType: "embed_session",
      metadata: { fieldKey: "scan", files: [{ name: "befund.pdf" }, { name: "foto.png" }] },
    });

    // The uploaded file is accepted as an attachment value by F10.
    const submit = await api.request("POST", "/api/embed/submit", {
      body: { sessionId, values: { scan: [res.body.files[0]] } },
    });
    expect(submit.status).toBe(200);
  });

  it("answers 400, not 500, to a body that ends in the middle of a file", async () => {
    const t = await activeTemplate(org, fields);
    const sessionId = await newSession(api, org, t.identifier);
    const boundary = "----cut";
    const head = `--${boundary}\r\ncontent-disposition: form-data; name="sessionId"\r\n\r\n${sessionId}\r\n--${boundary}\r\ncontent-disposition: form-data; name="file"; filename="a.pdf"\r\n`;
    const send = (body: string) =>
      fetch(`${api.baseUrl}/api/embed/uploads`, {
        method: "POST",
        headers: { "content-type": `multipart/form-data; boundary=${boundary}` },
        body,
      });
    const cut = await send(`${head}content-type: application/pdf\r\n\r\n%PDF-1.4 and then nothing`);
    expect(cut.status).toBe(400);
    // Whichever notices first, the parser (malformed body) or the file's reader (ended mid-file).
    expect(((await cut.json()) as { error: string }).error).toMatch(/malformed multipart body|ended in the middle/);
  });

  it("refuses files larger than the field allows (413), wrong types and fake PDFs (400)", async () => {
    const t = await activeTemplate(org, fields);
    const sessionId = await newSession(api, org, t.identifier);
    const big = await upload({ sessionId }, [
      { name: "big.pdf", type: "application/pdf", bytes: Buffer.concat([PDF, Buffer.alloc(1024 * 1024)]) },
    ]);
    expect(big.status).toBe(413);
    expect(big.body.ok).toBe(false);
    const text = await upload({ sessionId }, [{ name: "notes.txt", type: "text/plain", bytes: Buffer.from("hello") }]);
    expect(text.status).toBe(400);
    expect(text.body.error).toContain("not accepted");
    const fake = await upload({ sessionId }, [
      { name: "evil.pdf", type: "application/pdf", bytes: Buffer.from("<html>") },
    ]);
    expect(fake.status).toBe(400);
    expect(fake.body.error).toContain("not a valid application/pdf");
    expect((await upload({ sessionId }, [])).status).toBe(400);
    expect(
      (await upload({ sessionId, fieldKey: "note" }, [{ name: "a.pdf", type: "application/pdf", bytes: PDF }])).status,
    ).toBe(400);
    const json = await api.request("POST", "/api/embed/uploads", { body: { sessionId } });
    expect(json.status).toBe(415);
    expect(
      await api.services.db.select().from(formUploads).where(eq(formUploads.templateIdentifier, t.identifier)),
    ).toEqual([]);
  });

  it("takes any file for a field whose accept is */*, and the submission takes it too", async () => {
    const t = await activeTemplate(org, [
      { id: "1", type: "file", key: "scan", label: "Anything", accept: "*/*", maxSizeMb: 1 },
    ]);
    const sessionId = await newSession(api, org, t.identifier);
    const res = await upload({ sessionId }, [
      { name: "notes.txt", type: "text/plain", bytes: Buffer.from("hello") },
      { name: "data", type: "", bytes: Buffer.from([1, 2, 3]) },
    ]);
    expect(res.status).toBe(200);
    expect(res.body.files.map((f: { type: string }) => f.type)).toEqual(["text/plain", "application/octet-stream"]);
    const submit = await api.request("POST", "/api/embed/submit", {
      body: { sessionId, values: { scan: res.body.files } },
    });
    expect(submit.status).toBe(200);
  });

  it("a file counts only for the organization and template it was uploaded for", async () => {
    const t = await activeTemplate(org, fields);
    const second = await activeTemplate(org, fields, "Second");
    const uploaded = await upload({ ...creds(org), templateIdentifier: t.identifier }, [
      { name: "a.pdf", type: "application/pdf", bytes: PDF },
    ]);
    expect(uploaded.status).toBe(200);
    const file = uploaded.body.files[0];
    const wrongTemplate = await api.request("POST", "/api/embed/submit", {
      body: { ...creds(org), templateIdentifier: second.identifier, values: { scan: [file] } },
    });
    expect(wrongTemplate.status).toBe(400);
    expect(wrongTemplate.body.fieldErrors).toEqual([
      { key: "scan", message: "references a file that was not uploaded for this form" },
    ]);
    const liedSize = await api.request("POST", "/api/embed/submit", {
      body: { ...creds(org), templateIdentifier: t.identifier, values: { scan: [{ ...file, size: 1 }] } },
    });
    expect(liedSize.body.fieldErrors).toEqual([{ key: "scan", message: "does not match the uploaded file" }]);
    const theirs = await activeTemplate(other, fields);
    const foreign = await api.request("POST", "/api/embed/submit", {
      body: { ...creds(other), templateIdentifier: theirs.identifier, values: { scan: [file] } },
    });
    expect(foreign.status).toBe(400);
    expect(
      (
        await upload({ ...creds(other), templateIdentifier: t.identifier }, [
          { name: "a.pdf", type: "application/pdf", bytes: PDF },
        ])
      ).status,
    ).toBe(404);
    expect(
      (
        await upload({ token: other.token, orgId: org.orgId, templateIdentifier: t.identifier }, [
          { name: "a.pdf", type: "application/pdf", bytes: PDF },
        ])
      ).status,
    ).toBe(401);
    expect(
      (await upload({ sessionId: "fs_bad" }, [{ name: "a.pdf", type: "application/pdf", bytes: PDF }])).status,
    ).toBe(401);
  });

  it("signed URLs expire", async () => {
    const { signedFileUrl } = await import("./uploads");
    const t = await activeTemplate(org, fields);
    const uploaded = await upload({ ...creds(org), templateIdentifier: t.identifier }, [
      { name: "a.pdf", type: "application/pdf", bytes: PDF },
    ]);
    const expired = signedFileUrl(org.ctx, uploaded.body.files[0].path, -1);
    const res = await fetch(local(expired));
    expect(res.status).toBe(401);
    expect(((await res.json()) as { error: string }).error).toBe("this file link has expired");
    const fresh = signedFileUrl(org.ctx, uploaded.body.files[0].path, 60);
    expect((await fetch(local(fresh))).status).toBe(200);
    // Signed for one organization, the same key under another organization's id is refused.
    expect((await fetch(local(fresh).replace(org.orgId, other.orgId))).status).toBe(401);
  });
});

/**
 * A multipart upload written by hand over one connection: text fields, then one file part of
 * `fileBytes` zero bytes sent in 64 KiB chunks, stopping as soon as the server answers or closes.
 * `sent` tells how much of the body had gone out by then.
 */
function rawUpload(options: {
  fields?: Record<string, string>;
  fileBytes: number;
  search?: string;
  headers?: Record<string, string>;
}) {
  const boundary = "----clinsign-test-boundary";
  const preamble = Buffer.from(
    Object.entries(options.fields ?? {})
      .map(([k, v]) => `--${boundary}\r\ncontent-disposition: form-data; name="${k}"\r\n\r\n${v}\r\n`)
      .join("") +
      `--${boundary}\r\ncontent-disposition: form-data; name="file"; filename="big.pdf"\r\ncontent-type: application/pdf\r\n\r\n`,
  );
  const ending = Buffer.from(`\r\n--${boundary}--\r\n`);
  const total = preamble.length + options.fileBytes + ending.length;
  return new Promise<{ status: number | null; body: string; sent: number }>((resolve) => {
    let sent = 0;
    let answered = false;
    let status: number | null = null;
    let body = "";
    const req = httpRequest(`${api.baseUrl}/api/embed/uploads${options.search ?? ""}`, {
      method: "POST",
      headers: {
        "content-type": `multipart/form-data; boundary=${boundary}`,
        "content-length": String(total),
        ...options.headers,
      },
    });
    const finish = () => resolve({ status, body, sent });
    req.on("response", (res) => {
      answered = true;
      status = res.statusCode ?? null;
      res.on("data", (chunk) => (body += chunk));
      res.on("end", finish);
      res.on("error", finish);
    });
    req.on("error", () => !answered && finish());
    const chunk = Buffer.alloc(64 * 1024);
    const pump = () => {
      while (!answered && !req.destroyed && sent < options.fileBytes) {
        const piece = chunk.subarray(0, Math.min(chunk.length, options.fileBytes - sent));
        sent += piece.length;
        if (!req.write(piece)) return void req.once("drain", pump);
      }
      if (!answered && !req.destroyed && sent >= options.fileBytes) req.end(ending);
    };
    req.write(preamble);
    pump();
  });
}

describe("uploads from strangers and oversized uploads", () => {
  const FILE_BYTES = 30 * 1024 * 1024;

  it("authenticates before reading the file: 401 while the body is still arriving", async () => {
    const bodyCredentials = await rawUpload({ fields: { sessionId: "fs_bad" }, fileBytes: FILE_BYTES });
    expect(bodyCredentials.status).toBe(401);
    expect(JSON.parse(bodyCredentials.body)).toMatchObject({ ok: false });
    expect(bodyCredentials.sent).toBeLessThan(FILE_BYTES);
    const none = await rawUpload({ fileBytes: FILE_BYTES });
    expect(none.status).toBe(401);
    expect(none.sent).toBeLessThan(FILE_BYTES);
    // Credentials in the header or the query are checked before any of the body is read.
    const header = await rawUpload({ headers: { "x-session-id": "fs_bad" }, fileBytes: FILE_BYTES });
    expect(header.status).toBe(401);
    expect(header.sent).toBeLessThan(FILE_BYTES);
    const query = await rawUpload({ search: `?token=cs_bad&orgId=${org.orgId}`, fileBytes: FILE_BYTES });
    expect(query.status).toBe(401);
  });

  it("answers 413 at the first part over its field's limit, and for a request over the total cap", async () => {
    const t = await activeTemplate(org, fields);
    const sessionId = await newSession(api, org, t.identifier);
    const over = await rawUpload({ headers: { "x-session-id": sessionId }, fileBytes: FILE_BYTES });
    expect(over.status).toBe(413);
    expect(JSON.parse(over.body).error).toContain("larger than 1 MB");
    expect(over.sent).toBeLessThan(FILE_BYTES);
    const huge = await rawUpload({ headers: { "x-session-id": sessionId }, fileBytes: MAX_UPLOAD_REQUEST_BYTES + 1 });
    expect(huge.status).toBe(413);
    expect(huge.sent).toBeLessThan(FILE_BYTES);
    expect(
      await api.services.db.select().from(formUploads).where(eq(formUploads.templateIdentifier, t.identifier)),
    ).toEqual([]);
    // The session still works for a file within the limit, sent with the credentials in the header.
    const fine = await fetch(`${api.baseUrl}/api/embed/uploads`, {
      method: "POST",
      headers: { "x-session-id": sessionId },
      body: (() => {
        const form = new FormData();
        form.append("file", new Blob([new Uint8Array(PDF)], { type: "application/pdf" }), "ok.pdf");
        return form;
      })(),
    });
    expect(fine.status).toBe(200);
  });

  it("keeps the process's memory flat under 20 concurrent unauthenticated 100 MB uploads", async () => {
    const samples: number[] = [];
    global.gc?.();
    const before = process.memoryUsage().rss;
    const sampler = setInterval(() => samples.push(process.memoryUsage().rss), 20);
    const results = await Promise.all(
      Array.from({ length: 20 }, () => rawUpload({ fields: { sessionId: "fs_bad" }, fileBytes: 100_000_000 })),
    );
    clearInterval(sampler);
    samples.push(process.memoryUsage().rss);
    const growthMiB = (Math.max(...samples) - before) / 1024 / 1024;
    expect(results.every((r) => r.status === 401 || r.status === null)).toBe(true);
    expect(results.reduce((sum, r) => sum + r.sent, 0)).toBeLessThan(20 * 100_000_000);
    expect(growthMiB, `RSS grew by ${growthMiB.toFixed(1)} MiB`).toBeLessThan(50);
  });
});
