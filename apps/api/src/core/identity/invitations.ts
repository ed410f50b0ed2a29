import type { InviteDescription } from "@clinsign/contracts";
import { eq, gt, isNull, memberships, staffInvites } from "@clinsign/db";
import { recordAudit } from "../audit/audit";
import { hashPassword } from "../crypto";
import { AppError } from "../errors";
import { admitToOrganization, type Admission } from "./admission";
import { checkPassword } from "./password";
import type { PublicContext } from "./public-context";
import { accountByEmail, createAccount } from "./store/accounts";
import { openInviteByToken } from "./store/invites";
import { countSignInAttempt } from "./store/limits";
import { enabledSsoOf } from "./store/sso";
import { addressKey } from "../rate-limit";

/**
 * The invite link's page (public: the link's secret is the credential). An invitation opens once,
 * before it expires and unless a newer one or an admin withdrew it; every other case is the same
 * 404, so the page cannot tell a used link from a made-up one. Accepting it is a way in like any
 * other: it ends in admission, so an existing account's second factor, a required second factor
 * and single-sign-on-only hold here as at the login page.
 */

const invalidInvite = () =>
  new AppError("not_found", "this invitation link is not valid (used, withdrawn or expired)", {
    reason: "invite_invalid",
  });

async function openInvite(pub: PublicContext, token: string) {
  await countSignInAttempt(pub.identity, {
    key: `invite:ip:${addressKey(pub.request.ip)}`,
    limit: 30,
    windowSeconds: 15 * 60,
  });
  const row = await openInviteByToken(pub.identity, token);
  if (!row) throw invalidInvite();
  const sso = await enabledSsoOf(pub.identity.scopeOf(row.invite.organizationId));
  return { ...row, ssoOnly: Boolean(sso?.ssoOnly), account: await accountByEmail(pub.identity, row.invite.email) };
}

export async function describeInvite(pub: PublicContext, input: { token: string }): Promise<InviteDescription> {
  const { invite, organization, account, ssoOnly } = await openInvite(pub, input.token);
  return {
    organization,
    email: invite.email,
    role: invite.role,
    expiresAt: invite.expiresAt.toISOString(),
    existingAccount: account !== undefined,
    ssoOnly,
  };
}

/**
 * Accepts an invitation: a new address gets an account with the chosen name and password; an
 * address that already has one (in another organization) proves it with that account's password,
 * which stays unchanged. An organization that signs in with single sign-on only takes no
 * invitation by password. The invitation is spent in the transaction that adds the membership, so
 * two tabs cannot both use it; then admission decides: the staff session, or the second step.
 */
export async function acceptInvite(
  pub: PublicContext,
  input: { token: string; name: string; password: string },
): Promise<Admission> {
  const { invite, account, ssoOnly } = await openInvite(pub, input.token);
  if (ssoOnly)
    throw new AppError("forbidden", "this organization signs in with single sign-on only", { reason: "sso_only" });
  const passwordHash = account
    ? (await checkPassword(pub, { email: invite.email, password: input.password }, "invite"), undefined)
    : await hashPassword(input.password);
  const userId = await pub.identity.transaction(async (store) => {
    const scope = store.scopeOf(invite.organizationId);
    const [spent] = await scope
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
      (await createAccount(store, { email: invite.email, name: input.name, passwordHash: passwordHash! })).id;
    const added = await scope
      .insert(memberships, { userId: id, role: invite.role })
      .onConflictDoNothing()
      .returning({ userId: memberships.userId });
    if (!added.length)
      throw new AppError("conflict", "this account is already a member of the organization", {
        reason: "already_member",
      });
    await recordAudit(
      { services: pub.services, scope, actor: { type: "user", id }, request: pub.request },
      { action: "staff.invite_accepted", metadata: { inviteId: invite.id, userId: id, role: invite.role } },
    );
    return id;
  });
  const member = { userId, organizationId: invite.organizationId };
  return admitToOrganization(pub, member, { method: "invitation", strength: "one_factor" });
}
