import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { FormField } from "@clinsign/contracts";
import { and, auditLog, eq, formUploads } from "@clinsign/db";
import { startTestApi, type TestApi, type TestOrg, type TestResponse } from "../../testing/harness";
import { activeTemplate, creds, newSession } from "../../testing/forms";

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

async function upload(fieldsIn: Record<string, string>, files: { name: string; type: string; bytes: Buffer }[]): Promise<Pick<TestResponse, "status" | "body">> {
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
      { name: "befund.pdf", path: expect.stringMatching(/^form-uploads\//), url: expect.stringMatching(/^http:\/\/127\.0\.0\.1:1\/api\/embed\/files\//), size: PDF.length, type: "application/pdf" },
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
    expect(entry).toMatchObject({ actorType: "session", metadata: { fieldKey: "scan", files: [{ name: "befund.pdf" }, { name: "foto.png" }] } });

    // The uploaded file is accepted as an attachment value by F10.
    const submit = await api.request("POST", "/api/embed/submit", { body: { sessionId, values: { scan: [res.body.files[0]] } } });
    expect(submit.status).toBe(200);
  });

  it("refuses files larger than the field allows (413), wrong types and fake PDFs (400)", async () => {
    const t = await activeTemplate(org, fields);
    const sessionId = await newSession(api, org, t.identifier);
    const big = await upload({ sessionId }, [{ name: "big.pdf", type: "application/pdf", bytes: Buffer.concat([PDF, Buffer.alloc(1024 * 1024)]) }]);
    expect(big.status).toBe(413);
    expect(big.body.ok).toBe(false);
    const text = await upload({ sessionId }, [{ name: "notes.txt", type: "text/plain", bytes: Buffer.from("hello") }]);
    expect(text.status).toBe(400);
    expect(text.body.error).toContain("not accepted");
    const fake = await upload({ sessionId }, [{ name: "evil.pdf", type: "application/pdf", bytes: Buffer.from("<html>") }]);
    expect(fake.status).toBe(400);
    expect(fake.body.error).toContain("not a valid application/pdf");
    expect((await upload({ sessionId }, [])).status).toBe(400);
    expect((await upload({ sessionId, fieldKey: "note" }, [{ name: "a.pdf", type: "application/pdf", bytes: PDF }])).status).toBe(400);
    const json = await api.request("POST", "/api/embed/uploads", { body: { sessionId } });
    expect(json.status).toBe(415);
    expect(await api.services.db.select().from(formUploads).where(eq(formUploads.templateIdentifier, t.identifier))).toEqual([]);
  });

  it("a file counts only for the organization and template it was uploaded for", async () => {
    const t = await activeTemplate(org, fields);
    const second = await activeTemplate(org, fields, "Second");
    const uploaded = await upload({ ...creds(org), templateIdentifier: t.identifier }, [{ name: "a.pdf", type: "application/pdf", bytes: PDF }]);
    expect(uploaded.status).toBe(200);
    const file = uploaded.body.files[0];
    const wrongTemplate = await api.request("POST", "/api/embed/submit", { body: { ...creds(org), templateIdentifier: second.identifier, values: { scan: [file] } } });
    expect(wrongTemplate.status).toBe(400);
    expect(wrongTemplate.body.fieldErrors).toEqual([{ key: "scan", message: "references a file that was not uploaded for this form" }]);
    const liedSize = await api.request("POST", "/api/embed/submit", { body: { ...creds(org), templateIdentifier: t.identifier, values: { scan: [{ ...file, size: 1 }] } } });
    expect(liedSize.body.fieldErrors).toEqual([{ key: "scan", message: "does not match the uploaded file" }]);
    const theirs = await activeTemplate(other, fields);
    const foreign = await api.request("POST", "/api/embed/submit", { body: { ...creds(other), templateIdentifier: theirs.identifier, values: { scan: [file] } } });
    expect(foreign.status).toBe(400);
    expect((await upload({ ...creds(other), templateIdentifier: t.identifier }, [{ name: "a.pdf", type: "application/pdf", bytes: PDF }])).status).toBe(404);
    expect((await upload({ token: other.token, orgId: org.orgId, templateIdentifier: t.identifier }, [{ name: "a.pdf", type: "application/pdf", bytes: PDF }])).status).toBe(401);
    expect((await upload({ sessionId: "fs_bad" }, [{ name: "a.pdf", type: "application/pdf", bytes: PDF }])).status).toBe(401);
  });

  it("signed URLs expire", async () => {
    const { signedFileUrl } = await import("./uploads");
    const t = await activeTemplate(org, fields);
    const uploaded = await upload({ ...creds(org), templateIdentifier: t.identifier }, [{ name: "a.pdf", type: "application/pdf", bytes: PDF }]);
    const expired = signedFileUrl(api.services, org.orgId, uploaded.body.files[0].path, -1);
    const res = await fetch(local(expired));
    expect(res.status).toBe(401);
    expect(((await res.json()) as { error: string }).error).toBe("this file link has expired");
    const fresh = signedFileUrl(api.services, org.orgId, uploaded.body.files[0].path, 60);
    expect((await fetch(local(fresh))).status).toBe(200);
    // Signed for one organization, the same key under another organization's id is refused.
    expect((await fetch(local(fresh).replace(org.orgId, other.orgId))).status).toBe(401);
  });
});
