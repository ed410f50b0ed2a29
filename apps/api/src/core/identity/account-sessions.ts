import type { StaffSessionItem } from "@clinsign/contracts";
import { and, desc, eq, gt, ne, staffSessions } from "@clinsign/db";
import { recordAudit } from "../audit/audit";
import { inTransaction, type OrgContext } from "../context";
import { AppError, notFound } from "../errors";
import { auditAccount, noticeAccountChange } from "./notices";
import { publicContextOf } from "./public-context";
import { endAllStaffSessionsOf } from "./store/staff-sessions";

/**
 * A staff member's own staff sessions (the Account page): every one they have open in this
 * organization, and ending one, or all but the current. Only the member themselves: the actor's
 * user id scopes every query. An admin ends someone's staff sessions by deactivating them
 * (users.ts). `currentSessionId` is the staff session the request came with (the staff principal's).
 */

/** The most sessions a member sees; more than this open at once is not a person's browsers. */
const MAX_LISTED_SESSIONS = 100;

function me(ctx: OrgContext): string {
  if (ctx.actor.type !== "user" || !ctx.actor.id)
    throw new AppError("forbidden", "only a signed-in staff member has sessions");
  return ctx.actor.id;
}

/** "Firefox on Windows" from a user agent: enough to tell one's devices apart, nothing more. */
export function describeDevice(userAgent: string | null): string | null {
  if (!userAgent) return null;
  const browser = /Edg\//.test(userAgent)
    ? "Edge"
    : /OPR\//.test(userAgent)
      ? "Opera"
      : /Firefox\//.test(userAgent)
        ? "Firefox"
        : /Chrome\/|Chromium\/|CriOS\//.test(userAgent)
          ? "Chrome"
          : /Safari\//.test(userAgent)
            ? "Safari"
            : null;
  const os = /iPhone|iPad|iPod/.test(userAgent)
    ? "iOS"
    : /Android/.test(userAgent)
      ? "Android"
      : /Windows/.test(userAgent)
        ? "Windows"
        : /Mac OS X|Macintosh/.test(userAgent)
          ? "macOS"
          : /CrOS/.test(userAgent)
            ? "ChromeOS"
            : /Linux/.test(userAgent)
              ? "Linux"
              : null;
  if (browser && os) return `${browser} on ${os}`;
  return browser ?? os ?? null;
}

export async function listOwnSessions(
  ctx: OrgContext,
  input: { currentSessionId: string },
): Promise<{ items: StaffSessionItem[] }> {
  const userId = me(ctx);
  const rows = await ctx.scope
    .select(staffSessions, eq(staffSessions.userId, userId), gt(staffSessions.expiresAt, new Date()))
    .orderBy(desc(staffSessions.lastSeenAt))
    .limit(MAX_LISTED_SESSIONS);
  return {
    items: rows.map((row) => ({
      id: row.id,
      device: describeDevice(row.userAgent),
      userAgent: row.userAgent,
      ip: row.ip,
      createdAt: row.createdAt.toISOString(),
      lastSeenAt: row.lastSeenAt.toISOString(),
      current: row.id === input.currentSessionId,
    })),
  };
}

/** Ends one of the member's own sessions (the current one too: that is signing out). */
export async function endOwnSession(
  ctx: OrgContext,
  input: { id: string; currentSessionId: string },
): Promise<{ ok: true }> {
  const userId = me(ctx);
  return inTransaction(ctx, async (tx) => {
    const ended = await tx.scope
      .delete(staffSessions, and(eq(staffSessions.id, input.id), eq(staffSessions.userId, userId)))
      .returning({ id: staffSessions.id });
    if (!ended.length) throw notFound("session", { field: "id" });
    await recordAudit(tx, {
      action: "staff.session_ended",
      metadata: { sessionId: input.id, by: "user", current: input.id === input.currentSessionId },
    });
    return { ok: true as const };
  });
}

/** "Sign out everywhere else": every session of the member in this organization but the one asking. */
export async function endOtherSessions(
  ctx: OrgContext,
  input: { currentSessionId: string },
): Promise<{ ended: number }> {
  const userId = me(ctx);
  return inTransaction(ctx, async (tx) => {
    const ended = await tx.scope
      .delete(staffSessions, and(eq(staffSessions.userId, userId), ne(staffSessions.id, input.currentSessionId)))
      .returning({ id: staffSessions.id });
    if (ended.length)
      await recordAudit(tx, {
        action: "staff.session_ended",
        metadata: { sessionIds: ended.map((r) => r.id), by: "user", others: true },
      });
    return { ended: ended.length };
  });
}

/**
 * "End all sessions": every staff session of the account in every organization, this one too,
 * and its pending sign-ins. Factors and passkeys are the account's, so ending its sessions is the
 * account's too. Audited in each organization, e-mailed to the account.
 */
export async function endAllSessions(ctx: OrgContext): Promise<{ ended: number }> {
  const userId = me(ctx);
  return inTransaction(ctx, async (tx) => {
    const pub = publicContextOf(tx);
    const ended = await endAllStaffSessionsOf(pub.identity, userId);
    await auditAccount(pub, userId, "staff.all_sessions_ended", { ended: ended.length });
    await noticeAccountChange(tx, userId, "all_sessions_ended");
    return { ended: ended.length };
  });
}
