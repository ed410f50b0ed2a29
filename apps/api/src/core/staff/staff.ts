import type { Me } from "@clinsign/contracts";
import {
  and,
  asc,
  eq,
  gt,
  isNull,
  lt,
  memberships,
  organizations,
  sql,
  staffSessions,
  users,
  type Db,
  type MembershipRole,
} from "@clinsign/db";
import { recordAudit } from "../audit/audit";
import { systemContext, type RequestMeta, type Services } from "../context";
import { decoyPasswordHash, hashPassword, randomSecret, sha256Hex, verifyPassword } from "../crypto";
import { AppError, unauthorized } from "../errors";
import { consumeRateLimit, resetRateLimit } from "../rate-limit";
import { organizationsRequiringSso } from "../sso/sso-only";
import { afterPassword } from "./second-factor";

export const SESSION_COOKIE = "clinsign_session";
/** The longest a staff session can last (the largest `staffSessionMaxHours`); the cookie's own end is the session's. */
export const SESSION_TTL_SECONDS = 720 * 60 * 60;
/** `lastSeenAt` is written at most this often per session, so busy consoles do not write on every request. */
export const STAFF_SESSION_TOUCH_SECONDS = 60;

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
export function sessionCookieHeader(
  config: Pick<Services["config"], "publicWebUrl">,
  value: string,
  maxAgeSeconds: number,
): string {
  return httpOnlyCookie(config, SESSION_COOKIE, value, maxAgeSeconds);
}

/** The Set-Cookie value of a session `openStaffSession` opened: it ends with the session's absolute end. */
export function openedSessionCookie(
  config: Pick<Services["config"], "publicWebUrl">,
  session: { token: string; expiresAt: Date },
): string {
  return sessionCookieHeader(
    config,
    session.token,
    Math.max(0, Math.floor((session.expiresAt.getTime() - Date.now()) / 1000)),
  );
}

/** Creates a staff user (or adds an existing one) as a member of the organization. */
export async function createStaffUser(
  db: Db,
  input: { organizationId: string; email: string; password: string; role: MembershipRole; name?: string },
): Promise<{ userId: string }> {
  const email = input.email.trim().toLowerCase();
  if (input.password.length < 8)
    throw new AppError("invalid_request", "password must be at least 8 characters", { field: "password" });
  const [org] = await db
    .select({ id: organizations.id })
    .from(organizations)
    .where(eq(organizations.id, input.organizationId));
  if (!org) throw new AppError("not_found", "organization not found", { field: "org" });
  const passwordHash = await hashPassword(input.password);
  return db.transaction(async (tx) => {
    const [existing] = await tx.select().from(users).where(eq(users.email, email));
    if (existing) throw new AppError("conflict", "a user with this e-mail already exists", { field: "email" });
    const [user] = await tx
      .insert(users)
      .values({ email, passwordHash, name: input.name ?? null })
      .returning({ id: users.id });
    await tx.insert(memberships).values({ userId: user!.id, organizationId: input.organizationId, role: input.role });
    return { userId: user!.id };
  });
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
 * Checks e-mail and password, then opens a session or, with a second factor, a pending sign-in.
 * Attempts are limited per address and per IP, and a missing user costs the same time as a wrong password. Sign-ins and wrong passwords are
 * audited in the account's organizations; an unknown address has no organization, so it is only
 * counted by the rate limits and noted in the process log (without the address). The answer is
 * the same either way.
 */
export async function logIn(services: Services, input: { email: string; password: string }, request: RequestMeta) {
  const { db } = services;
  const email = input.email.trim().toLowerCase();
  const emailKey = `login:email:${sha256Hex(email)}`;
  await consumeRateLimit(db, { key: emailKey, limit: 10, windowSeconds: 15 * 60 });
  await consumeRateLimit(db, { key: `login:ip:${request.ip ?? "unknown"}`, limit: 50, windowSeconds: 15 * 60 });
  const [user] = await db.select().from(users).where(eq(users.email, email));
  const passwordOk = await verifyPassword(input.password, user?.passwordHash ?? (await decoyPasswordHash));
  if (!user) {
    services.log.warn(
      { event: "staff.sign_in_failed", requestId: request.requestId, ip: request.ip },
      "staff sign-in failed",
    );
    throw unauthorized("wrong e-mail or password");
  }
  const joined = await db
    .select()
    .from(memberships)
    .where(eq(memberships.userId, user.id))
    .orderBy(asc(memberships.createdAt));
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
  await resetRateLimit(db, emailKey);
  // With a second factor (or one required) the session opens only after the next step.
  return afterPassword(services, { userId: user.id, organizationId: membership.organizationId }, request);
}

/**
 * Opens a staff session for an account whose identity is proven (password, second factor, single
 * sign-on): the one place a session cookie's value is made, stored (hashed) and audited.
 */
export async function openStaffSession(
  services: Services,
  member: { userId: string; organizationId: string },
  request: RequestMeta,
  /** How the identity was proven, recorded in the sign-in's audit entry. */
  proof?: { method: "password" | "password_and_second_factor" | "passkey" | "sso" | "invitation" },
) {
  const token = randomSecret(32);
  const [org] = await services.db
    .select({ maxHours: organizations.staffSessionMaxHours })
    .from(organizations)
    .where(eq(organizations.id, member.organizationId));
  if (!org) throw unauthorized("this account belongs to no organization");
  const expiresAt = new Date(Date.now() + org.maxHours * 60 * 60 * 1000);
  await services.db.insert(staffSessions).values({
    tokenHash: sha256Hex(token),
    userId: member.userId,
    organizationId: member.organizationId,
    ip: request.ip,
    userAgent: request.userAgent,
    expiresAt,
  });
  await auditSignIn(services, [member.organizationId], member.userId, request, "staff.signed_in", proof);
  return { token, expiresAt, userId: member.userId };
}

/**
 * Deletes staff sessions past their absolute end or idle past their organization's limits: they no
 * longer open anything (`resolveStaffSession` checks both), and their address and device should not
 * outlive them in the Account page's data.
 */
export async function pruneEndedStaffSessions(db: Db): Promise<void> {
  await db.delete(staffSessions).where(
    sql`${staffSessions.expiresAt} <= now() or exists (
      select 1 from ${organizations} where ${organizations.id} = ${staffSessions.organizationId} and (
        ${staffSessions.lastSeenAt} <= now() - make_interval(mins => ${organizations.staffSessionIdleMinutes})
        or ${staffSessions.createdAt} <= now() - make_interval(hours => ${organizations.staffSessionMaxHours})
      )
    )`,
  );
}

export async function logOut(db: Db, token: string | undefined): Promise<void> {
  if (token) await db.delete(staffSessions).where(eq(staffSessions.tokenHash, sha256Hex(token)));
}

export interface StaffPrincipal {
  /** The staff session (row id, never its secret) the request came with. */
  sessionId: string;
  userId: string;
  organizationId: string;
  role: MembershipRole;
  email: string;
  name: string | null;
  organizationName: string;
}

/**
 * Resolves a session cookie; null when absent, unknown, past its absolute end (sign-in plus the
 * organization's `staffSessionMaxHours`, as set now) or idle end (`staffSessionIdleMinutes` since
 * the last request), or when the membership is gone or deactivated: a role change or deactivation
 * holds from the very next request. Marks the session seen, at most once a minute.
 */
export async function resolveStaffSession(db: Db, token: string | undefined): Promise<StaffPrincipal | null> {
  if (!token || token.length > 200) return null;
  const [row] = await db
    .select({
      sessionId: staffSessions.id,
      lastSeenAt: staffSessions.lastSeenAt,
      userId: users.id,
      email: users.email,
      name: users.name,
      organizationId: staffSessions.organizationId,
      organizationName: organizations.name,
      role: memberships.role,
    })
    .from(staffSessions)
    .innerJoin(users, eq(users.id, staffSessions.userId))
    .innerJoin(organizations, eq(organizations.id, staffSessions.organizationId))
    .innerJoin(
      memberships,
      and(eq(memberships.userId, staffSessions.userId), eq(memberships.organizationId, staffSessions.organizationId)),
    )
    .where(
      and(
        eq(staffSessions.tokenHash, sha256Hex(token)),
        gt(staffSessions.expiresAt, new Date()),
        sql`${staffSessions.createdAt} > now() - make_interval(hours => ${organizations.staffSessionMaxHours})`,
        sql`${staffSessions.lastSeenAt} > now() - make_interval(mins => ${organizations.staffSessionIdleMinutes})`,
        isNull(memberships.deactivatedAt),
      ),
    )
    .limit(1);
  if (!row) return null;
  const { lastSeenAt, ...principal } = row;
  const touchBefore = new Date(Date.now() - STAFF_SESSION_TOUCH_SECONDS * 1000);
  if (lastSeenAt < touchBefore) {
    // Conditional, so concurrent requests of one session write once.
    await db
      .update(staffSessions)
      .set({ lastSeenAt: sql`now()` })
      .where(and(eq(staffSessions.id, row.sessionId), lt(staffSessions.lastSeenAt, touchBefore)));
  }
  return principal;
}

export function describeStaff(principal: StaffPrincipal, devCertificate: boolean): Omit<Me, "sealLevel"> {
  return {
    user: { id: principal.userId, email: principal.email, name: principal.name },
    organization: { id: principal.organizationId, name: principal.organizationName },
    role: principal.role,
    devCertificate,
  };
}
