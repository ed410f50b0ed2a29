import {
  and,
  eq,
  gt,
  isNull,
  lt,
  memberships,
  organizations,
  sql,
  staffPendingSignIns,
  staffSessions,
  users,
  webauthnChallenges,
  type PendingSignInStep,
} from "@clinsign/db";
import type { StaffPrincipal } from "../../context";
import { sha256Hex } from "../../crypto";
import { AppError } from "../../errors";
import { IdentityStore } from "./identity-store";

/**
 * The staff session cookie and the pending sign-in cookie, found by the hash of their value: the
 * lookups that come before any organization is known. Both are stored through the organization's
 * scope when they are made (core/staff); here they are resolved, spent and pruned.
 */

/** `lastSeenAt` is written at most this often per session, so busy consoles do not write on every request. */
export const STAFF_SESSION_TOUCH_SECONDS = 60;

/**
 * Resolves a staff session cookie; null when absent, unknown, past its absolute end (sign-in plus
 * the organization's `staffSessionMaxHours`, as set now) or idle end (`staffSessionIdleMinutes`
 * since the last request), or when the membership is gone or deactivated: a role change or
 * deactivation holds from the very next request. Marks the session seen, at most once a minute.
 */
export async function resolveStaffSession(
  store: IdentityStore,
  token: string | undefined,
): Promise<StaffPrincipal | null> {
  if (!token || token.length > 200) return null;
  const db = IdentityStore.handle(store);
  const [row] = await db
    .select({
      sessionId: staffSessions.id,
      signedInAt: staffSessions.createdAt,
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

/** Ends the staff session a cookie names (signing out); nothing when it names none. */
export async function endStaffSession(store: IdentityStore, token: string | undefined): Promise<void> {
  if (token)
    await IdentityStore.handle(store)
      .delete(staffSessions)
      .where(eq(staffSessions.tokenHash, sha256Hex(token)));
}

/**
 * Ends every staff session of the account in every organization, and its pending sign-ins: what
 * "end all sessions" means when factors and passkeys are the account's, not an organization's.
 * Returns the ended sessions, for each organization's audit entry.
 */
export async function endAllStaffSessionsOf(
  store: IdentityStore,
  userId: string,
): Promise<{ id: string; organizationId: string }[]> {
  const db = IdentityStore.handle(store);
  await db.delete(staffPendingSignIns).where(eq(staffPendingSignIns.userId, userId));
  return db
    .delete(staffSessions)
    .where(eq(staffSessions.userId, userId))
    .returning({ id: staffSessions.id, organizationId: staffSessions.organizationId });
}

/**
 * Deletes staff sessions past their absolute end or idle past their organization's limits: they no
 * longer open anything (`resolveStaffSession` checks both), and their address and device should not
 * outlive them in the Account page's data.
 */
export async function pruneEndedStaffSessions(store: IdentityStore): Promise<void> {
  await IdentityStore.handle(store)
    .delete(staffSessions)
    .where(
      sql`${staffSessions.expiresAt} <= now() or exists (
      select 1 from ${organizations} where ${organizations.id} = ${staffSessions.organizationId} and (
        ${staffSessions.lastSeenAt} <= now() - make_interval(mins => ${organizations.staffSessionIdleMinutes})
        or ${staffSessions.createdAt} <= now() - make_interval(hours => ${organizations.staffSessionMaxHours})
      )
    )`,
    );
}

export interface PendingSignIn {
  tokenHash: string;
  userId: string;
  organizationId: string;
  step: PendingSignInStep;
  /** Set when the password step proved the account for connecting a provider (its link request's hash). */
  ssoLinkHash: string | null;
}

/** Stores a pending sign-in (the cookie's value hashed) for the second step or first-factor set-up. */
export async function insertPendingSignIn(
  store: IdentityStore,
  values: {
    token: string;
    userId: string;
    organizationId: string;
    step: PendingSignInStep;
    expiresAt: Date;
    ssoLinkHash?: string;
  },
): Promise<void> {
  const { token, ssoLinkHash, ...rest } = values;
  await IdentityStore.handle(store)
    .insert(staffPendingSignIns)
    .values({ ...rest, tokenHash: sha256Hex(token), ssoLinkHash: ssoLinkHash ?? null });
}

const signInExpired = () =>
  new AppError("unauthorized", "this sign-in has expired; enter your password again", { reason: "sign_in_expired" });

/** The pending sign-in a cookie names, at the step expected; 401 when missing, forged or expired. */
export async function readPendingSignIn(
  store: IdentityStore,
  token: string | undefined,
  step: PendingSignInStep,
): Promise<PendingSignIn> {
  if (token && token.length <= 200) {
    const [row] = await IdentityStore.handle(store)
      .select()
      .from(staffPendingSignIns)
      .where(and(eq(staffPendingSignIns.tokenHash, sha256Hex(token)), gt(staffPendingSignIns.expiresAt, new Date())));
    if (row && row.step === step) return row;
  }
  throw signInExpired();
}

/** Ends a pending sign-in, once: a second use (another tab, a replay) is 401. */
export async function spendPendingSignIn(store: IdentityStore, pending: PendingSignIn): Promise<void> {
  const taken = await IdentityStore.handle(store)
    .delete(staffPendingSignIns)
    .where(eq(staffPendingSignIns.tokenHash, pending.tokenHash))
    .returning({ userId: staffPendingSignIns.userId });
  if (taken.length !== 1) throw signInExpired();
}

/** Drops pending sign-ins and WebAuthn challenges past their time. */
export async function pruneSignInLeftovers(store: IdentityStore): Promise<void> {
  const db = IdentityStore.handle(store);
  await db.delete(staffPendingSignIns).where(lt(staffPendingSignIns.expiresAt, new Date()));
  await db.delete(webauthnChallenges).where(lt(webauthnChallenges.expiresAt, new Date()));
}
