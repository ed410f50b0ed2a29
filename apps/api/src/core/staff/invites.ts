import type { InviteDescription } from "@clinsign/contracts";
import { and, eq, gt, isNull, memberships, organizations, OrgScope, staffInvites, users } from "@clinsign/db";
import { recordAudit } from "../audit/audit";
import { systemContext, type RequestMeta, type Services } from "../context";
import { hashPassword, sha256Hex, verifyPassword } from "../crypto";
import { AppError, unauthorized } from "../errors";
import { consumeRateLimit } from "../rate-limit";
import { openStaffSession } from "./staff";

/**
 * The invite link's page (public: the link's secret is the credential). An invitation opens once,
 * before it expires and unless a newer one or an admin withdrew it; every other case is the same
 * 404, so the page cannot tell a used link from a made-up one.
 */

const invalidInvite = () =>
  new AppError("not_found", "this invitation link is not valid (used, withdrawn or expired)", {
    reason: "invite_invalid",
  });

async function openInvite(services: Services, token: string, request: RequestMeta) {
  await consumeRateLimit(services.db, {
    key: `invite:ip:${request.ip ?? "unknown"}`,
    limit: 30,
    windowSeconds: 15 * 60,
  });
  const [row] = await services.db
    .select({ invite: staffInvites, organization: organizations.name })
    .from(staffInvites)
    .innerJoin(organizations, eq(organizations.id, staffInvites.organizationId))
    .where(
      and(
        eq(staffInvites.tokenHash, sha256Hex(token)),
        isNull(staffInvites.acceptedAt),
        isNull(staffInvites.revokedAt),
        gt(staffInvites.expiresAt, new Date()),
      ),
    );
  if (!row) throw invalidInvite();
  const [account] = await services.db.select().from(users).where(eq(users.email, row.invite.email));
  return { ...row, account };
}

export async function describeInvite(
  services: Services,
  input: { token: string },
  request: RequestMeta,
): Promise<InviteDescription> {
  const { invite, organization, account } = await openInvite(services, input.token, request);
  return {
    organization,
    email: invite.email,
    role: invite.role,
    expiresAt: invite.expiresAt.toISOString(),
    existingAccount: account !== undefined,
  };
}

/**
 * Accepts an invitation: a new address gets an account with the chosen name and password; an
 * address that already has one (in another organization) proves it with that account's password,
 * which stays unchanged. The invitation is spent in the transaction that adds the membership, so
 * two tabs cannot both use it; then a staff session opens as after a sign-in.
 */
export async function acceptInvite(
  services: Services,
  input: { token: string; name: string; password: string },
  request: RequestMeta,
) {
  const { invite, account } = await openInvite(services, input.token, request);
  let passwordHash: string | undefined;
  if (account) {
    if (!(await verifyPassword(input.password, account.passwordHash)))
      throw unauthorized("wrong password for the existing account of this address");
  } else {
    passwordHash = await hashPassword(input.password);
  }
  const userId = await services.db.transaction(async (tx) => {
    const [spent] = await tx
      .update(staffInvites)
      .set({ acceptedAt: new Date() })
      .where(
        and(
          eq(staffInvites.id, invite.id),
          isNull(staffInvites.acceptedAt),
          isNull(staffInvites.revokedAt),
          gt(staffInvites.expiresAt, new Date()),
        ),
      )
      .returning({ id: staffInvites.id });
    if (!spent) throw invalidInvite();
    let id = account?.id;
    if (!id) {
      const [created] = await tx
        .insert(users)
        .values({ email: invite.email, name: input.name, passwordHash: passwordHash! })
        .returning({ id: users.id });
      id = created!.id;
    }
    const added = await tx
      .insert(memberships)
      .values({ userId: id, organizationId: invite.organizationId, role: invite.role })
      .onConflictDoNothing()
      .returning({ userId: memberships.userId });
    if (!added.length)
      throw new AppError("conflict", "this account is already a member of the organization", {
        reason: "already_member",
      });
    const ctx = {
      ...systemContext(services, invite.organizationId),
      scope: new OrgScope(tx, invite.organizationId),
      actor: { type: "user" as const, id },
      request,
    };
    await recordAudit(ctx, {
      action: "staff.invite_accepted",
      metadata: { inviteId: invite.id, userId: id, role: invite.role },
    });
    return id;
  });
  return openStaffSession(services, { userId, organizationId: invite.organizationId }, request, {
    method: "invitation",
  });
}
