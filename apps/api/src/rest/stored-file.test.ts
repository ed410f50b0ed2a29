import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { FormField } from "@clinsign/contracts";
import { eq, formUploads } from "@clinsign/db";
import { startTestApi, type TestApi, type TestOrg } from "../testing/harness";
import { activeTemplate, newSession } from "../testing/forms";
import { S3Storage } from "../core/files/s3-storage";
import { startTestS3, type TestS3 } from "../testing/s3-server";
import { parseRangeHeader } from "./stored-file";

const fields: FormField[] = [
  { id: "1", type: "file", key: "scan", label: "Befund", accept: "application/pdf,image/*", maxSizeMb: 1 },
];
const PDF = Buffer.concat([Buffer.from("%PDF-1.4\n"), Buffer.from("0123456789".repeat(10))]);

let s3: TestS3;
beforeAll(async () => {
  s3 = await startTestS3(["api-files"]);
});
afterAll(() => s3?.close());

async function uploadPdf(api: TestApi, org: TestOrg) {
  const t = await activeTemplate(org, fields);
  const sessionId = await newSession(api, org, t.identifier);
  const form = new FormData();
  form.append("sessionId", sessionId);
  form.append("file", new Blob([new Uint8Array(PDF)], { type: "application/pdf" }), "befund.pdf");
  const res = await fetch(`${api.baseUrl}/api/embed/uploads`, { method: "POST", body: form });
  return { status: res.status, body: (await res.json()) as { files: { url: string; path: string }[] } };
}
const local = (api: TestApi, url: string) => `${api.baseUrl}${new URL(url).pathname}${new URL(url).search}`;

describe.each([
  ["fs", {}],
  ["s3", { STORAGE: "s3" }],
])("signed file downloads with STORAGE=%s", (kind, storageEnv) => {
  let api: TestApi;
  let org: TestOrg;
  beforeAll(async () => {
    api = await startTestApi({ PUBLIC_API_URL: "http://127.0.0.1:1", ...(kind === "s3" && s3.env), ...storageEnv });
    org = await api.createOrg();
  });
  afterAll(() => api?.close());

  it("streams the file whole or one byte range (206, 416), and a missing object is 404", async () => {
    expect(api.services.storage.kind).toBe(kind);
    const uploaded = await uploadPdf(api, org);
    expect(uploaded.status).toBe(200);
    const file = uploaded.body.files[0]!;
    if (kind === "s3")
      expect(await new S3Storage(s3.settings({ bucket: "api-files" })).stat(file.path)).toMatchObject({
        size: PDF.length,
      });
    const url = local(api, file.url);
    const whole = await fetch(url);
    expect(whole.status).toBe(200);
    expect(whole.headers.get("accept-ranges")).toBe("bytes");
    expect(whole.headers.get("content-length")).toBe(String(PDF.length));
    expect(Buffer.from(await whole.arrayBuffer()).equals(PDF)).toBe(true);

    const part = await fetch(url, { headers: { range: "bytes=9-18" } });
    expect(part.status).toBe(206);
    expect(part.headers.get("content-range")).toBe(`bytes 9-18/${PDF.length}`);
    expect(await part.text()).toBe("0123456789");
    const suffix = await fetch(url, { headers: { range: "bytes=-3" } });
    expect(suffix.status).toBe(206);
    expect(await suffix.text()).toBe("789");
    const past = await fetch(url, { headers: { range: `bytes=${PDF.length}-` } });
    expect(past.status).toBe(416);
    expect(past.headers.get("content-range")).toBe(`bytes */${PDF.length}`);

    await api.services.storage.delete(file.path);
    const gone = await fetch(url);
    expect(gone.status).toBe(404);
    expect(await gone.json()).toMatchObject({ ok: false, error: "file not found" });
  });
});

describe("STORAGE=s3 with S3_DOWNLOADS=presigned", () => {
  it("redirects a signed file link to a short-lived bucket URL that serves the bytes", async () => {
    const api = await startTestApi({
      PUBLIC_API_URL: "http://127.0.0.1:1",
      ...s3.env,
      S3_DOWNLOADS: "presigned",
      S3_PRESIGN_SECONDS: "60",
    });
    try {
      const org = await api.createOrg();
      const uploaded = await uploadPdf(api, org);
      const res = await fetch(local(api, uploaded.body.files[0]!.url), { redirect: "manual" });
      expect(res.status).toBe(302);
      const location = res.headers.get("location")!;
      expect(location).toMatch(new RegExp(`^${s3.endpoint}/api-files/form-uploads/`));
      expect(location).toContain("X-Amz-Expires=60");
      const direct = await fetch(location);
      expect(direct.status).toBe(200);
      expect(direct.headers.get("content-disposition")).toContain("befund.pdf");
      expect(Buffer.from(await direct.arrayBuffer()).equals(PDF)).toBe(true);
    } finally {
      await api.close();
    }
  });
});

describe("STORAGE=s3 with a failing endpoint", () => {
  it("answers an upload with a clear 503 and writes no row", async () => {
    const lines: string[] = [];
    const { Writable } = await import("node:stream");
    const sink = new Writable({
      write(chunk, _encoding, done) {
        lines.push(String(chunk));
        done();
      },
    });
    const api = await startTestApi(
      { PUBLIC_API_URL: "http://127.0.0.1:1", ...s3.env, S3_ENDPOINT: "http://127.0.0.1:9" },
      { logSink: sink },
    );
    try {
      const org = await api.createOrg();
      const res = await uploadPdf(api, org);
      expect(res.status).toBe(503);
      expect(res.body).toMatchObject({ ok: false, error: "file storage is unavailable, try again later" });
      expect(JSON.stringify(res.body)).not.toMatch(/stack|S3RVER|127\.0\.0\.1:9/);
      expect(await api.services.db.select().from(formUploads).where(eq(formUploads.organizationId, org.orgId))).toEqual(
        [],
      );
      const log = lines.join("");
      expect(log).toContain("object storage request failed");
      expect(log).not.toContain("S3RVER");
    } finally {
      await api.close();
    }
  });
});

describe("parseRangeHeader", () => {
  it("reads one bytes range and ignores the rest", () => {
    expect(parseRangeHeader("bytes=0-9")).toEqual({ start: 0, end: 9 });
    expect(parseRangeHeader("bytes=5-")).toEqual({ start: 5 });
    expect(parseRangeHeader("bytes=-5")).toEqual({ suffix: 5 });
    expect(parseRangeHeader("bytes=9-2")).toBeUndefined();
    expect(parseRangeHeader("bytes=0-1,4-5")).toBeUndefined();
    expect(parseRangeHeader("items=0-1")).toBeUndefined();
    expect(parseRangeHeader(undefined)).toBeUndefined();
  });
});
