import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { auditLog, desc, documentVersions, eq } from "@clinsign/db";
import { startTestApi, type TestApi, type TestOrg } from "../../testing/harness";
import {
  bearer,
  makePdf,
  registerDocument,
  requestSignature,
  startFileServer,
  type FileServer,
} from "../../testing/signature-fixtures";
import { sha256Hex } from "../crypto";

let api: TestApi;
let files: FileServer;
let org: TestOrg;
let other: TestOrg;

beforeAll(async () => {
  files = await startFileServer();
  api = await startTestApi({ OUTBOUND_ALLOW_HOSTS: files.hostPort });
  org = await api.createOrg("Klinik Nord");
  other = await api.createOrg("Klinik Süd");
});
afterAll(async () => {
  await api?.close();
  await files?.close();
});

const field = { page: 1, x: 50, y: 600, width: 200, height: 60 };

async function a6(body: Record<string, unknown>, o: TestOrg = org) {
  return api.request("POST", "/documents", {
    headers: bearer(o),
    body: { document_name: "Einwilligung", signingfield_koordinates: field, ...body },
  });
}

describe("A6 POST /documents", () => {
  it("fetches, checks and stores the PDF with its SHA-256, and answers 201", async () => {
    const pdf = await makePdf([
      [595.28, 841.89],
      [612, 792],
    ]);
    files.set("/consent.pdf", pdf);
    const url = `${files.origin}/consent.pdf`;
    const res = await a6({
      document_description: "Aufklärung OP",
      account_name: "acct-1",
      document_bloburl: url,
      signingfield_koordinates: [field, { ...field, page: 2 }],
    });
    expect(res.status).toBe(201);
    expect(res.body).toEqual({
      document_name: "Einwilligung",
      document_id: expect.stringMatching(/^[0-9a-f-]{36}$/),
      document_bloburl: url,
    });
    const [version] = await api.services.db
      .select()
      .from(documentVersions)
      .where(eq(documentVersions.documentId, res.body.document_id));
    expect(version).toMatchObject({
      version: 1,
      pageCount: 2,
      sha256: sha256Hex(pdf),
      size: pdf.length,
      title: "Einwilligung",
      description: "Aufklärung OP",
    });
    expect(version!.pageSizes).toEqual([
      { width: 595.28, height: 841.89 },
      { width: 612, height: 792 },
    ]);
    const stored = await api.services.storage.get(version!.storageKey);
    expect(sha256Hex(stored!)).toBe(sha256Hex(pdf));
    const [entry] = await api.services.db
      .select()
      .from(auditLog)
      .where(eq(auditLog.organizationId, org.orgId))
      .orderBy(desc(auditLog.seq))
      .limit(1);
    expect(entry).toMatchObject({
      action: "document.created",
      actorType: "api_key",
      metadata: expect.objectContaining({ documentId: res.body.document_id }),
    });
    expect(entry!.ip).toMatch(/127\.0\.0\.1/);
    expect(entry!.userAgent).toBeTruthy();
  });

  it("answers 400 invalid_request naming the field for each missing or malformed input", async () => {
    files.set("/ok.pdf", await makePdf());
    const url = `${files.origin}/ok.pdf`;
    const cases: [Record<string, unknown>, string][] = [
      [{ document_bloburl: url, document_name: undefined }, "document_name"],
      [{ document_bloburl: url, document_name: "" }, "document_name"],
      [{}, "document_bloburl"],
      [{ document_bloburl: "not a url" }, "document_bloburl"],
      [{ document_bloburl: "ftp://example.org/x.pdf" }, "document_bloburl"],
      [{ document_bloburl: url, signingfield_koordinates: undefined }, "signingfield_koordinates"],
      [{ document_bloburl: url, signingfield_koordinates: "here" }, "signingfield_koordinates"],
      [{ document_bloburl: url, signingfield_koordinates: { ...field, width: -5 } }, "signingfield_koordinates"],
      [{ document_bloburl: url, signingfield_koordinates: { ...field, page: 0 } }, "signingfield_koordinates"],
      [{ document_bloburl: url, signingfield_koordinates: { ...field, colour: "red" } }, "signingfield_koordinates"],
      [{ document_bloburl: url, signingfield_koordinates: [] }, "signingfield_koordinates"],
    ];
    for (const [body, fieldName] of cases) {
      const res = await a6(body);
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(res.body.error).toMatchObject({
        code: "invalid_request",
        message: expect.any(String),
        details: { field: fieldName },
      });
    }
  });

  it("refuses fields outside the page or on a page that does not exist", async () => {
    files.set("/one.pdf", await makePdf([[595.28, 841.89]]));
    const url = `${files.origin}/one.pdf`;
    const offPage = await a6({ document_bloburl: url, signingfield_koordinates: { ...field, page: 2 } });
    expect(offPage.status).toBe(400);
    expect(offPage.body.error.details.field).toBe("signingfield_koordinates");
    expect(offPage.body.error.message).toContain("page 2 does not exist");
    const tooWide = await a6({ document_bloburl: url, signingfield_koordinates: { ...field, x: 500, width: 200 } });
    expect(tooWide.status).toBe(400);
    expect(tooWide.body.error.message).toContain("does not fit page 1");
    const tooLow = await a6({ document_bloburl: url, signingfield_koordinates: [field, { ...field, y: 800 }] });
    expect(tooLow.status).toBe(400);
    expect(tooLow.body.error.message).toContain("field 2");
  });

  it("refuses a URL that is not a PDF, a 404, an oversized file and a damaged PDF", async () => {
    files.set("/page.html", Buffer.from("<html>hi</html>"), "text/html");
    const html = await a6({ document_bloburl: `${files.origin}/page.html` });
    expect(html.status).toBe(400);
    expect(html.body.error).toMatchObject({
      details: { field: "document_bloburl" },
      message: expect.stringContaining("not a PDF"),
    });
    const missing = await a6({ document_bloburl: `${files.origin}/nothing.pdf` });
    expect(missing.status).toBe(400);
    expect(missing.body.error.message).toContain("404");
    files.set("/broken.pdf", Buffer.from("%PDF-1.7\nthis is not really a pdf"));
    const broken = await a6({ document_bloburl: `${files.origin}/broken.pdf` });
    expect(broken.status).toBe(400);
    expect(broken.body.error.message).toContain("could not be read");
    files.set("/huge.pdf", (_req, res) => {
      res.writeHead(200, { "content-type": "application/pdf", "content-length": String(21 * 1024 * 1024) });
      res.end();
    });
    const huge = await a6({ document_bloburl: `${files.origin}/huge.pdf` });
    expect(huge.status).toBe(400);
    expect(huge.body.error.message).toContain("exceeds 20 MB");
  });

  it("refuses loopback and private URLs that are not allow-listed (SSRF), also behind a redirect", async () => {
    const port = files.hostPort.split(":")[1];
    // 127.0.0.1 on another port than the allow-listed file server: not allow-listed.
    const loopbackHttps = await a6({ document_bloburl: `https://127.0.0.1:9/ok.pdf` });
    expect(loopbackHttps.status).toBe(400);
    expect(loopbackHttps.body.error).toMatchObject({
      details: { field: "document_bloburl", reason: "blocked_address" },
    });
    const byName = await a6({ document_bloburl: `https://localhost:${port}/ok.pdf` });
    expect(byName.status).toBe(400);
    expect(byName.body.error.details.reason).toBe("blocked_address");
    const metadata = await a6({ document_bloburl: "https://169.254.169.254/latest/meta-data" });
    expect(metadata.body.error.details.reason).toBe("blocked_address");
    const plainHttp = await a6({ document_bloburl: `http://localhost:${port}/ok.pdf` });
    expect(plainHttp.status).toBe(400);
    expect(plainHttp.body.error.details.reason).toBe("invalid_url");
    files.set("/redirect.pdf", (_req, res) => {
      res.writeHead(302, { location: `https://localhost:${port}/ok.pdf` }).end();
    });
    const redirected = await a6({ document_bloburl: `${files.origin}/redirect.pdf` });
    expect(redirected.status).toBe(400);
    expect(redirected.body.error.details.reason).toBe("blocked_address");
  });

  it("needs a valid bearer token (401) and refuses other media types (415)", async () => {
    const none = await api.request("POST", "/documents", { body: { document_name: "x" } });
    expect(none.status).toBe(401);
    expect(none.body.error.code).toBe("unauthorized");
    const wrong = await api.request("POST", "/documents", { headers: { authorization: "Bearer cs_nope" }, body: {} });
    expect(wrong.status).toBe(401);
    const form = await api.request("POST", "/documents", {
      headers: { ...bearer(org), "content-type": "text/plain" },
      body: "x",
    });
    expect(form.status).toBe(415);
    expect(form.body.error.code).toBe("unsupported_media_type");
  });
});

describe("A8 PUT /documents/{id}", () => {
  it("creates a new version with the changed title, description and fields", async () => {
    const id = await registerDocument(api, files, org);
    const res = await api.request("PUT", `/documents/${id}`, {
      headers: bearer(org),
      body: {
        document_id: id,
        title: "Einwilligung v2",
        description: "neu",
        fields: { signature: { page: 1, x: 300, y: 700, width: 150, height: 50 } },
      },
    });
    expect(res).toMatchObject({ status: 200, body: { id, modified: true } });
    const versions = await api.services.db
      .select()
      .from(documentVersions)
      .where(eq(documentVersions.documentId, id))
      .orderBy(documentVersions.version);
    expect(versions.map((v) => [v.version, v.title, v.description])).toEqual([
      [1, "Einwilligung", "Aufklärung"],
      [2, "Einwilligung v2", "neu"],
    ]);
    expect(versions[1]!.fields).toEqual([{ page: 1, x: 300, y: 700, width: 150, height: 50 }]);
    expect(versions[1]!.sha256).toBe(versions[0]!.sha256);
    const titleOnly = await api.request("PUT", `/documents/${id}`, { headers: bearer(org), body: { title: "v3" } });
    expect(titleOnly.status).toBe(200);
  });

  it("treats fields: {} as no change to the fields", async () => {
    const id = await registerDocument(api, files, org);
    const res = await api.request("PUT", `/documents/${id}`, {
      headers: bearer(org),
      body: { title: "Neu", description: "d", fields: {} },
    });
    expect(res).toMatchObject({ status: 200, body: { id, modified: true } });
    const versions = await api.services.db
      .select()
      .from(documentVersions)
      .where(eq(documentVersions.documentId, id))
      .orderBy(documentVersions.version);
    expect(versions.map((v) => [v.version, v.title, v.fields])).toEqual([
      [1, "Einwilligung", [field]],
      [2, "Neu", [field]],
    ]);
    // With nothing else to change it is still "send at least one of …".
    expect((await api.request("PUT", `/documents/${id}`, { headers: bearer(org), body: { fields: {} } })).status).toBe(
      400,
    );
  });

  it("validates: fields inside the page, document_id equal to the path, something to change; 404 for unknown or foreign ids", async () => {
    const id = await registerDocument(api, files, org);
    const outside = await api.request("PUT", `/documents/${id}`, {
      headers: bearer(org),
      body: { fields: { signature: { page: 1, x: 500, y: 0, width: 200, height: 10 } } },
    });
    expect(outside.status).toBe(400);
    expect(outside.body.error.details.field).toBe("fields");
    const badShape = await api.request("PUT", `/documents/${id}`, {
      headers: bearer(org),
      body: { fields: { signature: { page: 1 } } },
    });
    expect(badShape.status).toBe(400);
    expect(badShape.body.error.details.field).toBe("fields");
    const mismatch = await api.request("PUT", `/documents/${id}`, {
      headers: bearer(org),
      body: { document_id: "00000000-0000-4000-8000-000000000000", title: "x" },
    });
    expect(mismatch.status).toBe(400);
    expect(mismatch.body.error.details.field).toBe("document_id");
    const empty = await api.request("PUT", `/documents/${id}`, { headers: bearer(org), body: {} });
    expect(empty.status).toBe(400);
    const emptyTitle = await api.request("PUT", `/documents/${id}`, { headers: bearer(org), body: { title: "" } });
    expect(emptyTitle.status).toBe(400);
    expect(emptyTitle.body.error.details.field).toBe("title");
    expect(
      (await api.request("PUT", `/documents/not-a-uuid`, { headers: bearer(org), body: { title: "x" } })).status,
    ).toBe(404);
    const foreign = await api.request("PUT", `/documents/${id}`, { headers: bearer(other), body: { title: "hijack" } });
    expect(foreign.status).toBe(404);
    expect(foreign.body.error.code).toBe("not_found");
  });
});

describe("A9 DELETE /documents/{id} and A10 PATCH /documents/{id}/availability", () => {
  it("deletes a document without requests (and its file), then 404", async () => {
    const id = await registerDocument(api, files, org);
    const [version] = await api.services.db.select().from(documentVersions).where(eq(documentVersions.documentId, id));
    expect((await api.request("DELETE", `/documents/${id}`, { headers: bearer(other) })).status).toBe(404);
    const res = await api.request("DELETE", `/documents/${id}`, { headers: bearer(org) });
    expect(res).toMatchObject({ status: 200, body: { deleted: true, reason: null } });
    expect(await api.services.storage.get(version!.storageKey)).toBeNull();
    expect((await api.request("DELETE", `/documents/${id}`, { headers: bearer(org) })).status).toBe(404);
  });

  it("refuses to delete a document with assignments: 409 {deleted:false, reason}", async () => {
    const id = await registerDocument(api, files, org);
    await requestSignature(api, org, id);
    const res = await api.request("DELETE", `/documents/${id}`, { headers: bearer(org) });
    expect(res.status).toBe(409);
    expect(res.body).toEqual({ deleted: false, reason: expect.stringContaining("signature requests") });
    expect(
      (await api.request("PUT", `/documents/${id}`, { headers: bearer(org), body: { title: "still here" } })).status,
    ).toBe(200);
  });

  it("sets availability, refuses unknown values, and only active documents accept requests (409 document_not_active)", async () => {
    const id = await registerDocument(api, files, org);
    for (const availability of ["draft", "inactive"]) {
      const res = await api.request("PATCH", `/documents/${id}/availability`, {
        headers: bearer(org),
        body: { availability },
      });
      expect(res).toMatchObject({ status: 200, body: { id, availability } });
      const a1 = await api.request("POST", "/signature-requests", {
        headers: bearer(org),
        body: {
          patient_id: "P",
          document_id: id,
          institution_id: "i",
          expiration_date: new Date(Date.now() + 60_000).toISOString(),
          order_by: "me",
        },
      });
      expect(a1.status).toBe(409);
      expect(a1.body.error).toMatchObject({
        code: "conflict",
        details: { reason: "document_not_active", field: "document_id" },
      });
    }
    const bad = await api.request("PATCH", `/documents/${id}/availability`, {
      headers: bearer(org),
      body: { availability: "archived" },
    });
    expect(bad.status).toBe(400);
    expect(bad.body.error.details.field).toBe("availability");
    expect(
      (
        await api.request("PATCH", `/documents/${id}/availability`, {
          headers: bearer(other),
          body: { availability: "active" },
        })
      ).status,
    ).toBe(404);
    await api.request("PATCH", `/documents/${id}/availability`, {
      headers: bearer(org),
      body: { availability: "active" },
    });
    expect((await requestSignature(api, org, id)).id).toMatch(/^[0-9a-f-]{36}$/);
    const actions = (await api.services.db.select().from(auditLog).where(eq(auditLog.organizationId, org.orgId))).map(
      (e) => e.action,
    );
    expect(actions).toEqual(
      expect.arrayContaining(["document.availability_changed", "document.updated", "document.deleted"]),
    );
  });
});

describe("HTTPS only", () => {
  it("answers 403 https_required to plain HTTP on every area-A path, without a redirect", async () => {
    const strict = await startTestApi({ ALLOW_INSECURE_HTTP: "false" });
    try {
      const strictOrg = await strict.createOrg();
      for (const [method, path] of [
        ["POST", "/documents"],
        ["PUT", "/documents/x"],
        ["DELETE", "/documents/x"],
        ["PATCH", "/documents/x/availability"],
        ["POST", "/signature-requests"],
        ["GET", "/signature-requests?patient_id=p"],
        ["GET", "/signature-requests/completed?patient_id=p"],
        ["POST", "/signature-requests/verify-session"],
        ["GET", "/signature-requests/x/signed.pdf"],
        ["PUT", "/assignments/x"],
        ["POST", "/design"],
        ["PUT", "/design"],
      ] as const) {
        const res = await strict.request(method, path, {
          headers: bearer(strictOrg),
          ...(method !== "GET" && { body: {} }),
        });
        expect(res.status, `${method} ${path}`).toBe(403);
        expect(res.body.error.code).toBe("https_required");
        expect(res.headers.get("location")).toBeNull();
      }
    } finally {
      await strict.close();
    }
  });
});
