import { errors as joseErrors, jwtVerify, type JWTPayload, type JWTVerifyOptions } from "jose";
import type { z } from "zod";
import type { verifySessionInput, VerifySessionOutput } from "@clinsign/contracts";
import { eq, lt, type organizations, signatureRequests, signingCredentials, usedSessionJtis } from "@clinsign/db";
import { recordAudit } from "../audit/audit";
import { inTransaction, type OrgContext } from "../context";
import { randomSecret, sha256Hex } from "../crypto";
import { isUuid } from "../documents/documents";
import { guardedFetch, OutboundError } from "../outbound/guarded-fetch";
import { hostSessionJwksCache, NotAKeySet, type FetchedJwks, type KeyResolver } from "./jwks-cache";
import { expireIfDue } from "./requests";
import { ticketLink } from "./request-read";
import { signedCopyOf } from "./signed-copy";

/**
 * A4, "host session": the patient portal of the organization (the host) vouches for its
 * signed-in patient with a short-lived token of its own session (the wire's `session_token`);
 * confirmed here, it is exchanged for a one-time ticket into the signing page. Code names say
 * "host session" for that token, never plain "session" (the console's staff session, an embed
 * session and the signing pass are other things).
 */

/** A host session token may live at most this long (from now, and from its `iat`). */
export const MAX_HOST_SESSION_SECONDS = 600;
/** Lifetime of the one-time ticket in redirect_url. */
export const TICKET_SECONDS = 300;
const CLOCK_TOLERANCE_SECONDS = 5;
const OUTBOUND = { timeoutMs: 5_000, maxBytes: 256 * 1024, maxRedirects: 0 };
const JWKS_ALGORITHMS = ["RS256", "RS384", "RS512", "PS256", "PS384", "PS512", "ES256", "ES384", "ES512", "EdDSA"];

/** Why a verification was refused; recorded in the audit entry, never told to the caller. */
export type RefusalReason =
  | "no_method_configured"
  | "unknown_signature"
  | "patient_mismatch"
  | "request_not_open"
  | "bad_token"
  | "token_expired"
  | "lifetime_too_long"
  | "jti_replayed"
  | "jti_missing"
  | "audience_mismatch"
  | "audience_missing"
  | "issuer_mismatch"
  | "issuer_missing"
  | "jwks_unavailable"
  | "introspection_unavailable"
  | "inactive_token";

class Refusal extends Error {
  constructor(
    readonly reason: RefusalReason,
    readonly detail?: string,
  ) {
    super(reason);
  }
}

interface HostSessionClaims {
  sub?: unknown;
  aud?: unknown;
  iss?: unknown;
  exp?: unknown;
  iat?: unknown;
  jti?: unknown;
}

type OrgRow = typeof organizations.$inferSelect;
/** A4's input as the door parsed it (`session_token` is the host session token). */
export type VerifyHostSessionInput = z.output<typeof verifySessionInput>;

function joseRefusal(error: unknown): Refusal {
  if (error instanceof joseErrors.JWTExpired) return new Refusal("token_expired");
  return new Refusal("bad_token", error instanceof Error ? error.message.slice(0, 200) : undefined);
}

async function fetchJson(
  ctx: OrgContext,
  url: string,
  init: { method?: string; headers?: Record<string, string>; body?: string },
  failure: RefusalReason,
) {
  try {
    const response = await guardedFetch(
      url,
      { allowHosts: ctx.services.config.outboundAllowHosts },
      { ...OUTBOUND, ...init, headers: { accept: "application/json", ...init.headers }, purpose: "verify" },
    );
    if (response.status !== 200) throw new Refusal(failure, `HTTP ${response.status}`);
    const cacheControl = response.headers["cache-control"];
    return { body: JSON.parse(response.body.toString("utf8")) as unknown, cacheControl };
  } catch (error) {
    if (error instanceof Refusal) throw error;
    throw new Refusal(failure, error instanceof OutboundError ? error.reason : "not JSON");
  }
}

/** A key set from the cache (or a fetch), with the fetch's failures as refusals. */
async function jwksKeys(ctx: OrgContext, url: string, refresh: boolean): Promise<KeyResolver | null> {
  const fetchJwks = (): Promise<FetchedJwks> => fetchJson(ctx, url, {}, "jwks_unavailable");
  try {
    return refresh
      ? await hostSessionJwksCache.refreshed(url, fetchJwks)
      : await hostSessionJwksCache.keys(url, fetchJwks);
  } catch (error) {
    if (error instanceof NotAKeySet) throw new Refusal("jwks_unavailable", error.message);
    throw error;
  }
}

/**
 * `aud` and `iss` against the organization's configured audience and issuer, one check for every
 * method (JWTs and RFC 7662 answers alike): `aud` (a string or a list) must contain the audience,
 * `iss` must equal the issuer. A configured check whose claim is missing refuses, unless the
 * organization explicitly accepts such tokens (`sessionAcceptMissingAudIss`, off by default; RFC
 * 7662 makes both optional, so some introspection endpoints omit them). A present claim is always
 * compared. Nothing is checked where nothing is configured.
 */
function checkAudienceAndIssuer(
  org: Pick<OrgRow, "sessionAudience" | "sessionIssuer" | "sessionAcceptMissingAudIss">,
  claims: Pick<HostSessionClaims, "aud" | "iss">,
): void {
  if (org.sessionAudience !== null) {
    if (claims.aud === undefined) {
      if (!org.sessionAcceptMissingAudIss) throw new Refusal("audience_missing");
    } else {
      const audiences: unknown[] = Array.isArray(claims.aud) ? claims.aud : [claims.aud];
      if (!audiences.includes(org.sessionAudience)) throw new Refusal("audience_mismatch");
    }
  }
  if (org.sessionIssuer !== null) {
    if (claims.iss === undefined) {
      if (!org.sessionAcceptMissingAudIss) throw new Refusal("issuer_missing");
    } else if (claims.iss !== org.sessionIssuer) {
      throw new Refusal("issuer_mismatch");
    }
  }
}

/**
 * Confirms the host session token with the organization's configured method and returns its claims,
 * with `aud` and `iss` checked (checkAudienceAndIssuer).
 */
async function confirmToken(ctx: OrgContext, org: OrgRow, token: string): Promise<HostSessionClaims> {
  const claims = await confirmedClaims(ctx, org, token);
  checkAudienceAndIssuer(org, claims);
  return claims;
}

/** The token's claims as the configured method confirms them (signature, `exp`, an active introspection answer). */
async function confirmedClaims(ctx: OrgContext, org: OrgRow, token: string): Promise<HostSessionClaims> {
  // `aud` and `iss` are compared by checkAudienceAndIssuer, the same way for every method.
  const options: JWTVerifyOptions = { requiredClaims: ["exp", "sub"], clockTolerance: CLOCK_TOLERANCE_SECONDS };
  switch (org.sessionMethod) {
    case "hs256": {
      if (!org.sessionJwtSecretEnc) throw new Refusal("no_method_configured");
      const secret = new TextEncoder().encode(ctx.services.secrets.open(org.sessionJwtSecretEnc));
      try {
        return (await jwtVerify(token, secret, { ...options, algorithms: ["HS256"] })).payload;
      } catch (error) {
        throw joseRefusal(error);
      }
    }
    case "jwks": {
      if (!org.sessionJwksUrl) throw new Refusal("no_method_configured");
      const jwksOptions = { ...options, algorithms: JWKS_ALGORITHMS };
      const keys = (await jwksKeys(ctx, org.sessionJwksUrl, false))!;
      try {
        return (await jwtVerify(token, keys, jwksOptions)).payload;
      } catch (error) {
        if (!(error instanceof joseErrors.JWKSNoMatchingKey)) throw joseRefusal(error);
      }
      // The token names a key the cached set lacks: the issuer may have rotated its keys.
      const fresh = await jwksKeys(ctx, org.sessionJwksUrl, true);
      if (!fresh) throw new Refusal("bad_token", "no key in the JWK set matches the token");
      try {
        return (await jwtVerify(token, fresh, jwksOptions)).payload;
      } catch (error) {
        throw joseRefusal(error);
      }
    }
    case "introspection": {
      if (!org.sessionIntrospectionUrl) throw new Refusal("no_method_configured");
      // RFC 7662: form-encoded token; the organization's shared secret, when set, authenticates us.
      const headers: Record<string, string> = { "content-type": "application/x-www-form-urlencoded" };
      if (org.sessionJwtSecretEnc)
        headers.authorization = `Bearer ${ctx.services.secrets.open(org.sessionJwtSecretEnc)}`;
      const body = new URLSearchParams({ token, token_type_hint: "access_token" }).toString();
      const answer = (
        await fetchJson(
          ctx,
          org.sessionIntrospectionUrl,
          { method: "POST", headers, body },
          "introspection_unavailable",
        )
      ).body as JWTPayload & {
        active?: unknown;
      };
      if (!answer || typeof answer !== "object" || answer.active !== true) throw new Refusal("inactive_token");
      if (typeof answer.exp !== "number") throw new Refusal("bad_token", "introspection answer has no exp");
      if (answer.exp * 1000 <= Date.now() - CLOCK_TOLERANCE_SECONDS * 1000) throw new Refusal("token_expired");
      return answer;
    }
    default:
      throw new Refusal("no_method_configured");
  }
}

/** The rules every method shares: the patient, a short lifetime, a well-formed (or required) jti. */
function checkClaims(org: OrgRow, claims: HostSessionClaims, patientId: string): { exp: number; jti: string | null } {
  if (typeof claims.sub !== "string" || claims.sub !== patientId) throw new Refusal("patient_mismatch");
  const exp = claims.exp as number;
  const now = Date.now() / 1000;
  if (exp - now > MAX_HOST_SESSION_SECONDS + CLOCK_TOLERANCE_SECONDS)
    throw new Refusal("lifetime_too_long", "exp is too far ahead");
  if (typeof claims.iat === "number" && exp - claims.iat > MAX_HOST_SESSION_SECONDS)
    throw new Refusal("lifetime_too_long", "exp - iat exceeds 10 minutes");
  if (
    claims.jti !== undefined &&
    (typeof claims.jti !== "string" || claims.jti.length === 0 || claims.jti.length > 256)
  ) {
    throw new Refusal("bad_token", "jti must be a non-empty string");
  }
  if (org.sessionRequireJti && claims.jti === undefined) throw new Refusal("jti_missing");
  return { exp, jti: (claims.jti as string | undefined) ?? null };
}

/**
 * A one-time ticket into the signing page for a request (`TICKET_SECONDS` to be opened, stored
 * hashed); `signing.open` exchanges it for a signing pass once. A4 issues it after confirming the
 * host session, the desk ("Sign at this device", kiosk.ts) for the patient in front of it.
 */
export async function issueSigningTicket(tx: OrgContext, signatureRequestId: string): Promise<string> {
  const ticket = randomSecret(32);
  await tx.scope.insert(signingCredentials, {
    signatureRequestId,
    kind: "ticket",
    secretHash: sha256Hex(ticket),
    expiresAt: new Date(Date.now() + TICKET_SECONDS * 1000),
    ip: tx.request.ip,
    userAgent: tx.request.userAgent,
  });
  return ticket;
}

/**
 * A4. Confirms the host session token (the patient portal's) server-side and answers a one-time ticket
 * link (5 minutes) into the signing page. Every failure is `valid: false` with the same shape,
 * so callers learn nothing about which check failed; the audit entry records why.
 */
export async function verifyHostSession(ctx: OrgContext, input: VerifyHostSessionInput): Promise<VerifySessionOutput> {
  const invalid: VerifySessionOutput = { valid: false, redirect_url: null, session_token: input.session_token };
  const refuse = async (refusal: Refusal) => {
    await recordAudit(ctx, {
      action: "signature.session_refused",
      metadata: {
        signatureId: input.signature_id,
        reason: refusal.reason,
        ...(refusal.detail && { detail: refusal.detail }),
      },
    });
    return invalid;
  };

  const org = await ctx.scope.organization();
  if (!isUuid(input.signature_id)) return refuse(new Refusal("unknown_signature"));
  const [found] = await ctx.scope.select(signatureRequests, eq(signatureRequests.id, input.signature_id)).limit(1);
  if (!found) return refuse(new Refusal("unknown_signature"));
  if (found.patientId !== input.patient_id) return refuse(new Refusal("patient_mismatch"));

  let claims: { exp: number; jti: string | null };
  try {
    claims = checkClaims(org, await confirmToken(ctx, org, input.session_token), input.patient_id);
  } catch (error) {
    if (error instanceof Refusal) return refuse(error);
    throw error;
  }

  const outcome = await inTransaction(ctx, async (tx) => {
    const row = await expireIfDue(
      tx,
      (await tx.scope.select(signatureRequests, eq(signatureRequests.id, found.id)).limit(1).for("update"))[0]!,
    );
    // Open requests, and signed ones while the signer may still fetch their copy (the ticket
    // then opens the page with the download, behind the same verification as signing).
    const copyOpen = signedCopyOf(row, org.signedCopyDays).state;
    const usable =
      row.status === "pending" || row.status === "opened" || copyOpen === "preparing" || copyOpen === "available";
    if (row.visibility !== "active" || !usable) {
      return new Refusal("request_not_open", `${row.visibility}/${row.status}`);
    }
    if (claims.jti !== null) {
      await tx.scope.delete(usedSessionJtis, lt(usedSessionJtis.expiresAt, new Date()));
      const inserted = await tx.scope
        .insert(usedSessionJtis, {
          jti: claims.jti,
          expiresAt: new Date(claims.exp * 1000 + CLOCK_TOLERANCE_SECONDS * 1000),
        })
        .onConflictDoNothing()
        .returning();
      if (inserted.length === 0) return new Refusal("jti_replayed");
    }
    const ticket = await issueSigningTicket(tx, row.id);
    await recordAudit(tx, {
      action: "signature.session_verified",
      metadata: { signatureId: row.id, method: org.sessionMethod, ticketExpiresInSeconds: TICKET_SECONDS },
    });
    return ticket;
  });
  if (outcome instanceof Refusal) return refuse(outcome);
  return { valid: true, redirect_url: ticketLink(ctx, outcome), session_token: input.session_token };
}
