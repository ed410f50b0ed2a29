import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { exportJWK, generateKeyPair, SignJWT, type CryptoKey, type JWK } from "jose";
import { auditLog, eq, signatureRequests } from "@clinsign/db";
import { startTestApi, type TestApi, type TestOrg } from "../../testing/harness";
import {
  backdateExpiry,
  bearer,
  registerDocument,
  requestSignature,
  startFileServer,
  type FileServer,
} from "../../testing/signature-fixtures";
import { updateOrganizationSettings } from "../organizations/organizations";
import { JWKS_REFRESH_INTERVAL_SECONDS, hostSessionJwksCache } from "./jwks-cache";

let api: TestApi;
let files: FileServer;
let documentIds: Record<string, string> = {};

const SECRET = "portal-shared-secret-0123456789abcdef";
let rsa: { privateKey: CryptoKey; jwk: JWK };

beforeAll(async () => {
  files = await startFileServer();
  api = await startTestApi({ OUTBOUND_ALLOW_HOSTS: files.hostPort, PUBLIC_WEB_URL: "https://portal.test" });
  const pair = await generateKeyPair("RS256", { extractable: true });
  rsa = {
    privateKey: pair.privateKey as CryptoKey,
    jwk: { ...(await exportJWK(pair.publicKey)), kid: "k1", alg: "RS256", use: "sig" },
  };
  files.set("/jwks.json", Buffer.from(JSON.stringify({ keys: [rsa.jwk] })), "application/json");
  documentIds = {};
});
afterAll(async () => {
  await api?.close();
  await files?.close();
});

async function orgWith(settings: Parameters<typeof updateOrganizationSettings>[1]): Promise<TestOrg> {
  const org = await api.createOrg();
  await updateOrganizationSettings(org.ctx, settings);
  documentIds[org.orgId] = await registerDocument(api, files, org);
  return org;
}

const hs256 = (claims: Record<string, unknown>, secret = SECRET, lifetime = 300) =>
  new SignJWT(claims)
    .setProtectedHeader({ alg: "HS256" })
    .setIssuedAt()
    .setExpirationTime(Math.floor(Date.now() / 1000) + lifetime)
    .sign(new TextEncoder().encode(secret));

const rs256 = (claims: Record<string, unknown>, lifetime = 300, key = rsa.privateKey, kid = "k1") =>
  new SignJWT(claims)
    .setProtectedHeader({ alg: "RS256", kid })
    .setIssuedAt()
    .setExpirationTime(Math.floor(Date.now() / 1000) + lifetime)
    .sign(key);

const verify = (org: TestOrg, body: Record<string, unknown>) =>
  api.request("POST", "/signature-requests/verify-session", { headers: bearer(org), body });

async function refusalReasons(org: TestOrg) {
  const entries = await api.services.db
    .select()
    .from(auditLog)
    .where(eq(auditLog.organizationId, org.orgId))
    .orderBy(auditLog.seq);
  return entries.filter((e) => e.action === "signature.session_refused").map((e) => e.metadata.reason);
}

describe("A4 with an HS256 shared secret", () => {
  let org: TestOrg;
  beforeAll(async () => {
    org = await orgWith({ sessionMethod: "hs256", sessionJwtSecret: SECRET, requireSessionVerification: true });
  });

  it("answers valid with a one-time ticket link (5 minutes) and echoes the token; the ticket opens the page once", async () => {
    const request = await requestSignature(api, org, documentIds[org.orgId]!, "P-1");
    const token = await hs256({ sub: "P-1", jti: "jti-ok-1" });
    const res = await verify(org, { patient_id: "P-1", signature_id: request.id, session_token: token });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      valid: true,
      redirect_url: expect.stringMatching(/^https:\/\/portal\.test\/sign\/ticket\/[A-Za-z0-9_-]{43}$/),
      session_token: token,
    });
    const ticket = res.body.redirect_url.split("/").pop();
    // The bare link does not open for this organization; the ticket does, once.
    expect((await api.trpc({}).signing.open.mutate({ token: request.token })).state).toBe("verification_required");
    const opened = await api.trpc({}).signing.open.mutate({ ticket });
    expect(opened).toMatchObject({ state: "ready", sessionToken: expect.any(String) });
    expect((await api.trpc({}).signing.open.mutate({ ticket })).state).toBe("unknown");
    const [row] = await api.services.db.select().from(signatureRequests).where(eq(signatureRequests.id, request.id));
    expect(row!.status).toBe("opened");
    const verified = await api.services.db
      .select()
      .from(auditLog)
      .where(eq(auditLog.action, "signature.session_verified"));
    expect(verified.some((e) => e.metadata.signatureId === request.id && e.actorType === "api_key")).toBe(true);
  });

  it("refuses with valid:false for every failure, and records why", async () => {
    const request = await requestSignature(api, org, documentIds[org.orgId]!, "P-2");
    const foreignOrg = await orgWith({ sessionMethod: "hs256", sessionJwtSecret: SECRET });
    const foreign = await requestSignature(api, foreignOrg, documentIds[foreignOrg.orgId]!, "P-2");
    const expiredToken = await new SignJWT({ sub: "P-2" })
      .setProtectedHeader({ alg: "HS256" })
      .setIssuedAt(Math.floor(Date.now() / 1000) - 400)
      .setExpirationTime(Math.floor(Date.now() / 1000) - 100)
      .sign(new TextEncoder().encode(SECRET));
    const cases: [string, Record<string, unknown>][] = [
      ["bad_token", { session_token: await hs256({ sub: "P-2" }, "another-secret-another-secret-12") }],
      ["bad_token", { session_token: "not.a.jwt" }],
      ["bad_token", { session_token: await rs256({ sub: "P-2" }) }],
      ["token_expired", { session_token: expiredToken }],
      ["lifetime_too_long", { session_token: await hs256({ sub: "P-2" }, SECRET, 3600) }],
      ["patient_mismatch", { session_token: await hs256({ sub: "P-someone-else" }) }],
      ["patient_mismatch", { patient_id: "P-someone-else", session_token: await hs256({ sub: "P-someone-else" }) }],
      [
        "unknown_signature",
        { signature_id: "00000000-0000-4000-8000-000000000000", session_token: await hs256({ sub: "P-2" }) },
      ],
      ["unknown_signature", { signature_id: "nope", session_token: await hs256({ sub: "P-2" }) }],
      ["unknown_signature", { signature_id: foreign.id, session_token: await hs256({ sub: "P-2" }) }],
    ];
    for (const [reason, change] of cases) {
      const body: Record<string, unknown> = { patient_id: "P-2", signature_id: request.id, ...change };
      const res = await verify(org, body);
      expect(res.status, reason).toBe(200);
      expect(res.body, reason).toEqual({ valid: false, redirect_url: null, session_token: body.session_token });
    }
    expect(await refusalReasons(org)).toEqual(expect.arrayContaining([...new Set(cases.map(([r]) => r))]));
  });

  it("accepts a jti only once", async () => {
    const request = await requestSignature(api, org, documentIds[org.orgId]!, "P-3");
    const token = await hs256({ sub: "P-3", jti: "jti-once" });
    expect((await verify(org, { patient_id: "P-3", signature_id: request.id, session_token: token })).body.valid).toBe(
      true,
    );
    expect(
      (await verify(org, { patient_id: "P-3", signature_id: request.id, session_token: token })).body,
    ).toMatchObject({ valid: false, redirect_url: null });
    expect(await refusalReasons(org)).toContain("jti_replayed");
  });

  it("refuses expired, draft and finished requests", async () => {
    const expired = await requestSignature(api, org, documentIds[org.orgId]!, "P-4");
    await backdateExpiry(api, expired.id);
    expect(
      (await verify(org, { patient_id: "P-4", signature_id: expired.id, session_token: await hs256({ sub: "P-4" }) }))
        .body.valid,
    ).toBe(false);
    const [row] = await api.services.db.select().from(signatureRequests).where(eq(signatureRequests.id, expired.id));
    expect(row!.status).toBe("expired");
    const draft = await requestSignature(api, org, documentIds[org.orgId]!, "P-4");
    await api.request("PUT", `/assignments/${draft.id}`, {
      headers: bearer(org),
      body: { id: draft.id, status: "draft" },
    });
    expect(
      (await verify(org, { patient_id: "P-4", signature_id: draft.id, session_token: await hs256({ sub: "P-4" }) }))
        .body.valid,
    ).toBe(false);
    expect(await refusalReasons(org)).toContain("request_not_open");
  });

  it("validates input (400) and needs the bearer token (401)", async () => {
    for (const field of ["patient_id", "signature_id", "session_token"]) {
      const body: Record<string, unknown> = { patient_id: "P", signature_id: "x", session_token: "t" };
      delete body[field];
      const res = await verify(org, body);
      expect(res.status).toBe(400);
      expect(res.body.error.details.field).toBe(field);
    }
    expect(
      (
        await api.request("POST", "/signature-requests/verify-session", {
          body: { patient_id: "P", signature_id: "x", session_token: "t" },
        })
      ).status,
    ).toBe(401);
  });

  it("a ticket expires after 5 minutes", async () => {
    const request = await requestSignature(api, org, documentIds[org.orgId]!, "P-5");
    const res = await verify(org, {
      patient_id: "P-5",
      signature_id: request.id,
      session_token: await hs256({ sub: "P-5" }),
    });
    const ticket = res.body.redirect_url.split("/").pop();
    const { signingCredentials } = await import("@clinsign/db");
    await api.services.db
      .update(signingCredentials)
      .set({ expiresAt: new Date(Date.now() - 1) })
      .where(eq(signingCredentials.signatureRequestId, request.id));
    expect((await api.trpc({}).signing.open.mutate({ ticket })).state).toBe("unknown");
  });
});

describe("A4 with a JWKS URL", () => {
  it("verifies against the fetched key set; refuses other keys, wrong patients and long lifetimes", async () => {
    const org = await orgWith({ sessionMethod: "jwks", sessionJwksUrl: `${files.origin}/jwks.json` });
    const request = await requestSignature(api, org, documentIds[org.orgId]!, "P-J");
    const good = await rs256({ sub: "P-J", jti: "j-1" });
    expect(
      (await verify(org, { patient_id: "P-J", signature_id: request.id, session_token: good })).body,
    ).toMatchObject({ valid: true, session_token: good });
    const stranger = await generateKeyPair("RS256");
    const cases: [string, string][] = [
      ["bad_token", await rs256({ sub: "P-J" }, 300, stranger.privateKey as CryptoKey)],
      ["bad_token", await hs256({ sub: "P-J" })],
      ["patient_mismatch", await rs256({ sub: "P-X" })],
      ["lifetime_too_long", await rs256({ sub: "P-J" }, 1200)],
      ["jti_replayed", good],
    ];
    for (const [reason, token] of cases) {
      const res = await verify(org, { patient_id: "P-J", signature_id: request.id, session_token: token });
      expect(res.body, reason).toEqual({ valid: false, redirect_url: null, session_token: token });
    }
    expect(await refusalReasons(org)).toEqual(expect.arrayContaining(cases.map(([r]) => r)));
  });

  it("refuses when the JWKS URL is unreachable, not JSON, or a loopback address that is not allow-listed", async () => {
    for (const url of [`${files.origin}/missing.json`, `${files.origin}/not-json`, "https://127.0.0.1:9/jwks.json"]) {
      files.set("/not-json", Buffer.from("<html>"), "text/html");
      const org = await orgWith({ sessionMethod: "jwks", sessionJwksUrl: url });
      const request = await requestSignature(api, org, documentIds[org.orgId]!, "P-J");
      const res = await verify(org, {
        patient_id: "P-J",
        signature_id: request.id,
        session_token: await rs256({ sub: "P-J" }),
      });
      expect(res.body.valid, url).toBe(false);
      expect(await refusalReasons(org)).toEqual(["jwks_unavailable"]);
    }
  });
});

describe("A4 JWKS cache", () => {
  /** Serves `jwks` at `path` with `cacheControl` and counts the fetches. */
  function serveJwks(path: string, cacheControl: string | null, jwks: () => unknown) {
    files.set(path, (_req, res) => {
      res
        .writeHead(200, {
          "content-type": "application/json",
          ...(cacheControl !== null && { "cache-control": cacheControl }),
        })
        .end(JSON.stringify(jwks()));
    });
    return { fetches: () => files.requests.filter((r) => r.path === path).length };
  }

  async function jwksOrg(path: string) {
    const org = await orgWith({ sessionMethod: "jwks", sessionJwksUrl: `${files.origin}${path}` });
    return { org, request: await requestSignature(api, org, documentIds[org.orgId]!, "P-C") };
  }

  it("fetches the key set once while its max-age lasts", async () => {
    const server = serveJwks("/jwks-max-age.json", "public, max-age=600", () => ({ keys: [rsa.jwk] }));
    const { org, request } = await jwksOrg("/jwks-max-age.json");
    for (const jti of ["c-1", "c-2", "c-3"]) {
      const res = await verify(org, {
        patient_id: "P-C",
        signature_id: request.id,
        session_token: await rs256({ sub: "P-C", jti }),
      });
      expect(res.body.valid, jti).toBe(true);
    }
    expect(server.fetches()).toBe(1);
  });

  it("fetches every time when the response says no-store or no-cache", async () => {
    for (const directive of ["no-store", "no-cache"]) {
      const path = `/jwks-${directive}.json`;
      const server = serveJwks(path, directive, () => ({ keys: [rsa.jwk] }));
      const { org, request } = await jwksOrg(path);
      for (const jti of ["a", "b"]) {
        const res = await verify(org, {
          patient_id: "P-C",
          signature_id: request.id,
          session_token: await rs256({ sub: "P-C", jti: `${directive}-${jti}` }),
        });
        expect(res.body.valid, directive).toBe(true);
      }
      expect(server.fetches(), directive).toBe(2);
    }
  });

  it("refetches once for an unknown kid (key rotation), at most every 30 seconds per URL", async () => {
    const rotated = await generateKeyPair("RS256", { extractable: true });
    const k2: JWK = { ...(await exportJWK(rotated.publicKey)), kid: "k2", alg: "RS256", use: "sig" };
    let keys: JWK[] = [rsa.jwk];
    const server = serveJwks("/jwks-rotating.json", "max-age=600", () => ({ keys }));
    const { org, request } = await jwksOrg("/jwks-rotating.json");
    expect(
      (
        await verify(org, {
          patient_id: "P-C",
          signature_id: request.id,
          session_token: await rs256({ sub: "P-C", jti: "r-1" }),
        })
      ).body.valid,
    ).toBe(true);
    expect(server.fetches()).toBe(1);

    keys = [rsa.jwk, k2];
    const withK2 = (jti: string) => rs256({ sub: "P-C", jti }, 300, rotated.privateKey as CryptoKey, "k2");
    // Within 30 s of the last fetch an unknown kid does not reach the issuer again.
    expect(
      (await verify(org, { patient_id: "P-C", signature_id: request.id, session_token: await withK2("r-2") })).body
        .valid,
    ).toBe(false);
    expect(server.fetches()).toBe(1);

    const later = Date.now() + (JWKS_REFRESH_INTERVAL_SECONDS + 1) * 1000;
    const clock = vi.spyOn(hostSessionJwksCache, "now").mockReturnValue(later);
    try {
      expect(
        (await verify(org, { patient_id: "P-C", signature_id: request.id, session_token: await withK2("r-3") })).body
          .valid,
      ).toBe(true);
      expect(server.fetches()).toBe(2);
      // The refreshed set is cached: k2 again needs no fetch, and a kid nobody has gets no second refetch.
      expect(
        (await verify(org, { patient_id: "P-C", signature_id: request.id, session_token: await withK2("r-4") })).body
          .valid,
      ).toBe(true);
      const stranger = await generateKeyPair("RS256");
      const unknownKid = await rs256({ sub: "P-C", jti: "r-5" }, 300, stranger.privateKey as CryptoKey, "k9");
      expect(
        (await verify(org, { patient_id: "P-C", signature_id: request.id, session_token: unknownKid })).body.valid,
      ).toBe(false);
      expect(server.fetches()).toBe(2);
    } finally {
      clock.mockRestore();
    }
    expect(await refusalReasons(org)).toEqual(["bad_token", "bad_token"]);
  });
});

describe("A4 audience, issuer and required jti", () => {
  const AUDIENCE = "clinsign-verify";
  const ISSUER = "https://portal.example";

  it("HS256: aud must contain the audience and iss equal the issuer when configured; a missing one is refused", async () => {
    const org = await orgWith({
      sessionMethod: "hs256",
      sessionJwtSecret: SECRET,
      sessionAudience: AUDIENCE,
      sessionIssuer: ISSUER,
    });
    const request = await requestSignature(api, org, documentIds[org.orgId]!, "P-A");
    const good = await hs256({ sub: "P-A", aud: ["other", AUDIENCE], iss: ISSUER });
    expect((await verify(org, { patient_id: "P-A", signature_id: request.id, session_token: good })).body.valid).toBe(
      true,
    );
    const cases: [string, string][] = [
      ["audience_mismatch", await hs256({ sub: "P-A", aud: "someone-else", iss: ISSUER })],
      ["audience_missing", await hs256({ sub: "P-A", iss: ISSUER })],
      ["issuer_mismatch", await hs256({ sub: "P-A", aud: AUDIENCE, iss: "https://evil.example" })],
      ["issuer_missing", await hs256({ sub: "P-A", aud: AUDIENCE })],
    ];
    for (const [reason, token] of cases) {
      const res = await verify(org, { patient_id: "P-A", signature_id: request.id, session_token: token });
      expect(res.body, reason).toEqual({ valid: false, redirect_url: null, session_token: token });
    }
    expect(await refusalReasons(org)).toEqual(cases.map(([r]) => r));
  });

  it("JWKS: the same audience and issuer checks", async () => {
    const org = await orgWith({
      sessionMethod: "jwks",
      sessionJwksUrl: `${files.origin}/jwks.json`,
      sessionAudience: AUDIENCE,
      sessionIssuer: ISSUER,
    });
    const request = await requestSignature(api, org, documentIds[org.orgId]!, "P-A");
    expect(
      (
        await verify(org, {
          patient_id: "P-A",
          signature_id: request.id,
          session_token: await rs256({ sub: "P-A", aud: AUDIENCE, iss: ISSUER }),
        })
      ).body.valid,
    ).toBe(true);
    expect(
      (
        await verify(org, {
          patient_id: "P-A",
          signature_id: request.id,
          session_token: await rs256({ sub: "P-A", aud: "x", iss: ISSUER }),
        })
      ).body.valid,
    ).toBe(false);
    expect(
      (
        await verify(org, {
          patient_id: "P-A",
          signature_id: request.id,
          session_token: await rs256({ sub: "P-A", aud: AUDIENCE, iss: "x" }),
        })
      ).body.valid,
    ).toBe(false);
    expect(await refusalReasons(org)).toEqual(["audience_mismatch", "issuer_mismatch"]);
  });

  it("introspection: aud and iss of the answer are compared, and a missing one is refused unless explicitly accepted", async () => {
    const now = Math.floor(Date.now() / 1000);
    const answers: Record<string, Record<string, unknown>> = {
      "ok-bare": { active: true, sub: "P-A", exp: now + 300 },
      "ok-claims": { active: true, sub: "P-A", exp: now + 300, aud: [AUDIENCE], iss: ISSUER },
      "wrong-aud": { active: true, sub: "P-A", exp: now + 300, aud: "someone-else" },
      "wrong-iss": { active: true, sub: "P-A", exp: now + 300, aud: AUDIENCE, iss: "https://evil.example" },
      "no-iss": { active: true, sub: "P-A", exp: now + 300, aud: AUDIENCE },
    };
    files.set("/introspect-claims", (_req, res, body) => {
      res
        .writeHead(200, { "content-type": "application/json" })
        .end(JSON.stringify(answers[new URLSearchParams(body).get("token") ?? ""] ?? { active: false }));
    });
    const org = await orgWith({
      sessionMethod: "introspection",
      sessionIntrospectionUrl: `${files.origin}/introspect-claims`,
      sessionAudience: AUDIENCE,
      sessionIssuer: ISSUER,
    });
    const request = await requestSignature(api, org, documentIds[org.orgId]!, "P-A");
    const valid = async (token: string) =>
      (await verify(org, { patient_id: "P-A", signature_id: request.id, session_token: token })).body.valid;
    expect(await valid("ok-claims")).toBe(true);
    expect(await valid("ok-bare")).toBe(false);
    expect(await valid("no-iss")).toBe(false);
    expect(await valid("wrong-aud")).toBe(false);
    expect(await valid("wrong-iss")).toBe(false);
    expect(await refusalReasons(org)).toEqual([
      "audience_missing",
      "issuer_missing",
      "audience_mismatch",
      "issuer_mismatch",
    ]);

    // Accepting tokens without the claims is an explicit setting; a claim that is present still has to match.
    const lenient = await orgWith({
      sessionMethod: "introspection",
      sessionIntrospectionUrl: `${files.origin}/introspect-claims`,
      sessionAudience: AUDIENCE,
      sessionIssuer: ISSUER,
      sessionAcceptMissingAudIss: true,
    });
    const other = await requestSignature(api, lenient, documentIds[lenient.orgId]!, "P-A");
    const validThere = async (token: string) =>
      (await verify(lenient, { patient_id: "P-A", signature_id: other.id, session_token: token })).body.valid;
    expect(await validThere("ok-bare")).toBe(true);
    expect(await validThere("no-iss")).toBe(true);
    expect(await validThere("wrong-aud")).toBe(false);
    expect(await validThere("wrong-iss")).toBe(false);
    expect(await refusalReasons(lenient)).toEqual(["audience_mismatch", "issuer_mismatch"]);
  });

  it("JWT: accepting tokens without aud/iss is the same explicit setting", async () => {
    const org = await orgWith({
      sessionMethod: "hs256",
      sessionJwtSecret: SECRET,
      sessionAudience: AUDIENCE,
      sessionIssuer: ISSUER,
      sessionAcceptMissingAudIss: true,
    });
    const request = await requestSignature(api, org, documentIds[org.orgId]!, "P-A");
    const check = async (claims: Record<string, unknown>) =>
      (
        await verify(org, {
          patient_id: "P-A",
          signature_id: request.id,
          session_token: await hs256({ sub: "P-A", ...claims }),
        })
      ).body.valid;
    expect(await check({})).toBe(true);
    expect(await check({ aud: AUDIENCE })).toBe(true);
    expect(await check({ aud: "someone-else" })).toBe(false);
    expect(await check({ iss: "https://evil.example" })).toBe(false);
    expect(await refusalReasons(org)).toEqual(["audience_mismatch", "issuer_mismatch"]);
  });

  it("with require-jti on, a token without jti is refused; without it, it is accepted", async () => {
    const strict = await orgWith({ sessionMethod: "hs256", sessionJwtSecret: SECRET, sessionRequireJti: true });
    const request = await requestSignature(api, strict, documentIds[strict.orgId]!, "P-T");
    const noJti = await hs256({ sub: "P-T" });
    expect((await verify(strict, { patient_id: "P-T", signature_id: request.id, session_token: noJti })).body).toEqual({
      valid: false,
      redirect_url: null,
      session_token: noJti,
    });
    expect(await refusalReasons(strict)).toEqual(["jti_missing"]);
    expect(
      (
        await verify(strict, {
          patient_id: "P-T",
          signature_id: request.id,
          session_token: await hs256({ sub: "P-T", jti: "t-1" }),
        })
      ).body.valid,
    ).toBe(true);

    const lenient = await orgWith({ sessionMethod: "hs256", sessionJwtSecret: SECRET });
    const other = await requestSignature(api, lenient, documentIds[lenient.orgId]!, "P-T");
    expect(
      (await verify(lenient, { patient_id: "P-T", signature_id: other.id, session_token: noJti })).body.valid,
    ).toBe(true);
  });
});

describe("A4 with an RFC 7662 introspection URL", () => {
  it("posts the token form-encoded and accepts only active tokens of the patient with a short lifetime", async () => {
    const answers = new Map<string, Record<string, unknown>>();
    files.set("/introspect", (_req, res, body) => {
      const token = new URLSearchParams(body).get("token") ?? "";
      res
        .writeHead(200, { "content-type": "application/json" })
        .end(JSON.stringify(answers.get(token) ?? { active: false }));
    });
    const org = await orgWith({
      sessionMethod: "introspection",
      sessionIntrospectionUrl: `${files.origin}/introspect`,
      sessionJwtSecret: "client-credential-0123456789",
    });
    const request = await requestSignature(api, org, documentIds[org.orgId]!, "P-I");
    const now = Math.floor(Date.now() / 1000);
    answers.set("opaque-good", { active: true, sub: "P-I", exp: now + 300, jti: "i-1" });
    answers.set("opaque-other", { active: true, sub: "P-other", exp: now + 300 });
    answers.set("opaque-long", { active: true, sub: "P-I", exp: now + 3600 });
    answers.set("opaque-noexp", { active: true, sub: "P-I" });
    answers.set("opaque-expired", { active: true, sub: "P-I", exp: now - 60 });
    const ok = await verify(org, { patient_id: "P-I", signature_id: request.id, session_token: "opaque-good" });
    expect(ok.body).toMatchObject({ valid: true, session_token: "opaque-good" });
    const call = files.requests.filter((r) => r.path === "/introspect").pop()!;
    expect(call.method).toBe("POST");
    expect(call.headers["content-type"]).toBe("application/x-www-form-urlencoded");
    expect(call.headers.authorization).toBe("Bearer client-credential-0123456789");
    expect(new URLSearchParams(call.body).get("token")).toBe("opaque-good");
    const cases: [string, string][] = [
      ["inactive_token", "opaque-unknown"],
      ["patient_mismatch", "opaque-other"],
      ["lifetime_too_long", "opaque-long"],
      ["bad_token", "opaque-noexp"],
      ["token_expired", "opaque-expired"],
      ["jti_replayed", "opaque-good"],
    ];
    for (const [reason, token] of cases) {
      const res = await verify(org, { patient_id: "P-I", signature_id: request.id, session_token: token });
      expect(res.body, reason).toEqual({ valid: false, redirect_url: null, session_token: token });
    }
    expect(await refusalReasons(org)).toEqual(cases.map(([r]) => r));
    files.set("/introspect-down", (_req, res) => void res.writeHead(500).end());
    const down = await orgWith({
      sessionMethod: "introspection",
      sessionIntrospectionUrl: `${files.origin}/introspect-down`,
    });
    const downRequest = await requestSignature(api, down, documentIds[down.orgId]!, "P-I");
    expect(
      (await verify(down, { patient_id: "P-I", signature_id: downRequest.id, session_token: "opaque-good" })).body
        .valid,
    ).toBe(false);
    expect(await refusalReasons(down)).toEqual(["introspection_unavailable"]);
  });
});

describe("A4 without a configured method", () => {
  it("answers valid:false", async () => {
    const org = await api.createOrg();
    const documentId = await registerDocument(api, files, org);
    const request = await requestSignature(api, org, documentId, "P-N");
    const res = await verify(org, {
      patient_id: "P-N",
      signature_id: request.id,
      session_token: await hs256({ sub: "P-N" }),
    });
    expect(res.body).toMatchObject({ valid: false, redirect_url: null });
    expect(await refusalReasons(org)).toEqual(["no_method_configured"]);
  });
});
