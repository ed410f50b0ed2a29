import { roles, ssoMappableRoles, type SsoErrorCode } from "@clinsign/contracts";
import { eq, isNotNull, memberships, ssoDomains, type MembershipRole } from "@clinsign/db";
import { recordAudit } from "../../audit/audit";
import type { OrgContext } from "../../context";
import { randomSecret } from "../../crypto";
import { publicContextOf, type PublicContext } from "../public-context";
import { accountByEmail, createAccount, membershipsOf } from "../store/accounts";
import { factorsOf, hasFactor } from "../store/factors";
import {
  accountOfIdentity,
  hasIdentityElsewhere,
  insertLinkRequest,
  linkIdentity,
  type ProviderIdentity,
} from "../store/sso";
import type { OidcFailure } from "./oidc";

/**
 * Who a provider's sign-in is, and as what: the account of (organization, issuer, subject), a new
 * account, or a link request for an existing one; the role its claim maps to (never owner), kept
 * in line at every sign-in. And why a callback refused, for the audit and the login page.
 */

/** How long a provider's login waits for an existing account to prove itself and confirm the link. */
export const SSO_LINK_SECONDS = 15 * 60;

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

export const MESSAGE_FOR: Record<SsoRefusal, SsoErrorCode> = {
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

export class Refused extends Error {
  constructor(
    readonly reason: SsoRefusal,
    readonly metadata: Record<string, unknown> = {},
  ) {
    super(reason);
  }
}

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

export interface SignInClaims {
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
export async function resolveIdentity(
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
