import type { SsoErrorCode, SsoLookupOutput } from "@clinsign/contracts";
import { organizationSso, ssoSignInAttempts } from "@clinsign/db";
import { recordAudit } from "../../audit/audit";
import { inTransaction, type OrgContext } from "../../context";
import { randomSecret, safeEqual, sha256Hex } from "../../crypto";
import { AppError } from "../../errors";
import { admitToOrganization, type OpenedStaffSession } from "../admission";
import type { PublicContext } from "../public-context";
import { countSignInAttempt } from "../store/limits";
import { enabledSsoOf, organizationOfProvenDomain, takeSsoSignInAttempt, type ProviderIdentity } from "../store/sso";
import { mappedRole, MESSAGE_FOR, Refused, resolveIdentity, type SsoRefusal } from "./membership";
import { authorizationUrl, discoverProvider, exchangeCode, OidcError, verifyIdToken } from "./oidc";
import { addressKey } from "../../rate-limit";

/** The cookie binding a started sign-in to the browser that started it. */
export const SSO_COOKIE = "clinsign_sso";
/** How long a sign-in may stay at the provider before its state is void. */
export const SSO_ATTEMPT_SECONDS = 600;

/** The redirect URI registered at every provider: the web app's callback, which the API serves through it. */
export const ssoRedirectUri = (services: PublicContext["services"]) => `${services.config.publicWebUrl}/sso/callback`;

/** The context of a sign-in step once its organization is known: the service acts, from the caller's request. */
const signInContext = (pub: PublicContext, organizationId: string): OrgContext => ({
  services: pub.services,
  scope: pub.identity.scopeOf(organizationId),
  actor: { type: "system", id: null },
  request: pub.request,
});

/**
 * The login page's question: which organization's provider serves this e-mail address (by a
 * domain the organization has proven), or this organization's login URL. Reveals only proven
 * domains, never whether an account exists.
 */
export async function lookupSsoProvider(
  pub: PublicContext,
  input: { email: string } | { organizationId: string },
): Promise<SsoLookupOutput> {
  await countSignInAttempt(pub.identity, {
    key: `sso:lookup:ip:${addressKey(pub.request.ip)}`,
    limit: 300,
    windowSeconds: 15 * 60,
  });
  let organizationId: string;
  if ("email" in input) {
    const domain = input.email.split("@")[1]?.trim();
    if (!domain) return { provider: null };
    const found = await organizationOfProvenDomain(pub.identity, domain);
    if (!found) return { provider: null };
    organizationId = found;
  } else organizationId = input.organizationId;
  const config = await enabledSsoOf(pub.identity.scopeOf(organizationId));
  return { provider: config ? { organizationId, displayName: config.displayName } : null };
}

/**
 * Starts a sign-in at the organization's provider: a fresh `state`, `nonce` and PKCE verifier,
 * stored (the verifier sealed) under the state's hash with the hash of a browser secret that goes
 * into an HTTP-only cookie. Returns where to send the browser and that secret.
 */
export async function startSsoSignIn(pub: PublicContext, input: { organizationId: string; loginHint?: string }) {
  const { services, request } = pub;
  await countSignInAttempt(pub.identity, {
    key: `sso:start:ip:${addressKey(request.ip)}`,
    limit: 60,
    windowSeconds: 15 * 60,
  });
  const ctx = signInContext(pub, input.organizationId);
  const config = await enabledSsoOf(ctx.scope);
  if (!config) throw new AppError("not_found", "single sign-on is not set up for this organization");
  let metadata;
  try {
    metadata = await discoverProvider(services, config.issuer);
  } catch (error) {
    if (!(error instanceof OidcError)) throw error;
    services.log.warn(
      {
        event: "sso.discovery_failed",
        organizationId: input.organizationId,
        detail: error.detail,
        requestId: request.requestId,
      },
      "OpenID provider discovery failed",
    );
    throw new AppError("conflict", "the identity provider cannot be reached", { reason: "discovery_failed" });
  }
  const state = randomSecret(32);
  const nonce = randomSecret(32);
  const codeVerifier = randomSecret(48);
  const browserSecret = randomSecret(32);
  await ctx.scope.insert(ssoSignInAttempts, {
    stateHash: sha256Hex(state),
    browserHash: sha256Hex(browserSecret),
    nonce,
    codeVerifierEnc: services.secrets.seal(codeVerifier),
    expiresAt: new Date(Date.now() + SSO_ATTEMPT_SECONDS * 1000),
  });
  const loginHint =
    input.loginHint && /^[^\s@]{1,64}@[^\s@]{1,253}$/.test(input.loginHint) ? input.loginHint : undefined;
  return {
    location: authorizationUrl(metadata, {
      clientId: config.clientId,
      redirectUri: ssoRedirectUri(services),
      state,
      nonce,
      codeVerifier,
      loginHint,
    }),
    browserSecret,
  };
}

/**
 * A callback's outcome: a staff session; a link to confirm (the address names an existing
 * account not linked to this provider: it must prove itself in this browser, `link.ts`); or a
 * refusal with a coarse code for the login page.
 */
export type SsoCallbackResult =
  | { ok: true; staffSession: OpenedStaffSession }
  | { ok: "link"; linkToken: string; organizationId: string }
  | { ok: false; error: SsoErrorCode; organizationId: string | null };

/**
 * The provider's redirect back: checks the state (single use, unexpired, this browser's), redeems
 * the code, verifies the ID token, then finds who signed in by (organization, issuer, subject).
 * Every outcome is audited in the organization; a refusal names its reason there and a coarse
 * code for the login page.
 */
export async function finishSsoSignIn(
  pub: PublicContext,
  input: { state?: string; code?: string; error?: string; browserSecret?: string },
): Promise<SsoCallbackResult> {
  const attempt = await takeSsoSignInAttempt(pub.identity, input.state);
  if (!attempt) {
    // Forged, replayed or long gone: no organization to audit in.
    pub.services.log.warn(
      { event: "sso.refused", reason: "state_unknown", requestId: pub.request.requestId, ip: pub.request.ip },
      "single sign-on refused",
    );
    return { ok: false, error: MESSAGE_FOR.state_unknown, organizationId: null };
  }
  const ctx = signInContext(pub, attempt.organizationId);
  try {
    return await completeAttempt(pub, ctx, attempt, input);
  } catch (error) {
    const refusal = asRefusal(error);
    if (!refusal) throw error;
    await recordAudit(ctx, { action: "staff.sso_refused", metadata: { reason: refusal.reason, ...refusal.metadata } });
    return { ok: false, error: MESSAGE_FOR[refusal.reason], organizationId: attempt.organizationId };
  }
}

function asRefusal(error: unknown): { reason: SsoRefusal; metadata: Record<string, unknown> } | null {
  if (error instanceof Refused) return error;
  if (error instanceof OidcError)
    return { reason: error.reason, metadata: error.detail ? { detail: error.detail } : {} };
  // Admission's refusal of a deactivated member (it audited the refusal itself).
  if (error instanceof AppError && error.details?.reason === "deactivated")
    return { reason: "deactivated", metadata: {} };
  return null;
}

/** The ID token's claims, once the state, the browser binding and the code exchange passed. */
async function providerClaims(
  pub: PublicContext,
  config: typeof organizationSso.$inferSelect,
  attempt: typeof ssoSignInAttempts.$inferSelect,
  input: { code?: string; error?: string; browserSecret?: string },
) {
  const { services } = pub;
  if (attempt.expiresAt.getTime() <= Date.now()) throw new Refused("state_expired");
  if (!safeEqual(sha256Hex(input.browserSecret ?? ""), attempt.browserHash)) throw new Refused("browser_mismatch");
  if (input.error !== undefined)
    throw new Refused("provider_error", { error: input.error.replace(/[^a-z0-9_.-]/gi, "").slice(0, 64) });
  if (!input.code || input.code.length > 2048) throw new Refused("provider_error", { error: "no_code" });
  const metadata = await discoverProvider(services, config.issuer);
  const idToken = await exchangeCode(services, metadata, {
    clientId: config.clientId,
    clientSecret: services.secrets.open(config.clientSecretEnc),
    code: input.code,
    codeVerifier: services.secrets.open(attempt.codeVerifierEnc),
    redirectUri: ssoRedirectUri(services),
  });
  return verifyIdToken(services, metadata, idToken, {
    issuer: config.issuer,
    clientId: config.clientId,
    nonce: attempt.nonce,
  });
}

async function completeAttempt(
  pub: PublicContext,
  ctx: OrgContext,
  attempt: typeof ssoSignInAttempts.$inferSelect,
  input: { code?: string; error?: string; browserSecret?: string },
): Promise<SsoCallbackResult> {
  const config = await enabledSsoOf(ctx.scope);
  if (!config) throw new Refused("not_configured");
  const claims = await providerClaims(pub, config, attempt, input);
  const subject = String(claims.sub);
  // Entra ID sends `email` only when the mailbox is set and otherwise the sign-in name (a UPN).
  const rawEmail = [claims.email, claims.preferred_username, claims.upn].find(
    (v): v is string => typeof v === "string" && /^[^\s@]+@[^\s@]+$/.test(v),
  );
  if (!rawEmail) throw new Refused("no_email", { subject });
  // Only an address the provider says it checked: a missing `email_verified` is not a yes.
  if (claims.email_verified !== true) throw new Refused("email_unverified", { subject });
  const email = rawEmail.trim().toLowerCase();
  const who: ProviderIdentity = { organizationId: attempt.organizationId, issuer: config.issuer, subject };
  const signIn = {
    email,
    role: mappedRole(claims[config.roleClaim], config.roleMapping),
    name: typeof claims.name === "string" ? claims.name.slice(0, 200) : null,
    breakGlassUserId: config.breakGlassUserId,
  };
  // A refusal inside keeps what was written before it (a member removed for want of a mapped role).
  const userId = await inTransaction(ctx, (tx) =>
    resolveIdentity(tx, who, signIn).catch((error: unknown) => {
      if (error instanceof Refused) return { refused: error };
      throw error;
    }),
  );
  if (typeof userId !== "string") {
    if ("refused" in userId) throw userId.refused;
    return { ok: "link", linkToken: userId.linkToken, organizationId: who.organizationId };
  }
  const admission = await admitToOrganization(
    pub,
    { userId, organizationId: who.organizationId },
    {
      method: "sso",
      strength: "provider",
    },
  );
  if (admission.step !== "done") throw new Error("a provider's sign-in is never asked for a second step");
  return { ok: true, staffSession: admission.staffSession };
}
