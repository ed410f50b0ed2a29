import { createHash, createPrivateKey, randomUUID, type KeyObject } from "node:crypto";
import { SignJWT } from "jose";
import type { OrgContext, Services } from "../context";
import { guardedFetch } from "../outbound/guarded-fetch";
import { webhookPolicy } from "../webhooks/destinations";
import type { FhirPushTargetRow } from "./targets";

/** Why the service could not obtain a token: the delivery records it and retries. */
export class FhirAuthError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "FhirAuthError";
  }
}

const TOKEN_TIMEOUT_MS = 10_000;
const MAX_TOKEN_RESPONSE_BYTES = 64 * 1024;
/** A token is renewed this long before the server said it expires. */
const RENEW_EARLY_MS = 60_000;
/** SMART backend services: the assertion's lifetime (the specification allows at most 5 minutes). */
const ASSERTION_SECONDS = 300;

interface CachedToken {
  value: string;
  expiresAt: number;
}

/**
 * Tokens by organization and settings: a changed secret, client or token URL is another key, so
 * a saved change takes effect at the next delivery. Per process, in memory; a restart asks again.
 */
const tokens = new Map<string, CachedToken>();

/**
 * The Authorization header for a delivery to the organization's FHIR server: none, the stored
 * bearer token, or an access token from its token endpoint (OAuth2 client credentials with the
 * client secret, or SMART backend services with a signed JWT assertion, RFC 7523).
 */
export async function authorizationOf(
  { services }: Pick<OrgContext, "services">,
  target: FhirPushTargetRow,
): Promise<string | undefined> {
  if (target.auth === "none") return undefined;
  const secret = target.secretEnc ? services.secrets.open(target.secretEnc) : null;
  if (!secret) throw new FhirAuthError(`no credential is stored for ${target.auth}`);
  if (target.auth === "bearer") return `Bearer ${secret}`;
  const key = cacheKey(target);
  const cached = tokens.get(key);
  if (cached && cached.expiresAt - RENEW_EARLY_MS > Date.now()) return `Bearer ${cached.value}`;
  const fresh = await requestToken(services, target, secret);
  tokens.set(key, fresh);
  return `Bearer ${fresh.value}`;
}

/** After a 401: the server no longer takes the token it was given (revoked, rotated); the next attempt asks anew. */
export function forgetToken(target: FhirPushTargetRow): void {
  tokens.delete(cacheKey(target));
}

const cacheKey = (target: FhirPushTargetRow) =>
  createHash("sha256")
    .update(
      [target.organizationId, target.auth, target.tokenUrl, target.clientId, target.scope, target.secretEnc].join("\n"),
    )
    .digest("hex");

async function requestToken(services: Services, target: FhirPushTargetRow, secret: string): Promise<CachedToken> {
  if (!target.tokenUrl || !target.clientId) throw new FhirAuthError("the token URL and client id are not set");
  const form = new URLSearchParams({ grant_type: "client_credentials" });
  if (target.scope) form.set("scope", target.scope);
  if (target.auth === "client_credentials") {
    form.set("client_id", target.clientId);
    form.set("client_secret", secret);
  } else {
    form.set("client_assertion_type", "urn:ietf:params:oauth:client-assertion-type:jwt-bearer");
    form.set("client_assertion", await clientAssertion(target.clientId, target.tokenUrl, secret));
  }
  const response = await guardedFetch(target.tokenUrl, webhookPolicy(services.config), {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded", accept: "application/json" },
    body: form.toString(),
    timeoutMs: TOKEN_TIMEOUT_MS,
    maxBytes: MAX_TOKEN_RESPONSE_BYTES,
    maxRedirects: 0,
    purpose: "oauth_token",
  });
  if (response.status !== 200) throw new FhirAuthError(`the token endpoint answered HTTP ${response.status}`);
  return tokenOf(response.body);
}

function tokenOf(body: Buffer): CachedToken {
  let parsed: { access_token?: unknown; expires_in?: unknown };
  try {
    parsed = JSON.parse(body.toString("utf8")) as typeof parsed;
  } catch {
    throw new FhirAuthError("the token endpoint did not answer JSON");
  }
  if (typeof parsed.access_token !== "string" || !parsed.access_token)
    throw new FhirAuthError("the token endpoint's answer has no access_token");
  const seconds = typeof parsed.expires_in === "number" && parsed.expires_in > 0 ? parsed.expires_in : 300;
  return { value: parsed.access_token, expiresAt: Date.now() + seconds * 1000 };
}

/**
 * SMART backend services' client assertion: a JWT the client signs with its private key (RS384
 * for an RSA key, ES384 for an EC key, the two the specification names), for the token URL.
 */
async function clientAssertion(clientId: string, tokenUrl: string, pem: string): Promise<string> {
  let key: KeyObject;
  try {
    key = createPrivateKey(pem);
  } catch {
    throw new FhirAuthError("the stored private key is not a PEM private key");
  }
  const alg = key.asymmetricKeyType === "ec" ? "ES384" : "RS384";
  const now = Math.floor(Date.now() / 1000);
  return new SignJWT({})
    .setProtectedHeader({ alg, typ: "JWT" })
    .setIssuer(clientId)
    .setSubject(clientId)
    .setAudience(tokenUrl)
    .setIssuedAt(now)
    .setExpirationTime(now + ASSERTION_SECONDS)
    .setJti(randomUUID())
    .sign(key);
}
