import type { SsoLinkDescription } from "@clinsign/contracts";
import { recordAudit } from "../../audit/audit";
import { inTransaction } from "../../context";
import { AppError } from "../../errors";
import { accountContext, admitToOrganization, pendingSignIn, type Admission } from "../admission";
import { noticeAccountChange } from "../notices";
import { checkPassword } from "../password";
import { publicContextOf, type PublicContext } from "../public-context";
import { factorsOf, hasFactor, secondStepMethods } from "../store/factors";
import {
  deleteLinkRequest,
  enabledSsoOf,
  linkIdentity,
  linkRequestByToken,
  markLinkProven,
  takeProvenLinkRequest,
} from "../store/sso";
import { applyMembership } from "./membership";

/**
 * Connecting an organization's provider to an existing account. The provider's word that someone
 * holds an address is not enough to hand them the account of that address (another organization's
 * provider can say the same): the account proves itself in the browser that came back from the
 * provider (the link cookie), with its password and then its own second factor, as at any
 * sign-in; then the person confirms. Only then is (organization, issuer, subject) linked to the
 * account and its staff session opened in that organization.
 */

const linkExpired = () =>
  new AppError("unauthorized", "this sign-in has expired; start again from your organization's login page", {
    reason: "link_expired",
  });

async function openLink(pub: PublicContext, linkToken: string | undefined) {
  const link = await linkRequestByToken(pub.identity, linkToken);
  if (!link) throw linkExpired();
  return link;
}

export async function describeSsoLink(
  pub: PublicContext,
  input: { linkToken: string | undefined },
): Promise<SsoLinkDescription> {
  const link = await openLink(pub, input.linkToken);
  const scope = pub.identity.scopeOf(link.organizationId);
  const config = await enabledSsoOf(scope);
  if (!config) throw linkExpired();
  const org = await scope.organization();
  return {
    organization: { id: org.id, name: org.name },
    provider: config.displayName,
    email: link.email,
    role: link.role === "owner" ? "admin" : link.role,
    step: link.provenAt ? "confirm" : "password",
  };
}

/**
 * The account's password for the link. With a second factor it must follow (the usual second step
 * on a pending sign-in that belongs to this link); without one the account has now proven itself.
 */
export async function proveSsoLinkWithPassword(
  pub: PublicContext,
  input: { linkToken: string | undefined; password: string },
): Promise<Admission | { step: "confirm_link" }> {
  const link = await openLink(pub, input.linkToken);
  await checkPassword(pub, { email: link.email, password: input.password }, "sso-link");
  const factors = await factorsOf(pub.identity, link.userId);
  if (hasFactor(factors))
    return {
      step: "second_factor",
      pending: await pendingSignIn(
        pub,
        { userId: link.userId, organizationId: link.organizationId },
        "second_factor",
        link.tokenHash,
      ),
      methods: secondStepMethods(factors),
    };
  if (!(await markLinkProven(pub.identity, link.tokenHash))) throw linkExpired();
  return { step: "confirm_link" };
}

/**
 * The person's confirmation, after the account proved itself: links the provider's identity,
 * brings the membership in line with the provider's role (never owner), and opens the staff
 * session in the organization (single use: the request is taken out of the store).
 */
export async function confirmSsoLink(pub: PublicContext, input: { linkToken: string | undefined }): Promise<Admission> {
  const link = await takeProvenLinkRequest(pub.identity, input.linkToken);
  if (!link) throw linkExpired();
  // The request goes with its account (foreign key, cascade): a taken request names a live account.
  const member = { userId: link.userId, organizationId: link.organizationId };
  const ctx = accountContext(pub, member);
  await inTransaction(ctx, async (tx) => {
    const config = await enabledSsoOf(tx.scope);
    if (!config || config.issuer !== link.issuer) throw linkExpired();
    await linkIdentity(publicContextOf(tx).identity, {
      organizationId: link.organizationId,
      issuer: link.issuer,
      subject: link.subject,
      userId: link.userId,
      email: link.email,
    });
    await applyMembership(tx, { userId: link.userId, role: link.role, breakGlassUserId: config.breakGlassUserId });
    await recordAudit(tx, { action: "staff.sso_linked", metadata: { subject: link.subject } });
    await noticeAccountChange(tx, link.userId, "sso_linked");
  });
  return admitToOrganization(pub, member, { method: "sso_link", strength: "provider" });
}

export async function cancelSsoLink(pub: PublicContext, input: { linkToken: string | undefined }): Promise<void> {
  await deleteLinkRequest(pub.identity, input.linkToken);
}
