/**
 * Contract test (issue 18): a validating proxy (Stoplight Prism, `prism proxy --errors`) between
 * the caller and the running service checks every answer against the published OpenAPI document.
 * Every documented operation is called with valid input (a success) and with invalid input (an
 * error), and no answer may violate the document: an undocumented status, a body or header that
 * does not fit. Requests themselves are validated too, except for the deliberately invalid ones,
 * which go through a second proxy that checks only the answers. Prism answers a request without
 * any credential itself (its own 401), so the credential errors here send wrong credentials.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestApi, type TestApi, type TestOrg } from "../testing/harness";
import { activeTemplate, newSession } from "../testing/forms";
import { startReceiver, twilioEnv, type Receiver } from "../testing/receiver";
import {
  makePdf,
  registerDocument,
  signAndSeal,
  startFileServer,
  type FileServer,
} from "../testing/signature-fixtures";
import { openApiDocument } from "./openapi";
import { documentedRoutes } from "./routes";

const PRISM = join(import.meta.dirname, "../../node_modules/.bin/prism");

interface Proxy {
  url: string;
  process: ChildProcess;
  output: string[];
}

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

async function startProxy(documentFile: string, upstream: string, validateRequests: boolean): Promise<Proxy> {
  const port = await freePort();
  const args = ["proxy", documentFile, upstream, "--errors", "-p", String(port), "-h", "127.0.0.1"];
  if (!validateRequests) args.push("--validate-request=false");
  const child = spawn(PRISM, args, { stdio: ["ignore", "pipe", "pipe"] });
  const output: string[] = [];
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`prism did not start:\n${output.join("")}`)), 30_000);
    const onData = (chunk: Buffer) => {
      output.push(chunk.toString());
      if (/Prism is listening/.test(chunk.toString())) {
        clearTimeout(timer);
        resolve();
      }
    };
    child.stdout!.on("data", onData);
    child.stderr!.on("data", onData);
    child.once("exit", (code) => reject(new Error(`prism exited ${code}:\n${output.join("")}`)));
  });
  return { url: `http://127.0.0.1:${port}`, process: child, output };
}

let api: TestApi;
let files: FileServer;
let twilio: Receiver;
let org: TestOrg;
let strict: Proxy;
let loose: Proxy;
let dir: string;

beforeAll(async () => {
  files = await startFileServer();
  twilio = await startReceiver();
  twilio.respond = () => ({ status: 201, body: JSON.stringify({ sid: "SMcontract" }) });
  api = await startTestApi({ ...twilioEnv(twilio), OUTBOUND_ALLOW_HOSTS: files.hostPort });
  org = await api.createOrg("Klinik Vertrag");
  dir = mkdtempSync(join(tmpdir(), "clinsign-contract-"));
  const documentFile = join(dir, "openapi.json");
  writeFileSync(documentFile, JSON.stringify(openApiDocument(api.baseUrl)));
  [strict, loose] = await Promise.all([
    startProxy(documentFile, api.baseUrl, true),
    startProxy(documentFile, api.baseUrl, false),
  ]);
}, 90_000);

afterAll(async () => {
  strict?.process.kill();
  loose?.process.kill();
  await api?.close();
  await files?.close();
  await twilio?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

interface Call {
  /** The documented path with its parameters, e.g. `/documents/{id}`. */
  path: string;
  method: "GET" | "POST" | "PUT" | "PATCH" | "DELETE";
  params?: Record<string, string>;
  query?: Record<string, string>;
  body?: unknown;
  /** A raw body with its type (PDF uploads, multipart). */
  raw?: { body: string | Uint8Array | FormData; type?: string };
  headers?: Record<string, string>;
  /** Sent through the proxy that does not validate requests: the input is meant to be wrong. */
  invalid?: boolean;
}

/** Operation → the statuses it answered through the proxy. */
const answered = new Map<string, Set<number>>();

async function call(c: Call) {
  const proxy = c.invalid ? loose : strict;
  let path = c.path;
  for (const [name, value] of Object.entries(c.params ?? {}))
    path = path.replace(`{${name}}`, encodeURIComponent(value));
  const url = new URL(path, proxy.url);
  for (const [name, value] of Object.entries(c.query ?? {})) url.searchParams.set(name, value);
  const headers: Record<string, string> = { ...c.headers };
  let body: string | Uint8Array | FormData | undefined;
  if (c.raw) {
    body = c.raw.body;
    if (c.raw.type) headers["content-type"] = c.raw.type;
  } else if (c.body !== undefined) {
    body = JSON.stringify(c.body);
    headers["content-type"] = "application/json";
  }
  const response = await fetch(url, { method: c.method, headers, body });
  const type = response.headers.get("content-type") ?? "";
  const text = Buffer.from(await response.arrayBuffer());
  const json = type.includes("json") ? JSON.parse(text.toString("utf8")) : undefined;
  // Prism answers a violation with a problem document (--errors) or names it in sl-violations.
  const violations = response.headers.get("sl-violations");
  const prismError = type.startsWith("application/problem+json") && String(json?.type).includes("stoplight");
  expect
    .soft(
      { violations, prismError: prismError ? json : null },
      `${c.method} ${path} (${c.invalid ? "invalid input" : "valid input"})`,
    )
    .toEqual({ violations: null, prismError: null });
  const key = `${c.method} ${c.path}`;
  answered.set(key, (answered.get(key) ?? new Set()).add(response.status));
  return { status: response.status, body: json, bytes: text };
}

const b = () => ({ authorization: `Bearer ${org.token}` });
const creds = () => ({ token: org.token, orgId: org.orgId });
const UNKNOWN = "00000000-0000-4000-8000-000000000000";

describe("every documented operation through a validating proxy", { timeout: 90_000 }, () => {
  it("area B: templates, sessions, drafts, submissions, events, uploads, webhooks log, audit log, F1", async () => {
    const fields = [
      { id: "f1", type: "text", key: "name", label: "Name", required: true },
      { id: "f2", type: "file", key: "befund", label: "Befund", accept: ".pdf" },
    ];
    // F2
    const created = await call({
      method: "POST",
      path: "/api/embed/templates",
      body: { ...creds(), title: "Anamnese", status: "active", schema: { version: 1, fields } },
    });
    expect(created.status).toBe(201);
    const identifier = created.body.template.identifier as string;
    expect
      .soft((await call({ method: "POST", path: "/api/embed/templates", body: { ...creds() }, invalid: true })).status)
      .toBe(400);
    expect(
      (
        await call({
          method: "POST",
          path: "/api/embed/templates",
          body: { token: "cs_nope", orgId: UNKNOWN, title: "x" },
        })
      ).status,
    ).toBe(401);
    expect(
      (
        await call({
          method: "POST",
          path: "/api/embed/templates",
          raw: { body: "title=x", type: "text/plain" },
          invalid: true,
        })
      ).status,
    ).toBe(415);
    // F3, F4
    const q = { ...creds(), templateIdentifier: identifier };
    expect.soft((await call({ method: "GET", path: "/api/embed/template", query: q })).status).toBe(200);
    expect(
      (await call({ method: "GET", path: "/api/embed/template", query: { ...q, templateIdentifier: "nope-0000" } }))
        .status,
    ).toBe(404);
    expect.soft((await call({ method: "GET", path: "/api/embed/templates", query: creds() })).status).toBe(200);
    expect
      .soft(
        (await call({ method: "GET", path: "/api/embed/templates", query: { token: "cs_nope", orgId: UNKNOWN } }))
          .status,
      )
      .toBe(401);
    // F5, F6
    const f5 = { method: "PATCH", path: "/api/embed/templates/{identifier}" } as const;
    expect
      .soft((await call({ ...f5, params: { identifier }, body: { ...creds(), description: "Vor der OP" } })).status)
      .toBe(200);
    expect
      .soft((await call({ ...f5, params: { identifier: "nope-0000" }, body: { ...creds(), title: "x" } })).status)
      .toBe(404);
    const spare = await activeTemplate(org, undefined, "Spare");
    const f6 = { method: "DELETE", path: "/api/embed/templates/{identifier}" } as const;
    expect.soft((await call({ ...f6, params: { identifier: spare.identifier }, body: creds() })).status).toBe(200);
    expect.soft((await call({ ...f6, params: { identifier: spare.identifier }, body: creds() })).status).toBe(404);
    // Sessions
    const createSessionRoute = { method: "POST", path: "/api/embed/sessions" } as const;
    const embedSession = await call({
      ...createSessionRoute,
      body: { ...creds(), templateIdentifier: identifier, config: { rnummer: "R-1" } },
    });
    expect(embedSession.status).toBe(200);
    const sessionId = embedSession.body.sessionId as string;
    expect
      .soft((await call({ ...createSessionRoute, body: { ...creds(), templateIdentifier: "nope-0000" } })).status)
      .toBe(404);
    // F7–F9: the session of another template is refused with 403 (issue 18's undocumented answer).
    const other = await activeTemplate(org, undefined, "Andere");
    const otherSession = await newSession(api, org, other.identifier);
    const drafts = { path: "/api/embed/drafts" } as const;
    const draft = { templateIdentifier: identifier, draftKey: "case-1", values: { name: "Erika" } };
    expect.soft((await call({ ...drafts, method: "POST", body: { ...creds(), ...draft } })).status).toBe(200);
    expect
      .soft((await call({ ...drafts, method: "POST", body: { sessionId: otherSession, ...draft } })).status)
      .toBe(403);
    expect(
      (await call({ ...drafts, method: "POST", body: { ...creds(), ...draft, values: "x" }, invalid: true })).status,
    ).toBe(400);
    const ref = { templateIdentifier: identifier, draftKey: "case-1" };
    expect.soft((await call({ ...drafts, method: "GET", query: { ...creds(), ...ref } })).status).toBe(200);
    expect.soft((await call({ ...drafts, method: "GET", query: { sessionId: "nope", ...ref } })).status).toBe(401);
    expect.soft((await call({ ...drafts, method: "DELETE", body: { ...creds(), ...ref } })).status).toBe(200);
    expect(
      (
        await call({
          ...drafts,
          method: "DELETE",
          body: { ...creds(), templateIdentifier: "nope-0000", draftKey: "x" },
        })
      ).status,
    ).toBe(404);
    // F10
    const submit = { method: "POST", path: "/api/embed/submit" } as const;
    const submitted = await call({ ...submit, body: { sessionId, values: { name: "Erika Muster" } } });
    expect(submitted.status).toBe(200);
    expect
      .soft((await call({ ...submit, body: { ...creds(), templateIdentifier: identifier, values: {} } })).status)
      .toBe(400);
    // Events
    const events = { method: "POST", path: "/api/embed/events" } as const;
    expect.soft((await call({ ...events, body: { sessionId, event: "form.opened" } })).status).toBe(200);
    expect.soft((await call({ ...events, body: { sessionId, event: "form.sent" }, invalid: true })).status).toBe(400);
    // Uploads
    const pdf = await makePdf();
    const form = new FormData();
    form.append("sessionId", sessionId);
    form.append("fieldKey", "befund");
    form.append("file", new Blob([new Uint8Array(pdf)], { type: "application/pdf" }), "befund.pdf");
    const uploads = { method: "POST", path: "/api/embed/uploads" } as const;
    expect.soft((await call({ ...uploads, raw: { body: form } })).status).toBe(200);
    expect.soft((await call({ ...uploads, body: { sessionId }, invalid: true })).status).toBe(415);
    // F11, F12, F13
    const f11 = { method: "POST", path: "/api/embed/webhook-event" } as const;
    expect
      .soft((await call({ ...f11, body: { ...creds(), templateIdentifier: identifier, event: "form.opened" } })).status)
      .toBe(200);
    expect(
      (await call({ ...f11, body: { ...creds(), templateIdentifier: "nope-0000", event: "form.opened" } })).status,
    ).toBe(404);
    expect.soft((await call({ method: "GET", path: "/api/embed/webhook-events", query: creds() })).status).toBe(200);
    expect(
      (
        await call({
          method: "GET",
          path: "/api/embed/webhook-events",
          query: { ...creds(), limit: "x" },
          invalid: true,
        })
      ).status,
    ).toBe(400);
    expect.soft((await call({ method: "GET", path: "/api/embed/audit-logs", query: creds() })).status).toBe(200);
    expect(
      (await call({ method: "GET", path: "/api/embed/audit-logs", query: { ...creds(), orgId: UNKNOWN } })).status,
    ).toBe(401);
    // F1
    const f1 = { method: "POST", path: "/api/portal/request" } as const;
    const request = { templateIdentifier: identifier, phone: "+491701234567", rnummer: "R-2026-1" };
    expect.soft((await call({ ...f1, body: { ...creds(), ...request } })).status).toBe(200);
    expect.soft((await call({ ...f1, body: { ...creds(), ...request, phone: "12" } })).status).toBe(400);
  });

  it("area B accepts Authorization: Bearer instead of token + orgId", async () => {
    expect.soft((await call({ method: "GET", path: "/api/embed/templates", headers: b() })).status).toBe(200);
    const created = await call({
      method: "POST",
      path: "/api/embed/templates",
      headers: b(),
      body: { title: "Per Bearer" },
    });
    expect(created.status).toBe(201);
    expect(created.body.template.title).toBe("Per Bearer");
    // An orgId beside it must be the token's; a token field, when sent, counts as before.
    const other = await api.createOrg("Klinik Andere");
    expect
      .soft(
        (await call({ method: "GET", path: "/api/embed/templates", headers: b(), query: { orgId: other.orgId } }))
          .status,
      )
      .toBe(401);
    expect
      .soft(
        (await call({ method: "GET", path: "/api/embed/templates", headers: b(), query: { orgId: org.orgId } })).status,
      )
      .toBe(200);
    const junk = { authorization: "Bearer cs_nope" };
    expect
      .soft((await call({ method: "GET", path: "/api/embed/templates", headers: junk, query: creds() })).status)
      .toBe(200);
    expect
      .soft((await call({ method: "POST", path: "/api/embed/templates", headers: junk, body: { title: "x" } })).status)
      .toBe(401);
  });

  it("area A: documents, signature requests, downloads, design, assignments, verification", async () => {
    const path = `/contract-${Date.now()}.pdf`;
    files.set(path, await makePdf());
    const a6 = { method: "POST", path: "/documents", headers: b() } as const;
    const document = {
      document_name: "Einwilligung",
      document_description: "Aufklärung",
      account_name: "acct",
      signingfield_koordinates: { page: 1, x: 50, y: 600, width: 200, height: 60 },
      document_bloburl: `${files.origin}${path}`,
    };
    const registered = await call({ ...a6, body: document });
    expect(registered.status).toBe(201);
    const documentId = registered.body.document_id as string;
    expect.soft((await call({ ...a6, body: { ...document, document_name: "" }, invalid: true })).status).toBe(400);
    expect.soft((await call({ ...a6, headers: { authorization: "Bearer cs_nope" }, body: document })).status).toBe(401);
    // A1
    const a1 = { method: "POST", path: "/signature-requests", headers: b() } as const;
    const signatureRequest = {
      patient_id: "P-7",
      document_id: documentId,
      institution_id: "klinik-nord",
      expiration_date: new Date(Date.now() + 3600_000).toISOString(),
      order_by: "dr.house",
    };
    const requested = await call({ ...a1, body: signatureRequest });
    expect(requested.status).toBe(201);
    const signatureRequestId = requested.body.signature_id as string;
    expect.soft((await call({ ...a1, body: { ...signatureRequest, document_id: "nope" } })).status).toBe(404);
    // A2, A3
    for (const list of ["/signature-requests", "/signature-requests/completed"]) {
      expect
        .soft((await call({ method: "GET", path: list, headers: b(), query: { patient_id: "P-7" } })).status)
        .toBe(200);
      expect.soft((await call({ method: "GET", path: list, headers: b(), invalid: true })).status).toBe(400);
    }
    const sealed = await signAndSeal(api, files, org, "P-8");
    for (const download of ["/signature-requests/{id}/signed.pdf", "/signature-requests/{id}/metadata.json"]) {
      const get = { method: "GET", path: download, headers: b() } as const;
      expect.soft((await call({ ...get, params: { id: sealed.id } })).status).toBe(200);
      expect.soft((await call({ ...get, params: { id: signatureRequestId } })).status).toBe(404);
    }
    // The patient access export (a streamed ZIP)
    const patientExport = { method: "POST", path: "/patients/export", headers: b() } as const;
    const zip = await call({ ...patientExport, body: { patient_id: "P-8" } });
    expect.soft(zip.status).toBe(200);
    expect.soft(zip.bytes.subarray(0, 4).toString("latin1")).toBe("PK\x03\x04");
    expect.soft((await call({ ...patientExport, body: {}, invalid: true })).status).toBe(400);
    // A4
    const a4 = { method: "POST", path: "/signature-requests/verify-session", headers: b() } as const;
    const hostSession = { patient_id: "P-7", signature_id: signatureRequestId, session_token: "portal-session-token" };
    expect.soft((await call({ ...a4, body: hostSession })).status).toBe(200);
    expect.soft((await call({ ...a4, body: { patient_id: "P-7" }, invalid: true })).status).toBe(400);
    // A5
    const design = { institution_id: "klinik-ost", design_parameters: { primaryColor: "#0b5cad" } };
    expect.soft((await call({ method: "POST", path: "/design", headers: b(), body: design })).status).toBe(201);
    expect.soft((await call({ method: "POST", path: "/design", headers: b(), body: design })).status).toBe(409);
    expect.soft((await call({ method: "PUT", path: "/design", headers: b(), body: design })).status).toBe(200);
    expect(
      (await call({ method: "PUT", path: "/design", headers: b(), body: { ...design, institution_id: "klinik-west" } }))
        .status,
    ).toBe(404);
    // A7
    const a7 = { method: "PUT", path: "/assignments/{id}", headers: b() } as const;
    expect
      .soft(
        (await call({ ...a7, params: { id: signatureRequestId }, body: { id: signatureRequestId, status: "active" } }))
          .status,
      )
      .toBe(200);
    expect
      .soft((await call({ ...a7, params: { id: signatureRequestId }, body: { id: UNKNOWN, status: "active" } })).status)
      .toBe(400);
    // A8
    const a8 = { method: "PUT", path: "/documents/{id}", headers: b() } as const;
    expect
      .soft((await call({ ...a8, params: { id: documentId }, body: { title: "Einwilligung v2" } })).status)
      .toBe(200);
    expect.soft((await call({ ...a8, params: { id: "nope" }, body: { title: "x" } })).status).toBe(404);
    // A10
    const a10 = { method: "PATCH", path: "/documents/{id}/availability", headers: b() } as const;
    expect
      .soft((await call({ ...a10, params: { id: documentId }, body: { availability: "inactive" } })).status)
      .toBe(200);
    expect(
      (await call({ ...a10, params: { id: documentId }, body: { availability: "gone" }, invalid: true })).status,
    ).toBe(400);
    // A9: 409 with {deleted:false, reason} while requests exist, 200 once none do.
    const a9 = { method: "DELETE", path: "/documents/{id}", headers: b() } as const;
    const refused = await call({ ...a9, params: { id: documentId } });
    expect(refused.status).toBe(409);
    expect(refused.body).toEqual({ deleted: false, reason: expect.any(String) });
    const unused = await registerDocument(api, files, org);
    expect.soft((await call({ ...a9, params: { id: unused } })).status).toBe(200);
    expect.soft((await call({ ...a9, params: { id: unused } })).status).toBe(404);
    // /verify
    const verify = { method: "POST", path: "/verify" } as const;
    expect
      .soft((await call({ ...verify, raw: { body: new Uint8Array(sealed.pdf), type: "application/pdf" } })).status)
      .toBe(200);
    expect.soft((await call({ ...verify, raw: { body: "not a pdf", type: "application/pdf" } })).status).toBe(400);
    expect.soft((await call({ ...verify, raw: { body: "x", type: "text/plain" }, invalid: true })).status).toBe(415);
    // POST /patients/erase (issue 17): a dry run, and a body that names nobody.
    const erase = { method: "POST", path: "/patients/erase", headers: b() } as const;
    expect.soft((await call({ ...erase, body: { patient_id: "P-contract", dry_run: true } })).status).toBe(200);
    expect.soft((await call({ ...erase, body: { dry_run: true } })).status).toBe(400);
  });

  it("called every documented operation with a success and an error", () => {
    const missing = documentedRoutes
      .map((r) => `${r.method} ${r.path}`)
      .filter((key) => {
        const statuses = [...(answered.get(key) ?? [])];
        return !statuses.some((s) => s < 300) || !statuses.some((s) => s >= 400);
      });
    expect(missing).toEqual([]);
  });
});
