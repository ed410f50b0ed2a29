import { roles, type SsoErrorCode, type SsoLookupOutput } from "@clinsign/contracts";
import { eq, memberships, organizationSso, ssoDomains, ssoSignInAttempts, type MembershipRole } from "@clinsign/db";
import { recordAudit } from "../../audit/audit";
import { inTransaction, systemContext, type OrgContext, type RequestMeta, type Services } from "../../context";
import { hashPassword, randomSecret, safeEqual, sha256Hex } from "../../crypto";
import { countSignInAttempt } from "../store/limits";
import { accountByEmail, createAccount } from "../store/accounts";
import { organizationOfSsoDomain, takeSsoSignInAttempt } from "../store/sso";
import { AppError } from "../../errors";
import { openStaffSession } from "../password";
import { authorizationUrl, discoverProvider, exchangeCode, OidcError, verifyIdToken, type OidcFailure } from "./oidc";

/** The cookie binding a started sign-in to the browser that started it. */
export const SSO_COOKIE = "clinsign_sso";
/** How long a sign-in may stay at the provider before its state is void. */
export const SSO_ATTEMPT_SECONDS = 600;

/** The redirect URI registered at every provider: the web app's callback, which the API serves through it. */
export const ssoRedirectUri = (services: Services) => `${services.config.publicWebUrl}/sso/callback`;

/** Why a callback did not open a staff session; audited in the organization when it is known. */
export type SsoRefusal =
  | OidcFailure
  | "state_unknown"
  | "state_expired"
  | "browser_mismatch"
  | "provider_error"
  | "not_configured"
  | "no_email"
  | "email_unverified"
  | "domain_not_allowed"
  | "no_role";

const MESSAGE_FOR: Record<SsoRefusal, SsoErrorCode> = {
  state_unknown: "expired",
  state_expired: "expired",
  browser_mismatch: "expired",
  provider_error: "cancelled",
  not_configured: "unavailable",
  discovery_failed: "unavailable",
  jwks_unavailable: "unavailable",
  token_exchange_failed: "failed",
  bad_id_token: "failed",
  token_expired: "failed",
  issuer_mismatch: "failed",
  audience_mismatch: "failed",
  azp_mismatch: "failed",
  nonce_mismatch: "failed",
  no_email: "failed",
  email_unverified: "failed",
  domain_not_allowed: "domain",
  no_role: "no_role",
};

/** Highest privilege first, as `roles` lists them; a role added there is picked up here. */
const rank = (role: string) => {
  const index = (roles as readonly string[]).indexOf(role);
  return index === -1 ? Number.MAX_SAFE_INTEGER : index;
};

/** The role an ID token's claim maps to (the highest of several), or null: no access. */
export function mappedRole(claim: unknown, mapping: { value: string; role: MembershipRole }[]): MembershipRole | null {
  const values = (Array.isArray(claim) ? claim : [claim]).filter((v): v is string => typeof v === "string");
  const granted = mapping.filter((m) => values.includes(m.value) && rank(m.role) !== Number.MAX_SAFE_INTEGER);
  granted.sort((a, b) => rank(a.role) - rank(b.role));
  return granted[0]?.role ?? null;
}

/** The organization's provider settings, when single sign-on is on. */
async function enabledConfig(ctx: OrgContext) {
  const [config] = await ctx.scope.select(organizationSso, eq(organizationSso.enabled, true));
  return config ?? null;
}

/** The context of a sign-in step once its organization is known: the service acts, from the caller's request. */
const signInContext = (services: Services, request: RequestMeta, organizationId: string): OrgContext => ({
  ...systemContext(services, organizationId, request.requestId),
  request,
});

/**
 * The login page's question: which organization's provider serves this e-mail address (by its
 * domain), or this organization's login URL. Reveals only domains organizations have named for
 * single sign-on, never whether an account exists.
 */
export async function lookupSsoProvider(
  services: Services,
  request: RequestMeta,
  input: { email: string } | { organizationId: string },
): Promise<SsoLookupOutput> {
  await countSignInAttempt(services, {
    key: `sso:lookup:ip:${request.ip ?? "unknown"}`,
    limit: 300,
    windowSeconds: 15 * 60,
  });
  let organizationId: string;
  if ("email" in input) {
    const domain = input.email.split("@")[1]?.trim();
    if (!domain) return { provider: null };
    const found = await organizationOfSsoDomain(services, domain);
    if (!found) return { provider: null };
    organizationId = found;
  } else organizationId = input.organizationId;
  const config = await enabledConfig(signInContext(services, request, organizationId));
  return { provider: config ? { organizationId, displayName: config.displayName } : null };
}

/**
 * Starts a sign-in at the organization's provider: a fresh `state`, `nonce` and PKCE verifier,
 * stored (the verifier sealed) under the state's hash with the hash of a browser secret that goes
 * into an HTTP-only cookie. Returns where to send the browser and that secret.
 */
export async function startSsoSignIn(
  services: Services,
  request: RequestMeta,
  input: { organizationId: string; loginHint?: string },
) {
  await countSignInAttempt(services, {
    key: `sso:start:ip:${request.ip ?? "unknown"}`,
    limit: 60,
    windowSeconds: 15 * 60,
  });
  const ctx = signInContext(services, request, input.organizationId);
  const config = await enabledConfig(ctx);
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

export type SsoCallbackResult =
  { ok: true; token: string; expiresAt: Date } | { ok: false; error: SsoErrorCode; organizationId: string | null };

class Refused extends Error {
  constructor(
    readonly reason: SsoRefusal,
    readonly metadata: Record<string, unknown> = {},
  ) {
    super(reason);
  }
}

/**
 * The provider's redirect back: checks the state (single use, unexpired, this browser's), redeems
 * the code, verifies the ID token, checks the e-mail domain and maps the role claim, creates or
 * updates the member, and opens a staff session. Every outcome is audited in the organization
 * once it is known; a refusal names its reason there and a coarse code for the login page.
 */
export async function finishSsoSignIn(
  services: Services,
  request: RequestMeta,
  input: { state?: string; code?: string; error?: string; browserSecret?: string },
): Promise<SsoCallbackResult> {
  const attempt = await takeSsoSignInAttempt(services, input.state);
  if (!attempt) {
    // Forged, replayed or long gone: no organization to audit in.
    services.log.warn(
      { event: "sso.refused", reason: "state_unknown", requestId: request.requestId, ip: request.ip },
      "single sign-on refused",
    );
    return { ok: false, error: MESSAGE_FOR.state_unknown, organizationId: null };
  }
  const ctx = signInContext(services, request, attempt.organizationId);
  try {
    const staffSession = await completeAttempt(ctx, attempt, input);
    return { ok: true, ...staffSession };
  } catch (error) {
    if (!(error instanceof Refused || error instanceof OidcError)) throw error;
    const reason = error instanceof Refused ? error.reason : error.reason;
    const metadata = error instanceof Refused ? error.metadata : error.detail ? { detail: error.detail } : {};
    await recordAudit(ctx, { action: "staff.sso_refused", metadata: { reason, ...metadata } });
    return { ok: false, error: MESSAGE_FOR[reason], organizationId: attempt.organizationId };
  }
}

async function completeAttempt(
  ctx: OrgContext,
  attempt: typeof ssoSignInAttempts.$inferSelect,
  input: { code?: string; error?: string; browserSecret?: string },
) {
  const { services } = ctx;
  if (attempt.expiresAt.getTime() <= Date.now()) throw new Refused("state_expired");
  if (!safeEqual(sha256Hex(input.browserSecret ?? ""), attempt.browserHash)) throw new Refused("browser_mismatch");
  if (input.error !== undefined)
    throw new Refused("provider_error", { error: input.error.replace(/[^a-z0-9_.-]/gi, "").slice(0, 64) });
  if (!input.code || input.code.length > 2048) throw new Refused("provider_error", { error: "no_code" });
  const config = await enabledConfig(ctx);
  if (!config) throw new Refused("not_configured");
  const metadata = await discoverProvider(services, config.issuer);
  const idToken = await exchangeCode(services, metadata, {
    clientId: config.clientId,
    clientSecret: services.secrets.open(config.clientSecretEnc),
    code: input.code,
    codeVerifier: services.secrets.open(attempt.codeVerifierEnc),
    redirectUri: ssoRedirectUri(services),
  });
  const claims = await verifyIdToken(services, metadata, idToken, {
    issuer: config.issuer,
    clientId: config.clientId,
    nonce: attempt.nonce,
  });

  // Entra ID sends `email` only when the mailbox is set and otherwise the sign-in name (a UPN).
  const rawEmail = [claims.email, claims.preferred_username, claims.upn].find(
    (v): v is string => typeof v === "string" && /^[^\s@]+@[^\s@]+$/.test(v),
  );
  if (!rawEmail) throw new Refused("no_email", { subject: claims.sub });
  if (claims.email_verified === false) throw new Refused("email_unverified", { subject: claims.sub });
  const email = rawEmail.trim().toLowerCase();
  const domain = email.split("@")[1]!;
  const [allowed] = await ctx.scope.select(ssoDomains, eq(ssoDomains.domain, domain));
  if (!allowed) throw new Refused("domain_not_allowed", { domain });

  const role = mappedRole(claims[config.roleClaim], config.roleMapping);
  const userId = await applyMembership(ctx, {
    email,
    role,
    name: typeof claims.name === "string" ? claims.name.slice(0, 200) : null,
    breakGlassUserId: config.breakGlassUserId,
  });
  return openStaffSession(services, ctx.request, { userId, organizationId: attempt.organizationId }, { method: "sso" });
}

/**
 * Creates the member just in time, or brings their role in line with the provider's claim: each
 * sign-in re-applies the mapping, so someone taken out of the group loses access at their next
 * sign-in. The break-glass owner's membership is never changed this way. Returns the user's id;
 * refuses (after recording the removal) when no role maps.
 */
async function applyMembership(
  ctx: OrgContext,
  who: { email: string; role: MembershipRole | null; name: string | null; breakGlassUserId: string | null },
): Promise<string> {
  // An unusable password: the hash of a secret nobody keeps, so password sign-in costs the usual time and fails.
  const unusablePassword = await hashPassword(randomSecret());
  const outcome = await inTransaction(ctx, async (tx) => {
    const ofUser = (userId: string) => eq(memberships.userId, userId);
    const user = await accountByEmail(tx.scope, who.email);
    if (!user) {
      if (!who.role) return { refused: true as const, audit: { email: who.email } };
      const created = await createAccount(tx.scope, {
        email: who.email,
        name: who.name,
        passwordHash: unusablePassword,
      });
      await tx.scope.insert(memberships, { userId: created.id, role: who.role });
      await recordAudit(
        { ...tx, actor: { type: "user", id: created.id } },
        { action: "staff.member_added", metadata: { via: "sso", role: who.role, created: true } },
      );
      return { userId: created.id };
    }
    const actorCtx = { ...tx, actor: { type: "user" as const, id: user.id } };
    const [current] = await tx.scope.select(memberships, ofUser(user.id));
    if (user.id === who.breakGlassUserId) {
      if (!current) return { refused: true as const, audit: { email: who.email } };
      return { userId: user.id };
    }
    if (!who.role) {
      if (current) {
        await tx.scope.delete(memberships, ofUser(user.id));
        await recordAudit(actorCtx, {
          action: "staff.member_removed",
          metadata: { via: "sso", reason: "no_mapped_role", role: current.role },
        });
      }
      return { refused: true as const, audit: { email: who.email, userId: user.id } };
    }
    if (!current) {
      await tx.scope.insert(memberships, { userId: user.id, role: who.role });
      await recordAudit(actorCtx, {
        action: "staff.member_added",
        metadata: { via: "sso", role: who.role, created: false },
      });
    } else if (current.role !== who.role) {
      await tx.scope.update(memberships, { role: who.role }, ofUser(user.id));
      await recordAudit(actorCtx, {
        action: "staff.role_changed",
        metadata: { via: "sso", from: current.role, to: who.role },
      });
    }
    return { userId: user.id };
  });
  if ("refused" in outcome) throw new Refused("no_role", outcome.audit);
  return outcome.userId;
}
