import type { InviteDescription } from "@clinsign/contracts";
import { eq, gt, isNull, memberships, staffInvites } from "@clinsign/db";
import { recordAudit } from "../audit/audit";
import { inTransaction, systemContext, type RequestMeta, type Services } from "../context";
import { hashPassword, verifyPassword } from "../crypto";
import { countSignInAttempt } from "./store/limits";
import { accountByEmail, createAccount } from "./store/accounts";
import { openInviteByToken } from "./store/invites";
import { AppError, unauthorized } from "../errors";
import { openStaffSession } from "./password";

/**
 * The invite link's page (public: the link's secret is the credential). An invitation opens once,
 * before it expires and unless a newer one or an admin withdrew it; every other case is the same
 * 404, so the page cannot tell a used link from a made-up one. These are pre-sign-in steps,
 * shaped `(services, request, input)`: the organization is known only once the link is found.
 */

const invalidInvite = () =>
  new AppError("not_found", "this invitation link is not valid (used, withdrawn or expired)", {
    reason: "invite_invalid",
  });

async function openInvite(services: Services, request: RequestMeta, token: string) {
  await countSignInAttempt(services, {
    key: `invite:ip:${request.ip ?? "unknown"}`,
    limit: 30,
    windowSeconds: 15 * 60,
  });
  const row = await openInviteByToken(services, token);
  if (!row) throw invalidInvite();
  return { ...row, account: await accountByEmail(services, row.invite.email) };
}

export async function describeInvite(
  services: Services,
  request: RequestMeta,
  input: { token: string },
): Promise<InviteDescription> {
  const { invite, organization, account } = await openInvite(services, request, input.token);
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
  request: RequestMeta,
  input: { token: string; name: string; password: string },
) {
  const { invite, account } = await openInvite(services, request, input.token);
  let passwordHash: string | undefined;
  if (account) {
    if (!(await verifyPassword(input.password, account.passwordHash)))
      throw unauthorized("wrong password for the existing account of this address");
  } else {
    passwordHash = await hashPassword(input.password);
  }
  const ctx = { ...systemContext(services, invite.organizationId, request.requestId), request };
  const userId = await inTransaction(ctx, async (tx) => {
    const [spent] = await tx.scope
      .update(
        staffInvites,
        { acceptedAt: new Date() },
        eq(staffInvites.id, invite.id),
        isNull(staffInvites.acceptedAt),
        isNull(staffInvites.revokedAt),
        gt(staffInvites.expiresAt, new Date()),
      )
      .returning({ id: staffInvites.id });
    if (!spent) throw invalidInvite();
    const id =
      account?.id ??
      (await createAccount(tx.scope, { email: invite.email, name: input.name, passwordHash: passwordHash! })).id;
    const added = await tx.scope
      .insert(memberships, { userId: id, role: invite.role })
      .onConflictDoNothing()
      .returning({ userId: memberships.userId });
    if (!added.length)
      throw new AppError("conflict", "this account is already a member of the organization", {
        reason: "already_member",
      });
    await recordAudit(
      { ...tx, actor: { type: "user", id } },
      { action: "staff.invite_accepted", metadata: { inviteId: invite.id, userId: id, role: invite.role } },
    );
    return id;
  });
  return openStaffSession(
    services,
    request,
    { userId, organizationId: invite.organizationId },
    {
      method: "invitation",
    },
  );
}
