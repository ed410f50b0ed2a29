import { randomBytes } from "node:crypto";
import { createLocalJWKSet, decodeJwt, jwtVerify, type JWK } from "jose";

/**
 * The test FHIR server's authorization: a fixed bearer token, and an OAuth2 token endpoint for
 * the client credentials grant, the client authenticating either with a secret (HTTP Basic or
 * form fields, RFC 6749 2.3.1) or, as in SMART Backend Services, with a `client_assertion` JWT
 * signed by its private key (RS384 or ES384) and checked against the public JWKs the test
 * registers. Issued tokens are opaque and short-lived.
 */

export const CLIENT_ASSERTION_TYPE = "urn:ietf:params:oauth:client-assertion-type:jwt-bearer";
const ASSERTION_ALGORITHMS = ["RS384", "ES384"];
/** SMART Backend Services: an assertion's `exp` is at most five minutes ahead. */
const MAX_ASSERTION_LIFETIME_SECONDS = 300;

/** A client of the token endpoint: a `secret`, or the public `jwks` its assertions are signed for. */
export interface FhirClient {
  clientId: string;
  secret?: string;
  jwks?: JWK[];
}

export interface TokenAnswer {
  status: number;
  body: Record<string, unknown>;
  headers?: Record<string, string>;
}

export interface Authority {
  /** Whether requests need a bearer token: a fixed token was set or a client registered. */
  readonly required: boolean;
  registerClient(client: FhirClient): void;
  isAuthorized(authorization: string | undefined): boolean;
  issueToken(form: URLSearchParams, authorization: string | undefined): Promise<TokenAnswer>;
}

export function createAuthority(options: {
  fixedToken?: string;
  tokenUrl: string;
  lifetimeSeconds: number;
}): Authority {
  const clients = new Map<string, FhirClient>();
  const issued = new Map<string, number>();
  const usedAssertionIds = new Set<string>();

  function grant(scope: string | null): TokenAnswer {
    const accessToken = randomBytes(24).toString("base64url");
    issued.set(accessToken, Date.now() + options.lifetimeSeconds * 1000);
    const body = { access_token: accessToken, token_type: "Bearer", expires_in: options.lifetimeSeconds };
    return { status: 200, body: scope ? { ...body, scope } : body, headers: { "cache-control": "no-store" } };
  }

  async function authenticate(form: URLSearchParams, authorization: string | undefined): Promise<boolean> {
    const assertion = form.get("client_assertion");
    if (assertion !== null) {
      if (form.get("client_assertion_type") !== CLIENT_ASSERTION_TYPE) return false;
      const clientId = form.get("client_id") ?? assertionIssuer(assertion);
      const client = clientId ? clients.get(clientId) : undefined;
      return !!client?.jwks && verifyAssertion(assertion, client, options.tokenUrl, usedAssertionIds);
    }
    const credentials = basicCredentials(authorization) ?? {
      clientId: form.get("client_id") ?? "",
      secret: form.get("client_secret") ?? "",
    };
    const client = clients.get(credentials.clientId);
    return client?.secret !== undefined && client.secret === credentials.secret;
  }

  return {
    get required() {
      return options.fixedToken !== undefined || clients.size > 0;
    },
    registerClient: (client) => void clients.set(client.clientId, client),
    isAuthorized(authorization) {
      const token = /^Bearer (\S+)$/i.exec(authorization ?? "")?.[1];
      if (!token) return false;
      return token === options.fixedToken || (issued.get(token) ?? 0) > Date.now();
    },
    async issueToken(form, authorization) {
      if (form.get("grant_type") !== "client_credentials")
        return oauthError(400, "unsupported_grant_type", "Only client_credentials is offered");
      if (!(await authenticate(form, authorization)))
        return oauthError(401, "invalid_client", "Client authentication failed");
      return grant(form.get("scope"));
    },
  };
}

function oauthError(status: number, error: string, description: string): TokenAnswer {
  return { status, body: { error, error_description: description }, headers: { "cache-control": "no-store" } };
}

function basicCredentials(authorization: string | undefined): { clientId: string; secret: string } | undefined {
  const encoded = /^Basic (\S+)$/i.exec(authorization ?? "")?.[1];
  if (!encoded) return undefined;
  const decoded = Buffer.from(encoded, "base64").toString("utf8");
  const colon = decoded.indexOf(":");
  if (colon < 0) return undefined;
  // RFC 6749 2.3.1: both parts are form-urlencoded before they are joined.
  try {
    return {
      clientId: decodeURIComponent(decoded.slice(0, colon)),
      secret: decodeURIComponent(decoded.slice(colon + 1)),
    };
  } catch {
    return undefined;
  }
}

function assertionIssuer(assertion: string): string | undefined {
  try {
    return decodeJwt(assertion).iss;
  } catch {
    return undefined;
  }
}

/** SMART Backend Services: signed by a registered key, `iss` = `sub` = the client, `aud` = the token URL, a short `exp`, a `jti` used once. */
async function verifyAssertion(
  assertion: string,
  client: FhirClient,
  tokenUrl: string,
  usedAssertionIds: Set<string>,
): Promise<boolean> {
  try {
    const { payload } = await jwtVerify(assertion, createLocalJWKSet({ keys: client.jwks ?? [] }), {
      algorithms: ASSERTION_ALGORITHMS,
      issuer: client.clientId,
      subject: client.clientId,
      audience: tokenUrl,
      requiredClaims: ["exp", "jti"],
    });
    const secondsLeft = (payload.exp ?? 0) - Math.floor(Date.now() / 1000);
    if (secondsLeft > MAX_ASSERTION_LIFETIME_SECONDS || !payload.jti || usedAssertionIds.has(payload.jti)) return false;
    usedAssertionIds.add(payload.jti);
    return true;
  } catch {
    return false;
  }
}
