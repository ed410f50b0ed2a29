import { createHash } from "node:crypto";
import { decodeProtectedHeader, errors as joseErrors, jwtVerify, type JWTPayload } from "jose";
import type { Services } from "../../context";
import { safeEqual } from "../../crypto";
import { guardedFetch, OutboundError } from "../../outbound/guarded-fetch";
import {
  JwksCache,
  jwksCacheSeconds,
  NotAKeySet,
  type FetchedJwks,
  type KeyResolver,
} from "../../signatures/jwks-cache";

/**
 * The OpenID Connect relying party: discovery, the token request and the ID token's checks.
 * Every request to the provider goes through the outbound guard (a provider on a private address
 * must be allow-listed in OUTBOUND_ALLOW_HOSTS).
 */

const OUTBOUND = { timeoutMs: 10_000, maxBytes: 512 * 1024, maxRedirects: 0 };
const CLOCK_TOLERANCE_SECONDS = 30;
const ID_TOKEN_ALGORITHMS = ["RS256", "RS384", "RS512", "PS256", "PS384", "PS512", "ES256", "ES384", "ES512", "EdDSA"];
const DISCOVERY_MAX_ENTRIES = 200;

/** Why a step with the provider failed; audited, and turned into a message on the login page. */
export type OidcFailure =
  | "discovery_failed"
  | "token_exchange_failed"
  | "jwks_unavailable"
  | "bad_id_token"
  | "token_expired"
  | "issuer_mismatch"
  | "audience_mismatch"
  | "azp_mismatch"
  | "nonce_mismatch";

export class OidcError extends Error {
  constructor(
    readonly reason: OidcFailure,
    readonly detail?: string,
  ) {
    super(reason);
  }
}

export interface ProviderMetadata {
  issuer: string;
  authorization_endpoint: string;
  token_endpoint: string;
  jwks_uri: string;
  token_endpoint_auth_methods_supported?: string[];
  code_challenge_methods_supported?: string[];
}

/** Key sets of organizations' OpenID providers; an unknown `kid` refetches (key rotation). */
export const oidcJwksCache = new JwksCache();

const discoveryCache = new Map<string, { metadata: ProviderMetadata; expiresAt: number }>();

export function clearOidcCaches(): void {
  discoveryCache.clear();
  oidcJwksCache.clear();
}

async function fetchProvider(
  services: Services,
  url: string,
  init: { method?: string; headers?: Record<string, string>; body?: string },
  failure: OidcFailure,
) {
  let response;
  try {
    response = await guardedFetch(
      url,
      { allowHosts: services.config.outboundAllowHosts },
      { ...OUTBOUND, ...init, headers: { accept: "application/json", ...init.headers }, purpose: "oidc" },
    );
  } catch (error) {
    throw new OidcError(failure, error instanceof OutboundError ? error.reason : "request failed");
  }
  let body: unknown;
  try {
    body = JSON.parse(response.body.toString("utf8"));
  } catch {
    throw new OidcError(failure, `HTTP ${response.status}, not JSON`);
  }
  return { status: response.status, body, cacheControl: response.headers["cache-control"] };
}

const isHttpUrl = (value: unknown): value is string => {
  if (typeof value !== "string") return false;
  try {
    return ["https:", "http:"].includes(new URL(value).protocol);
  } catch {
    return false;
  }
};

/**
 * The provider's `/.well-known/openid-configuration`, cached as its Cache-Control allows (at most
 * an hour). Its `issuer` must be exactly the configured one (OpenID Connect Discovery 1.0 §4.3).
 */
export async function discoverProvider(services: Services, issuer: string): Promise<ProviderMetadata> {
  const cached = discoveryCache.get(issuer);
  if (cached && cached.expiresAt > Date.now()) return cached.metadata;
  const url = `${issuer.replace(/\/$/, "")}/.well-known/openid-configuration`;
  const { status, body, cacheControl } = await fetchProvider(services, url, {}, "discovery_failed");
  if (status !== 200) throw new OidcError("discovery_failed", `HTTP ${status}`);
  const metadata = body as Partial<ProviderMetadata> | null;
  if (!metadata || typeof metadata !== "object") throw new OidcError("discovery_failed", "not a discovery document");
  if (metadata.issuer !== issuer) throw new OidcError("discovery_failed", "the document names another issuer");
  if (
    !isHttpUrl(metadata.authorization_endpoint) ||
    !isHttpUrl(metadata.token_endpoint) ||
    !isHttpUrl(metadata.jwks_uri)
  ) {
    throw new OidcError("discovery_failed", "authorization_endpoint, token_endpoint or jwks_uri missing");
  }
  const checked = metadata as ProviderMetadata;
  const seconds = jwksCacheSeconds(cacheControl);
  if (seconds > 0) {
    if (discoveryCache.size >= DISCOVERY_MAX_ENTRIES) discoveryCache.delete(discoveryCache.keys().next().value!);
    discoveryCache.set(issuer, { metadata: checked, expiresAt: Date.now() + seconds * 1000 });
  }
  return checked;
}

/** RFC 7636 S256: base64url(SHA-256(verifier)). */
export function codeChallengeS256(verifier: string): string {
  return createHash("sha256").update(verifier).digest("base64url");
}

export function authorizationUrl(
  metadata: ProviderMetadata,
  params: {
    clientId: string;
    redirectUri: string;
    state: string;
    nonce: string;
    codeVerifier: string;
    loginHint?: string;
  },
): string {
  const url = new URL(metadata.authorization_endpoint);
  url.searchParams.set("response_type", "code");
  url.searchParams.set("client_id", params.clientId);
  url.searchParams.set("redirect_uri", params.redirectUri);
  url.searchParams.set("scope", "openid email profile");
  url.searchParams.set("state", params.state);
  url.searchParams.set("nonce", params.nonce);
  url.searchParams.set("code_challenge", codeChallengeS256(params.codeVerifier));
  url.searchParams.set("code_challenge_method", "S256");
  if (params.loginHint) url.searchParams.set("login_hint", params.loginHint);
  return url.toString();
}

/**
 * Redeems the authorization code (with the PKCE verifier) for an ID token. The client
 * authenticates with HTTP Basic (`client_secret_basic`) unless the provider only lists
 * `client_secret_post`.
 */
export async function exchangeCode(
  services: Services,
  metadata: ProviderMetadata,
  params: { clientId: string; clientSecret: string; code: string; codeVerifier: string; redirectUri: string },
): Promise<string> {
  const form = new URLSearchParams({
    grant_type: "authorization_code",
    code: params.code,
    redirect_uri: params.redirectUri,
    code_verifier: params.codeVerifier,
  });
  const headers: Record<string, string> = { "content-type": "application/x-www-form-urlencoded" };
  const methods = metadata.token_endpoint_auth_methods_supported;
  if (methods && !methods.includes("client_secret_basic") && methods.includes("client_secret_post")) {
    form.set("client_id", params.clientId);
    form.set("client_secret", params.clientSecret);
  } else {
    // RFC 6749 §2.3.1: both parts form-encoded before they are joined.
    const basic = Buffer.from(
      `${encodeURIComponent(params.clientId)}:${encodeURIComponent(params.clientSecret)}`,
    ).toString("base64");
    headers.authorization = `Basic ${basic}`;
  }
  const { status, body } = await fetchProvider(
    services,
    metadata.token_endpoint,
    { method: "POST", headers, body: form.toString() },
    "token_exchange_failed",
  );
  const answer = body as { id_token?: unknown; error?: unknown } | null;
  if (status !== 200)
    throw new OidcError(
      "token_exchange_failed",
      typeof answer?.error === "string" ? answer.error.slice(0, 100) : `HTTP ${status}`,
    );
  if (typeof answer?.id_token !== "string") throw new OidcError("token_exchange_failed", "no id_token in the answer");
  return answer.id_token;
}

function joseFailure(error: unknown): OidcError {
  if (error instanceof joseErrors.JWTExpired) return new OidcError("token_expired");
  if (error instanceof joseErrors.JWTClaimValidationFailed) {
    if (error.claim === "iss") return new OidcError("issuer_mismatch");
    if (error.claim === "aud") return new OidcError("audience_mismatch");
  }
  return new OidcError("bad_id_token", error instanceof Error ? error.message.slice(0, 200) : undefined);
}

async function providerKeys(services: Services, jwksUri: string, refresh: boolean): Promise<KeyResolver | null> {
  const fetchJwks = async (): Promise<FetchedJwks> => {
    const { status, body, cacheControl } = await fetchProvider(services, jwksUri, {}, "jwks_unavailable");
    if (status !== 200) throw new OidcError("jwks_unavailable", `HTTP ${status}`);
    return { body, cacheControl };
  };
  try {
    return refresh ? await oidcJwksCache.refreshed(jwksUri, fetchJwks) : await oidcJwksCache.keys(jwksUri, fetchJwks);
  } catch (error) {
    if (error instanceof NotAKeySet) throw new OidcError("jwks_unavailable", error.message);
    throw error;
  }
}

/**
 * The ID token's checks (OpenID Connect Core §3.1.3.7): signature against the provider's JWKS
 * (refetched once for a key it does not have), `iss` equal to the issuer, `aud` containing our
 * client id, `azp` (present, or required with several audiences) equal to it, `exp` in the future,
 * and `nonce` equal to the one this sign-in sent.
 */
export async function verifyIdToken(
  services: Services,
  metadata: ProviderMetadata,
  idToken: string,
  expected: { issuer: string; clientId: string; nonce: string },
): Promise<JWTPayload> {
  try {
    decodeProtectedHeader(idToken);
  } catch {
    throw new OidcError("bad_id_token", "not a JWT");
  }
  const options = {
    issuer: expected.issuer,
    audience: expected.clientId,
    algorithms: ID_TOKEN_ALGORITHMS,
    clockTolerance: CLOCK_TOLERANCE_SECONDS,
    requiredClaims: ["exp", "iat", "sub"],
  };
  let payload: JWTPayload;
  const keys = (await providerKeys(services, metadata.jwks_uri, false))!;
  try {
    payload = (await jwtVerify(idToken, keys, options)).payload;
  } catch (error) {
    if (!(error instanceof joseErrors.JWKSNoMatchingKey)) throw joseFailure(error);
    // A key the cached set lacks: the provider may have rotated its keys.
    const fresh = await providerKeys(services, metadata.jwks_uri, true);
    if (!fresh) throw new OidcError("bad_id_token", "no key in the provider's JWK set matches the token");
    try {
      payload = (await jwtVerify(idToken, fresh, options)).payload;
    } catch (retryError) {
      throw joseFailure(retryError);
    }
  }
  const audiences = Array.isArray(payload.aud) ? payload.aud : [payload.aud];
  if (payload.azp !== undefined ? payload.azp !== expected.clientId : audiences.length > 1)
    throw new OidcError("azp_mismatch");
  if (typeof payload.nonce !== "string" || !safeEqual(payload.nonce, expected.nonce))
    throw new OidcError("nonce_mismatch");
  return payload;
}
