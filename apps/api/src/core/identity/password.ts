import type { Me } from "@clinsign/contracts";
import { staffSessions } from "@clinsign/db";
import { recordAudit } from "../audit/audit";
import { systemContext, type RequestMeta, type Services } from "../context";
import { decoyPasswordHash, randomSecret, sha256Hex, verifyPassword } from "../crypto";
import { accountByEmail, membershipsOf } from "./store/accounts";
import { endStaffSession, type StaffPrincipal } from "./store/staff-sessions";
import { clearSignInAttempts, countSignInAttempt, refundSignInAttempt } from "./store/limits";
import { organizationsRequiringSso } from "./store/sso";
import { AppError, unauthorized } from "../errors";
import { afterPassword, type PasswordStepResult } from "./second-factor";

/** Staff accounts are made by the CLI, seeding and tests here; the console invites (users.ts). */
export { createStaffUser } from "./store/accounts";
export type { StaffPrincipal } from "./store/staff-sessions";

/** The console's staff session cookie. */
export const STAFF_SESSION_COOKIE = "clinsign_session";

/**
 * A staff cookie's Set-Cookie value (empty with max-age 0 clears it): HTTP-only, SameSite=Lax
 * (sent on top-level navigation to the console, never on cross-site subrequests), Secure when the
 * console is served over HTTPS.
 */
export function httpOnlyCookie(
  config: Pick<Services["config"], "publicWebUrl">,
  name: string,
  value: string,
  maxAgeSeconds: number,
): string {
  const secure = config.publicWebUrl.startsWith("https:") ? "; Secure" : "";
  return `${name}=${value}; Path=/; HttpOnly; SameSite=Lax; Max-Age=${maxAgeSeconds}${secure}`;
}

/** The staff session cookie; it ends with the session's absolute end (the idle end is the server's to check). */
export function staffSessionCookieHeader(
  config: Pick<Services["config"], "publicWebUrl">,
  value: string,
  maxAgeSeconds: number,
): string {
  return httpOnlyCookie(config, STAFF_SESSION_COOKIE, value, maxAgeSeconds);
}

/** The Set-Cookie value of a staff session `openStaffSession` opened: it ends with the session's absolute end. */
export function openedStaffSessionCookie(
  config: Pick<Services["config"], "publicWebUrl">,
  staffSession: { token: string; expiresAt: Date },
): string {
  return staffSessionCookieHeader(
    config,
    staffSession.token,
    Math.max(0, Math.floor((staffSession.expiresAt.getTime() - Date.now()) / 1000)),
  );
}

/**
 * A sign-in or a failed one, in the audit log of each organization the account belongs to, with
 * the account as actor (its name shows in the console). Never the password or the typed e-mail.
 */
async function auditSignIn(
  services: Services,
  organizationIds: string[],
  userId: string,
  request: RequestMeta,
  action: "staff.signed_in" | "staff.sign_in_failed" | "staff.sign_in_refused",
  metadata?: Record<string, unknown>,
) {
  for (const organizationId of organizationIds) {
    await recordAudit(
      { ...systemContext(services, organizationId), actor: { type: "user", id: userId }, request },
      { action, metadata },
    );
  }
}

/**
 * Checks e-mail and password, then opens a staff session or, with a second factor, a pending sign-in.
 * Attempts are limited per address and per IP, and a missing user costs the same time as a wrong password. Sign-ins and wrong passwords are
 * audited in the account's organizations; an unknown address has no organization, so it is only
 * counted by the rate limits and noted in the process log (without the address). The answer is
 * the same either way.
 */
export async function logIn(
  services: Services,
  request: RequestMeta,
  input: { email: string; password: string },
): Promise<PasswordStepResult> {
  // The door lower-cases and trims the address (loginInput).
  const emailKey = `login:email:${sha256Hex(input.email)}`;
  await countSignInAttempt(services, { key: emailKey, limit: 10, windowSeconds: 15 * 60 });
  // Per address: a clinic's staff often share one (NAT), so a successful sign-in is taken back below
  // and only failures use up the 50.
  const ipKey = `login:ip:${request.ip ?? "unknown"}`;
  await countSignInAttempt(services, { key: ipKey, limit: 50, windowSeconds: 15 * 60 });
  const user = await accountByEmail(services, input.email);
  const passwordOk = await verifyPassword(input.password, user?.passwordHash ?? (await decoyPasswordHash));
  if (!user) {
    services.log.warn(
      { event: "staff.sign_in_failed", requestId: request.requestId, ip: request.ip },
      "staff sign-in failed",
    );
    throw unauthorized("wrong e-mail or password");
  }
  const joined = await membershipsOf(services, user.id);
  if (!passwordOk) {
    services.log.warn(
      { event: "staff.sign_in_failed", requestId: request.requestId, ip: request.ip },
      "staff sign-in failed",
    );
    await auditSignIn(
      services,
      joined.map((m) => m.organizationId),
      user.id,
      request,
      "staff.sign_in_failed",
    );
    throw unauthorized("wrong e-mail or password");
  }
  // Deactivated memberships take no sign-in; organizations that sign in with single sign-on only
  // take no password (but their break-glass owner's).
  const active = joined.filter((m) => m.deactivatedAt === null);
  const ssoOnly = await organizationsRequiringSso(services, user.id);
  const membership = active.find((m) => !ssoOnly.has(m.organizationId));
  if (!membership && active.length > 0) {
    await auditSignIn(services, [...ssoOnly], user.id, request, "staff.sign_in_refused", { reason: "sso_only" });
    throw new AppError("forbidden", "your organization signs in with single sign-on", { reason: "sso_only" });
  }
  if (!membership)
    throw unauthorized(
      joined.length
        ? "this account is deactivated: ask an admin of your organization"
        : "this account belongs to no organization",
    );
  await clearSignInAttempts(services, emailKey);
  await refundSignInAttempt(services, ipKey);
  // With a second factor (or one required) the staff session opens only after the next step.
  return afterPassword(services, request, { userId: user.id, organizationId: membership.organizationId });
}

/**
 * Opens a staff session for an account whose identity is proven (password, second factor, single
 * sign-on): the one place a staff session cookie's value is made, stored (hashed) and audited.
 */
export async function openStaffSession(
  services: Services,
  request: RequestMeta,
  member: { userId: string; organizationId: string },
  /** How the identity was proven, recorded in the sign-in's audit entry. */
  proof?: { method: "password" | "password_and_second_factor" | "passkey" | "sso" | "invitation" },
) {
  const token = randomSecret(32);
  const { scope } = systemContext(services, member.organizationId, request.requestId);
  const org = await scope.organization();
  const expiresAt = new Date(Date.now() + org.staffSessionMaxHours * 60 * 60 * 1000);
  await scope.insert(staffSessions, {
    tokenHash: sha256Hex(token),
    userId: member.userId,
    ip: request.ip,
    userAgent: request.userAgent,
    expiresAt,
  });
  await auditSignIn(services, [member.organizationId], member.userId, request, "staff.signed_in", proof);
  return { token, expiresAt, userId: member.userId };
}

/** Signing out: the staff session the cookie names ends. */
export async function logOut(services: Services, token: string | undefined): Promise<void> {
  await endStaffSession(services, token);
}

export function describeStaff(principal: StaffPrincipal, devCertificate: boolean): Omit<Me, "sealLevel"> {
  return {
    user: { id: principal.userId, email: principal.email, name: principal.name },
    organization: { id: principal.organizationId, name: principal.organizationName },
    role: principal.role,
    devCertificate,
  };
}
