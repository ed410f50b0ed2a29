import { mkdtempSync, rmSync } from "node:fs";
import { request as httpsRequest } from "node:https";
import { tmpdir } from "node:os";
import { join } from "node:path";
import pino from "pino";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { redactedPaths } from "../services";
import { clientIp } from "./server";
import { logInCookie, logSink, startTestApi, type TestApi, type TestOrg } from "../testing/harness";
import { writeSelfSignedCertificate } from "../testing/tls";

describe("HTTPS enforcement on area-A paths", () => {
  let strict: TestApi;
  let proxied: TestApi;
  let tls: TestApi;
  let dev: TestApi;
  const certDir = mkdtempSync(join(tmpdir(), "clinsign-tls-"));

  beforeAll(async () => {
    const cert = writeSelfSignedCertificate(certDir);
    [strict, proxied, tls, dev] = await Promise.all([
      startTestApi({ ALLOW_INSECURE_HTTP: "false" }),
      startTestApi({ ALLOW_INSECURE_HTTP: "false", TRUST_PROXY: "true" }),
      startTestApi({ ALLOW_INSECURE_HTTP: "false", TLS_CERT_FILE: cert.certFile, TLS_KEY_FILE: cert.keyFile }),
      startTestApi({ ALLOW_INSECURE_HTTP: "true" }),
    ]);
  });
  afterAll(async () => {
    await Promise.all([strict, proxied, tls, dev].map((api) => api?.close()));
    rmSync(certDir, { recursive: true, force: true });
  });

  it("refuses plain HTTP with 403 https_required and no redirect", async () => {
    for (const path of ["/documents", "/signature-requests?patient_id=p1", "/assignments/x", "/design"]) {
      const res = await strict.request("GET", path, { headers: { authorization: "Bearer cs_whatever" } });
      expect(res.status, path).toBe(403);
      expect(res.headers.get("location")).toBeNull();
      expect(res.body.error).toMatchObject({ code: "https_required", message: expect.any(String) });
      expect(res.body.error.details.requestId).toBe(res.headers.get("x-request-id"));
    }
  });

  it("leaves area B alone", async () => {
    expect((await strict.request("GET", "/api/embed/templates")).status).toBe(401);
  });

  it("believes X-Forwarded-Proto only when the proxy is trusted", async () => {
    const viaProxy = await proxied.request("GET", "/documents", { headers: { "x-forwarded-proto": "https" } });
    expect(viaProxy.body.error?.code).not.toBe("https_required");
    const plainViaProxy = await proxied.request("GET", "/documents", { headers: { "x-forwarded-proto": "http" } });
    expect(plainViaProxy.body.error.code).toBe("https_required");
    const untrusted = await strict.request("GET", "/documents", { headers: { "x-forwarded-proto": "https" } });
    expect(untrusted.body.error.code).toBe("https_required");
  });

  it("serves area A over its own TLS socket", async () => {
    const { status, body } = await new Promise<{ status: number; body: string }>((resolve, reject) => {
      const req = httpsRequest(`${tls.baseUrl}/documents`, { rejectUnauthorized: false }, (res) => {
        let data = "";
        res.on("data", (c) => (data += c));
        res.on("end", () => resolve({ status: res.statusCode ?? 0, body: data }));
      });
      req.on("error", reject);
      req.end();
    });
    expect(status).not.toBe(403);
    expect(JSON.parse(body).error.code).not.toBe("https_required");
  });

  it("lets the development switch admit loopback clients, but not proxied ones", async () => {
    expect((await dev.request("GET", "/documents")).body.error.code).not.toBe("https_required");
    const proxiedClient = await dev.request("GET", "/documents", { headers: { "x-forwarded-for": "203.0.113.9" } });
    expect(proxiedClient.body.error.code).toBe("https_required");
  });
});

describe("the HTTP surface", () => {
  let api: TestApi;
  let org: TestOrg;
  beforeAll(async () => {
    api = await startTestApi();
    org = await api.createOrg();
  });
  afterAll(() => api?.close());

  it("answers /healthz and /readyz", async () => {
    expect(await api.request("GET", "/healthz")).toMatchObject({ status: 200, body: { ok: true } });
    expect(await api.request("GET", "/readyz")).toMatchObject({
      status: 200,
      body: { ok: true, database: "reachable", migrationsCurrent: true },
    });
  });

  it("renders unknown paths and bad methods in the envelope of their area", async () => {
    const a = await api.request("GET", "/nothing-here");
    expect(a.status).toBe(404);
    expect(a.body).toEqual({
      error: { code: "not_found", message: "no such endpoint", details: { requestId: expect.any(String) } },
    });
    const b = await api.request("GET", "/api/nothing-here");
    expect(b.status).toBe(404);
    expect(b.body).toEqual({ ok: false, error: "no such endpoint", requestId: expect.any(String) });
    const method = await api.request("PUT", "/api/embed/templates", { body: {} });
    expect(method.status).toBe(405);
    expect(method.headers.get("allow")).toBe("GET, POST");
  });

  it("answers a malformed path escape with 400, not 500", async () => {
    const res = await api.request("DELETE", "/api/embed/templates/%E0%A4%A", {
      body: { token: org.token, orgId: org.orgId },
    });
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ ok: false, error: "the path is not valid percent-encoding" });
  });

  it("ignores a cookie with a malformed escape instead of failing every /trpc call", async () => {
    const staffSessionCookie = await logInCookie(api, org.ownerEmail, org.ownerPassword);
    const me = await fetch(`${api.baseUrl}/trpc/auth.me`, {
      headers: { cookie: `theme=%E0%A4%A; ${staffSessionCookie}` },
    });
    expect(me.status).toBe(200);
    const anonymous = await fetch(`${api.baseUrl}/trpc/auth.me`, { headers: { cookie: "clinsign_session=%zz" } });
    expect(anonymous.status).toBe(401);
  });

  it("refuses cross-site /trpc calls that carry a cookie, and only those (CSRF)", async () => {
    const staffSessionCookie = await logInCookie(api, org.ownerEmail, org.ownerPassword);
    const createToken = (headers: Record<string, string>) =>
      fetch(`${api.baseUrl}/trpc/tokens.create`, {
        method: "POST",
        headers: { "content-type": "application/json", ...headers },
        body: JSON.stringify({ name: "csrf" }),
      }).then((res) => res.status);
    expect(await createToken({ cookie: staffSessionCookie, origin: "https://evil.example" })).toBe(403);
    expect(await createToken({ cookie: staffSessionCookie, origin: "null" })).toBe(403);
    expect(
      await createToken({
        cookie: staffSessionCookie,
        "sec-fetch-site": "cross-site",
        origin: api.services.config.publicWebUrl,
      }),
    ).toBe(403);
    expect(await createToken({ cookie: staffSessionCookie, "sec-fetch-site": "same-site" })).toBe(403);
    expect(
      await createToken({
        cookie: staffSessionCookie,
        "sec-fetch-site": "same-origin",
        origin: api.services.config.publicWebUrl,
      }),
    ).toBe(200);
    expect(await createToken({ cookie: staffSessionCookie, origin: api.services.config.publicWebUrl })).toBe(200);
    // Not a browser: no Origin, no Sec-Fetch-Site.
    expect(await createToken({ cookie: staffSessionCookie })).toBe(200);
    // No ambient credential, nothing to forge: a Bearer call from anywhere is the token holder's.
    const templates = await fetch(`${api.baseUrl}/trpc/templates.create`, {
      method: "POST",
      headers: {
        "content-type": "application/json",
        authorization: `Bearer ${org.token}`,
        origin: "https://his.example",
        "sec-fetch-site": "cross-site",
      },
      body: JSON.stringify({ title: "from the HIS" }),
    });
    expect(templates.status).toBe(200);
  });

  it("keeps a caller's request id and echoes it in the header and the error body", async () => {
    const res = await api.request("GET", "/api/embed/templates", { headers: { "x-request-id": "trace-abc-12345" } });
    expect(res.headers.get("x-request-id")).toBe("trace-abc-12345");
    expect(res.body.requestId).toBe("trace-abc-12345");
  });

  it("refuses bodies over 1 MiB with 413", async () => {
    const res = await api.request("POST", "/api/embed/templates", {
      body: { token: org.token, orgId: org.orgId, title: "x", pad: "y".repeat(1024 * 1024) },
    });
    expect(res.status).toBe(413);
    expect(res.body.ok).toBe(false);
  });

  it("sends defensive headers", async () => {
    const res = await api.request("GET", "/healthz");
    expect(res.headers.get("content-security-policy")).toContain("default-src 'none'");
    expect(res.headers.get("x-content-type-options")).toBe("nosniff");
    expect(res.headers.get("cache-control")).toBe("no-store");
  });

  it("publishes an OpenAPI 3.1 document generated from the route table, and a readable reference", async () => {
    const spec = await api.request("GET", "/openapi.json");
    expect(spec.body.openapi).toBe("3.1.0");
    const f2 = spec.body.paths["/api/embed/templates"].post;
    // Area B's credentials: token + orgId in the body, or Authorization: Bearer instead.
    expect(f2.requestBody.content["application/json"].schema.required).toEqual(["title"]);
    expect(Object.keys(f2.requestBody.content["application/json"].schema.properties)).toEqual(
      expect.arrayContaining(["token", "orgId", "title"]),
    );
    expect(f2.security).toEqual([{ bearer: [] }, {}]);
    expect(Object.keys(f2.responses)).toContain("201");
    const f4 = spec.body.paths["/api/embed/templates"].get;
    expect(f4.parameters.map((p: { name: string }) => p.name)).toEqual(["token", "orgId", "limit"]);
    expect(f4.security).toEqual([{ token: [], orgId: [] }, { bearer: [] }]);
    expect(Object.keys(spec.body.webhooks)).toContain("form.submitted");
    const docs = await fetch(`${api.baseUrl}/docs`);
    expect(docs.headers.get("content-type")).toContain("text/html");
    const html = await docs.text();
    expect(html).toContain("/api/embed/templates/{identifier}");
    expect(html).not.toContain("<script");
  });
});

describe("client addresses", () => {
  const from = (remoteAddress: string, forwardedFor?: string | string[]) =>
    ({
      socket: { remoteAddress },
      headers: forwardedFor === undefined ? {} : { "x-forwarded-for": forwardedFor },
    }) as unknown as Parameters<typeof clientIp>[0];

  it("take the right-most address a trusted proxy appended, never what the client wrote further left", () => {
    // Our own web server on loopback forwards what it saw; the client's own header stays on the left.
    expect(clientIp(from("127.0.0.1", "1.2.3.4, 203.0.113.7"), false)).toBe("203.0.113.7");
    expect(clientIp(from("127.0.0.1", ["1.2.3.4", "203.0.113.7"]), false)).toBe("203.0.113.7");
    expect(clientIp(from("10.0.0.2", "1.2.3.4, 198.51.100.9, 127.0.0.1"), true)).toBe("198.51.100.9");
    expect(clientIp(from("10.0.0.2", "[2001:db8::1]:443"), true)).toBe("2001:db8::1");
    expect(clientIp(from("10.0.0.2", "198.51.100.9:5123"), true)).toBe("198.51.100.9");
  });

  it("ignore X-Forwarded-For from untrusted peers, and fall back to the peer for anything that is not an address", () => {
    expect(clientIp(from("198.51.100.20", "1.2.3.4"), false)).toBe("198.51.100.20");
    expect(clientIp(from("127.0.0.1", "1.2.3.4, <script>"), false)).toBe("127.0.0.1");
    expect(clientIp(from("127.0.0.1", "x".repeat(5000)), false)).toBe("127.0.0.1");
    expect(clientIp(from("127.0.0.1", `${"1.2.3.4,".repeat(200)}5.6.7.8`), false)).toBe("127.0.0.1");
    expect(clientIp(from("127.0.0.1", "127.0.0.1"), false)).toBe("127.0.0.1");
    expect(clientIp(from("127.0.0.1"), false)).toBe("127.0.0.1");
  });
});

describe("logging", () => {
  it("blanks tokens, passwords and secrets wherever they appear", () => {
    const { sink, lines } = logSink();
    const log = pino({ redact: { paths: redactedPaths, censor: "[redacted]" } }, sink);
    log.info(
      {
        token: "cs_secret1",
        body: { password: "hunter22", webhookSecret: "whsec_x" },
        headers: { authorization: "Bearer cs_secret2" },
      },
      "x",
    );
    const text = lines.join("");
    for (const secret of ["cs_secret1", "hunter22", "whsec_x", "cs_secret2"]) expect(text).not.toContain(secret);
    expect(text).toContain("[redacted]");
  });
});
