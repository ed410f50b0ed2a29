import type { LoginResult } from "@clinsign/contracts";
import { staffSessions, type PendingSignInStep } from "@clinsign/db";
import { recordAudit } from "../audit/audit";
import type { OrgContext } from "../context";
import { randomSecret, sha256Hex } from "../crypto";
import { AppError, unauthorized } from "../errors";
import type { PublicContext } from "./public-context";
import { membershipIn, membershipsOf } from "./store/accounts";
import { factorsOf, hasFactor, secondStepMethods } from "./store/factors";
import { enabledSsoOf } from "./store/sso";
import { insertPendingSignIn } from "./store/staff-sessions";

/**
 * Admission: the one function every way in goes through (password, passkey, single sign-on,
 * invitation, second factor, recovery code, a provider link) before a staff session opens. The
 * rules are the chosen organization's, whatever the door:
 * - the account must be an active member there;
 * - SSO-only: only the organization's provider admits, except its break-glass owner;
 * - a single factor (a password) is not enough for an account that has a second factor, nor in
 *   an organization that requires one: the answer is then the second step or first-factor set-up,
 *   bound to this organization.
 * A user-verified passkey is two factors; the organization's own provider vouches for its sign-ins
 * (its multi-factor policy is the provider's: docs/architecture.md "Staff identity").
 */

/** Time to enter a code or touch a passkey after the password. */
export const SECOND_FACTOR_SECONDS = 5 * 60;
/** Time to set up a first factor (install an app, scan, type) when the organization requires one. */
export const ENROLL_SECONDS = 15 * 60;

export type SignInMethod = "password" | "password_and_second_factor" | "passkey" | "sso" | "invitation" | "sso_link";

export interface Proof {
  method: SignInMethod;
  /** `one_factor`: a password; `two_factors`: password and factor, or a user-verified passkey; `provider`: the organization's single sign-on. */
  strength: "one_factor" | "two_factors" | "provider";
}

export interface Member {
  userId: string;
  organizationId: string;
}

export interface OpenedStaffSession {
  token: string;
  expiresAt: Date;
  userId: string;
  organization: { id: string; name: string };
}

export type Admission =
  | { step: "done"; staffSession: OpenedStaffSession }
  | {
      step: PendingSignInStep;
      pending: { token: string; expiresAt: Date };
      methods?: LoginResult["methods"];
    };

type Refusal = { reason: "not_member" | "deactivated" | "sso_only"; organizationName: string | null };

/** Why the organization would refuse this proof from this account, or null: no side effects (choosing an organization asks it too). */
async function refusalOf(pub: PublicContext, member: Member, proof: Proof): Promise<Refusal | null> {
  const membership = await membershipIn(pub.identity, member.userId, member.organizationId);
  if (!membership) return { reason: "not_member", organizationName: null };
  const organizationName = membership.organizationName;
  if (membership.deactivatedAt) return { reason: "deactivated", organizationName };
  if (proof.strength !== "provider") {
    const sso = await enabledSsoOf(pub.identity.scopeOf(member.organizationId));
    if (sso?.ssoOnly && sso.breakGlassUserId !== member.userId) return { reason: "sso_only", organizationName };
  }
  return null;
}

/** A sign-in of a member an admin deactivated (here, or in every organization of the account). */
export const deactivatedError = () =>
  new AppError("unauthorized", "this account is deactivated: ask an admin of your organization", {
    reason: "deactivated",
  });

function refusalError(refusal: Refusal): AppError {
  switch (refusal.reason) {
    case "not_member":
      return unauthorized("this account is not a member of that organization");
    case "deactivated":
      return deactivatedError();
    case "sso_only":
      return new AppError("forbidden", "your organization signs in with single sign-on", { reason: "sso_only" });
  }
}

/**
 * The organization a sign-in without a named one opens: the account's oldest active membership
 * that admits this proof, else its oldest active one (whose refusal then explains itself).
 */
export async function chooseOrganization(pub: PublicContext, userId: string, proof: Proof): Promise<string | null> {
  const active = await membershipsOf(pub.identity, userId, "active");
  for (const membership of active) {
    if (!(await refusalOf(pub, { userId, organizationId: membership.organizationId }, proof)))
      return membership.organizationId;
  }
  return active[0]?.organizationId ?? null;
}

/** Applies the organization's rules to this proof; opens the staff session, or hands out the next step. */
export async function admitToOrganization(pub: PublicContext, member: Member, proof: Proof): Promise<Admission> {
  const refusal = await refusalOf(pub, member, proof);
  if (refusal) {
    if (refusal.reason !== "not_member")
      await auditSignIn(pub, member, "staff.sign_in_refused", { reason: refusal.reason, method: proof.method });
    throw refusalError(refusal);
  }
  if (proof.strength === "one_factor") {
    const factors = await factorsOf(pub.identity, member.userId);
    const required = (await pub.identity.scopeOf(member.organizationId).organization()).requireSecondFactor;
    if (hasFactor(factors))
      return {
        step: "second_factor",
        pending: await pendingSignIn(pub, member, "second_factor"),
        methods: secondStepMethods(factors),
      };
    if (required) return { step: "enroll", pending: await pendingSignIn(pub, member, "enroll") };
  }
  return { step: "done", staffSession: await openStaffSession(pub, member, proof.method) };
}

/** A pending sign-in for this organization (the cookie's value, stored hashed). */
export async function pendingSignIn(
  pub: PublicContext,
  member: Member,
  step: PendingSignInStep,
  ssoLinkHash?: string,
): Promise<{ token: string; expiresAt: Date }> {
  const token = randomSecret(32);
  const expiresAt = new Date(Date.now() + (step === "enroll" ? ENROLL_SECONDS : SECOND_FACTOR_SECONDS) * 1000);
  await insertPendingSignIn(pub.identity, { token, ...member, step, expiresAt, ssoLinkHash });
  return { token, expiresAt };
}

/**
 * Opens a staff session once admission passed: the one place a staff session cookie's value is
 * made, stored (hashed) and audited. Only `admitToOrganization` calls it.
 */
async function openStaffSession(pub: PublicContext, member: Member, method: SignInMethod): Promise<OpenedStaffSession> {
  const token = randomSecret(32);
  const scope = pub.identity.scopeOf(member.organizationId);
  const org = await scope.organization();
  const expiresAt = new Date(Date.now() + org.staffSessionMaxHours * 60 * 60 * 1000);
  await scope.insert(staffSessions, {
    tokenHash: sha256Hex(token),
    userId: member.userId,
    ip: pub.request.ip,
    userAgent: pub.request.userAgent,
    expiresAt,
  });
  await auditSignIn(pub, member, "staff.signed_in", { method });
  return { token, expiresAt, userId: member.userId, organization: { id: org.id, name: org.name } };
}

/** The account's context in one organization during a sign-in step: the account acts, from the caller's request. */
export function accountContext(pub: PublicContext, member: Member): OrgContext {
  return {
    services: pub.services,
    scope: pub.identity.scopeOf(member.organizationId),
    actor: { type: "user", id: member.userId },
    request: pub.request,
  };
}

/** A sign-in step in the organization's audit log, with the account as actor. Never a password or a typed address. */
export async function auditSignIn(
  pub: PublicContext,
  member: Member,
  action: "staff.signed_in" | "staff.sign_in_failed" | "staff.sign_in_refused",
  metadata?: Record<string, unknown>,
) {
  await recordAudit(accountContext(pub, member), { action, metadata });
}
