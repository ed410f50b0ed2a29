import type { InviteResult, ListPage, ListSort, Role, StaffInviteItem, StaffUserItem } from "@clinsign/contracts";
import { eq, isNull, memberships, staffInvites, staffSessions, users, type MembershipRole } from "@clinsign/db";
import { recordAudit } from "../audit/audit";
import { afterCommit, inTransaction, type OrgContext } from "../context";
import { randomSecret, sha256Hex } from "../crypto";
import { AppError, notFound } from "../errors";
import { runJobNow } from "../jobs/execute";
import { messageJobHandler, queueMessage, REDACTED, usesOutbox } from "../messaging/messaging";
import { page } from "../lists/keyset";
import { organizationProfile } from "../organizations/profile";
import { inviteEmail } from "./invite-texts";

/** How long an invite link opens: long enough for a colleague back from a week off. */
export const INVITE_LIFETIME_DAYS = 7;

/**
 * Users and roles of an organization (the Users page; owners and admins by the permission table).
 * Rules the table cannot say, kept here: only owners make owners or change an owner's role or
 * state; the last active owner can be neither demoted nor deactivated; nobody deactivates
 * themselves. Each change is audited in its transaction.
 */

function actingUserId(ctx: OrgContext): string {
  if (ctx.actor.type !== "user" || !ctx.actor.id)
    throw new AppError("forbidden", "managing users needs a signed-in owner or admin");
  return ctx.actor.id;
}

const actorIsOwner = (ctx: OrgContext) => ctx.actor.type === "user" && ctx.actor.role === "owner";

function requireOwnerFor(ctx: OrgContext, what: string): void {
  if (!actorIsOwner(ctx)) throw new AppError("forbidden", `only an owner may ${what}`, { reason: "owner_required" });
}

export async function listUsers(
  ctx: OrgContext,
  input: { cursor?: string; limit: number; sort: ListSort },
): Promise<ListPage<StaffUserItem>> {
  const m = memberships;
  const query = ctx.scope
    .query({
      id: users.id,
      email: users.email,
      name: users.name,
      role: m.role,
      deactivatedAt: m.deactivatedAt,
      createdAt: m.createdAt,
    })
    .from(m)
    .innerJoin(users, eq(users.id, m.userId));
  return page(query, [m.createdAt, m.userId], input, (row) => ({
    id: row.id,
    email: row.email,
    name: row.name,
    role: row.role,
    deactivatedAt: row.deactivatedAt?.toISOString() ?? null,
    createdAt: row.createdAt.toISOString(),
  }));
}

export async function listInvites(
  ctx: OrgContext,
  input: { cursor?: string; limit: number; sort: ListSort },
): Promise<ListPage<StaffInviteItem>> {
  const i = staffInvites;
  const query = ctx.scope
    .query({ id: i.id, email: i.email, role: i.role, createdAt: i.createdAt, expiresAt: i.expiresAt })
    .from(i)
    .where(isNull(i.acceptedAt), isNull(i.revokedAt));
  const now = Date.now();
  return page(query, [i.createdAt, i.id], input, (row) => ({
    id: row.id,
    email: row.email,
    role: row.role,
    createdAt: row.createdAt.toISOString(),
    expiresAt: row.expiresAt.toISOString(),
    expired: row.expiresAt.getTime() <= now,
  }));
}

/**
 * Invites an address with a role: a single-use link, valid INVITE_LIFETIME_DAYS, e-mailed through
 * the messaging providers. Without a mail server (the outbox) no e-mail leaves: the answer then
 * carries the link, this once, for the inviting member to hand over (audited as shown). A new
 * invite for the same address replaces the open one, so only the newest link works.
 */
export async function inviteUser(ctx: OrgContext, input: { email: string; role: Role }): Promise<InviteResult> {
  const invitedBy = actingUserId(ctx);
  if (input.role === "owner") requireOwnerFor(ctx, "invite an owner");
  const token = randomSecret(32);
  const expiresAt = new Date(Date.now() + INVITE_LIFETIME_DAYS * 24 * 60 * 60 * 1000);
  const invite = await inTransaction(ctx, async (tx) => {
    const [member] = await tx.scope
      .query({ userId: memberships.userId })
      .from(memberships)
      .innerJoin(users, eq(users.id, memberships.userId))
      .where(eq(users.email, input.email));
    if (member)
      throw new AppError("conflict", "this address already belongs to a member of the organization", {
        reason: "already_member",
        field: "email",
      });
    await tx.scope.update(
      staffInvites,
      { revokedAt: new Date() },
      eq(staffInvites.email, input.email),
      isNull(staffInvites.acceptedAt),
      isNull(staffInvites.revokedAt),
    );
    const [invite] = await tx.scope
      .insert(staffInvites, {
        email: input.email,
        role: input.role,
        tokenHash: sha256Hex(token),
        invitedByUserId: invitedBy,
        expiresAt,
      })
      .returning({ id: staffInvites.id });
    const org = await organizationProfile(tx);
    const link = (secret: string) => `${tx.services.config.publicWebUrl}/invite#${secret}`;
    const mail = (secret: string) =>
      inviteEmail(org.locale, { organization: org.name, link: link(secret), days: INVITE_LIFETIME_DAYS });
    const message = await queueMessage(tx, {
      channel: "email",
      recipients: [input.email],
      subject: mail(token).subject,
      body: mail(token).body,
      redactedBody: mail(REDACTED).body,
      purpose: "staff.invite",
    });
    const delivery = usesOutbox(tx, "email") ? ("outbox" as const) : ("email" as const);
    await recordAudit(tx, {
      action: "staff.invited",
      metadata: { inviteId: invite!.id, role: input.role, messageId: message.messageId, delivery },
    });
    if (delivery === "outbox")
      await recordAudit(tx, { action: "staff.invite_link_shown", metadata: { inviteId: invite!.id } });
    // The e-mail goes out once the invitation is committed (its job row is the record if this fails).
    await afterCommit(tx, "staff.invite e-mail", () => runJobNow(tx.services, message.jobId, messageJobHandler));
    return { id: invite!.id, delivery, link: delivery === "outbox" ? link(token) : null };
  });
  return { ...invite, expiresAt: expiresAt.toISOString() };
}

export async function revokeInvite(ctx: OrgContext, input: { id: string }): Promise<{ ok: true }> {
  actingUserId(ctx);
  return inTransaction(ctx, async (tx) => {
    const [row] = await tx.scope
      .update(
        staffInvites,
        { revokedAt: new Date() },
        eq(staffInvites.id, input.id),
        isNull(staffInvites.acceptedAt),
        isNull(staffInvites.revokedAt),
      )
      .returning({ id: staffInvites.id, role: staffInvites.role });
    if (!row) throw notFound("open invitation", { field: "id" });
    if (row.role === "owner") requireOwnerFor(tx, "withdraw an owner's invitation");
    await recordAudit(tx, { action: "staff.invite_revoked", metadata: { inviteId: row.id } });
    return { ok: true as const };
  });
}

/** The member's row, locked for the change (404 for a user of another organization). */
async function lockMember(tx: OrgContext, userId: string) {
  const [member] = await tx.scope.select(memberships, eq(memberships.userId, userId)).for("update").limit(1);
  if (!member) throw notFound("user", { field: "userId" });
  return member;
}

/** Conflict when `userId` is the organization's last active owner (owner rows locked, so two demotions cannot both pass). */
async function assertNotLastOwner(tx: OrgContext, userId: string, what: string): Promise<void> {
  const owners = await tx.scope
    .select(memberships, eq(memberships.role, "owner"), isNull(memberships.deactivatedAt))
    .for("update");
  if (owners.length === 1 && owners[0]!.userId === userId) {
    throw new AppError("conflict", `the last owner cannot be ${what}: make another member owner first`, {
      reason: "last_owner",
    });
  }
}

export async function changeRole(
  ctx: OrgContext,
  input: { userId: string; role: MembershipRole },
): Promise<{ ok: true }> {
  actingUserId(ctx);
  return inTransaction(ctx, async (tx) => {
    const member = await lockMember(tx, input.userId);
    if (member.role === input.role) return { ok: true as const };
    if (input.role === "owner" || member.role === "owner") requireOwnerFor(tx, "make owners or change an owner's role");
    if (member.role === "owner") await assertNotLastOwner(tx, member.userId, "demoted");
    await tx.scope.update(memberships, { role: input.role }, eq(memberships.userId, member.userId));
    await recordAudit(tx, {
      action: "staff.role_changed",
      metadata: { userId: member.userId, from: member.role, to: input.role },
    });
    return { ok: true as const };
  });
}

/** Deactivates a member: every staff session of theirs here ends now, and sign-in is refused until reactivated. */
export async function deactivateUser(
  ctx: OrgContext,
  input: { userId: string },
): Promise<{ ok: true; endedSessions: number }> {
  const self = actingUserId(ctx);
  if (input.userId === self) throw new AppError("conflict", "you cannot deactivate yourself", { reason: "self" });
  return inTransaction(ctx, async (tx) => {
    const member = await lockMember(tx, input.userId);
    if (member.deactivatedAt) return { ok: true as const, endedSessions: 0 };
    if (member.role === "owner") {
      requireOwnerFor(tx, "deactivate an owner");
      await assertNotLastOwner(tx, member.userId, "deactivated");
    }
    await tx.scope.update(memberships, { deactivatedAt: new Date() }, eq(memberships.userId, member.userId));
    const ended = await tx.scope
      .delete(staffSessions, eq(staffSessions.userId, member.userId))
      .returning({ id: staffSessions.id });
    await recordAudit(tx, {
      action: "staff.deactivated",
      metadata: { userId: member.userId, endedSessions: ended.length },
    });
    if (ended.length)
      await recordAudit(tx, {
        action: "staff.session_ended",
        metadata: { userId: member.userId, sessionIds: ended.map((r) => r.id), by: "admin" },
      });
    return { ok: true as const, endedSessions: ended.length };
  });
}

export async function reactivateUser(ctx: OrgContext, input: { userId: string }): Promise<{ ok: true }> {
  actingUserId(ctx);
  return inTransaction(ctx, async (tx) => {
    const member = await lockMember(tx, input.userId);
    if (!member.deactivatedAt) return { ok: true as const };
    if (member.role === "owner") requireOwnerFor(tx, "reactivate an owner");
    await tx.scope.update(memberships, { deactivatedAt: null }, eq(memberships.userId, member.userId));
    await recordAudit(tx, { action: "staff.reactivated", metadata: { userId: member.userId } });
    return { ok: true as const };
  });
}
