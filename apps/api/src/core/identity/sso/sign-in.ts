import { roles, ssoMappableRoles, type SsoErrorCode, type SsoLookupOutput } from "@clinsign/contracts";
import {
  eq,
  isNotNull,
  memberships,
  organizationSso,
  ssoDomains,
  ssoSignInAttempts,
  type MembershipRole,
} from "@clinsign/db";
import { recordAudit } from "../../audit/audit";
import { inTransaction, type OrgContext } from "../../context";
import { randomSecret, safeEqual, sha256Hex } from "../../crypto";
import { AppError } from "../../errors";
import { admitToOrganization, type OpenedStaffSession } from "../admission";
import { publicContextOf, type PublicContext } from "../public-context";
import { accountByEmail, createAccount, membershipsOf } from "../store/accounts";
import { factorsOf, hasFactor } from "../store/factors";
import { countSignInAttempt } from "../store/limits";
import {
  accountOfIdentity,
  hasIdentityElsewhere,
  insertLinkRequest,
  linkIdentity,
  organizationOfProvenDomain,
  takeSsoSignInAttempt,
  type ProviderIdentity,
} from "../store/sso";
import { authorizationUrl, discoverProvider, exchangeCode, OidcError, verifyIdToken, type OidcFailure } from "./oidc";

/** The cookie binding a started sign-in to the browser that started it. */
export const SSO_COOKIE = "clinsign_sso";
/** How long a sign-in may stay at the provider before its state is void. */
export const SSO_ATTEMPT_SECONDS = 600;
/** How long a provider's login waits for an existing account to prove itself and confirm the link. */
export const SSO_LINK_SECONDS = 15 * 60;

/** The redirect URI registered at every provider: the web app's callback, which the API serves through it. */
export const ssoRedirectUri = (services: PublicContext["services"]) => `${services.config.publicWebUrl}/sso/callback`;

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
  | "no_role"
  | "deactivated";

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
  deactivated: "no_role",
};

/** Highest privilege first, as `roles` lists them; a role added there is picked up here. */
const rank = (role: string) => {
  const index = (roles as readonly string[]).indexOf(role);
  return index === -1 ? Number.MAX_SAFE_INTEGER : index;
};

const mappable = new Set<string>(ssoMappableRoles);

/**
 * The role an ID token's claim maps to (the highest of several), or null: no access. Never
 * `owner`, whatever a stored mapping says: owners are made by owners, in the console.
 */
export function mappedRole(claim: unknown, mapping: { value: string; role: MembershipRole }[]): MembershipRole | null {
  const values = (Array.isArray(claim) ? claim : [claim]).filter((v): v is string => typeof v === "string");
  const granted = mapping.filter((m) => values.includes(m.value) && mappable.has(m.role));
  granted.sort((a, b) => rank(a.role) - rank(b.role));
  return granted[0]?.role ?? null;
}

/** The organization's provider settings, when single sign-on is on. */
async function enabledConfig(ctx: OrgContext) {
  const [config] = await ctx.scope.select(organizationSso, eq(organizationSso.enabled, true));
  return config ?? null;
}

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
    key: `sso:lookup:ip:${pub.request.ip ?? "unknown"}`,
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
  const config = await enabledConfig(signInContext(pub, organizationId));
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
    key: `sso:start:ip:${request.ip ?? "unknown"}`,
    limit: 60,
    windowSeconds: 15 * 60,
  });
  const ctx = signInContext(pub, input.organizationId);
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

/**
 * A callback's outcome: a staff session; a link to confirm (the address names an existing
 * account not linked to this provider: it must prove itself in this browser, `link.ts`); or a
 * refusal with a coarse code for the login page.
 */
export type SsoCallbackResult =
  | { ok: true; staffSession: OpenedStaffSession }
  | { ok: "link"; linkToken: string; organizationId: string }
  | { ok: false; error: SsoErrorCode; organizationId: string | null };

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
  const config = await enabledConfig(ctx);
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

interface SignInClaims {
  email: string;
  role: MembershipRole | null;
  name: string | null;
  breakGlassUserId: string | null;
}

/**
 * Who signed in: the account linked to (organization, issuer, subject); else, for an address of
 * a domain this organization has proven, a new account; an existing account only when nothing of
 * it lies outside this organization (a member here alone, without a second factor or another
 * provider); any other existing account must prove itself first (a link request). Never an
 * account found by its address in another organization.
 */
async function resolveIdentity(
  tx: OrgContext,
  who: ProviderIdentity,
  claims: SignInClaims,
): Promise<string | { linkToken: string }> {
  const txPub = publicContextOf(tx);
  const linked = await accountOfIdentity(txPub.identity, who);
  if (linked) return applyMembership(tx, { ...claims, userId: linked });

  const domain = claims.email.split("@")[1]!;
  const [proven] = await tx.scope.select(ssoDomains, eq(ssoDomains.domain, domain), isNotNull(ssoDomains.verifiedAt));
  if (!proven) throw new Refused("domain_not_allowed", { domain });
  const account = await accountByEmail(txPub.identity, claims.email);
  if (!account) {
    if (!claims.role) throw new Refused("no_role", { subject: who.subject });
    const created = await createAccount(txPub.identity, { email: claims.email, name: claims.name, passwordHash: null });
    await linkIdentity(txPub.identity, { ...who, userId: created.id, email: claims.email });
    await tx.scope.insert(memberships, { userId: created.id, role: claims.role });
    await recordAudit(
      { ...tx, actor: { type: "user", id: created.id } },
      { action: "staff.member_added", metadata: { via: "sso", role: claims.role, created: true } },
    );
    return created.id;
  }
  if (await belongsHereAlone(txPub, account.id, who.organizationId)) {
    await linkIdentity(txPub.identity, { ...who, userId: account.id, email: claims.email });
    return applyMembership(tx, { ...claims, userId: account.id });
  }
  if (!claims.role) throw new Refused("no_role", { subject: who.subject });
  const linkToken = randomSecret(32);
  await insertLinkRequest(txPub.identity, {
    ...who,
    token: linkToken,
    userId: account.id,
    email: claims.email,
    role: claims.role,
    expiresAt: new Date(Date.now() + SSO_LINK_SECONDS * 1000),
  });
  await recordAudit(tx, { action: "staff.sso_link_requested", metadata: { subject: who.subject } });
  return { linkToken };
}

/**
 * Whether nothing of the account lies outside this organization: a member here and nowhere
 * else, without a second factor and without another organization's provider. Linking it by its
 * address gives this organization's provider nothing it could not already reach.
 */
async function belongsHereAlone(pub: PublicContext, userId: string, organizationId: string): Promise<boolean> {
  const joined = await membershipsOf(pub.identity, userId);
  if (joined.length !== 1 || joined[0]!.organizationId !== organizationId) return false;
  if (hasFactor(await factorsOf(pub.identity, userId))) return false;
  return !(await hasIdentityElsewhere(pub.identity, userId, organizationId));
}

/**
 * Brings the member's role in line with the provider's claim: each sign-in re-applies the
 * mapping, so someone taken out of the group loses access at their next sign-in. Owners are
 * never made, changed or removed this way (nor is the break-glass account): a mapping can grant
 * admin at most, so no admin can promote themselves through a provider they control, and the last
 * owner cannot be taken away by one. Returns the user's id; refuses when no role maps.
 */
export async function applyMembership(
  tx: OrgContext,
  who: { userId: string; role: MembershipRole | null; breakGlassUserId: string | null },
): Promise<string> {
  const ofUser = eq(memberships.userId, who.userId);
  const actorCtx = { ...tx, actor: { type: "user" as const, id: who.userId } };
  const [current] = await tx.scope.select(memberships, ofUser).for("update");
  if (who.userId === who.breakGlassUserId || current?.role === "owner") {
    if (!current || (current.role !== "owner" && !who.role)) throw new Refused("no_role", { userId: who.userId });
    if (current.role === "owner" && !who.role) throw new Refused("no_role", { userId: who.userId, owner: true });
    return who.userId;
  }
  if (!who.role) {
    if (current) {
      await tx.scope.delete(memberships, ofUser);
      await recordAudit(actorCtx, {
        action: "staff.member_removed",
        metadata: { via: "sso", reason: "no_mapped_role", role: current.role },
      });
    }
    throw new Refused("no_role", { userId: who.userId });
  }
  if (!current) {
    await tx.scope.insert(memberships, { userId: who.userId, role: who.role });
    await recordAudit(actorCtx, {
      action: "staff.member_added",
      metadata: { via: "sso", role: who.role, created: false },
    });
  } else if (current.role !== who.role) {
    await tx.scope.update(memberships, { role: who.role }, ofUser);
    await recordAudit(actorCtx, {
      action: "staff.role_changed",
      metadata: { via: "sso", from: current.role, to: who.role },
    });
  }
  return who.userId;
}
