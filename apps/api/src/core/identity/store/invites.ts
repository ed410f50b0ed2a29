import { and, eq, gt, isNull, organizations, staffInvites } from "@clinsign/db";
import { sha256Hex } from "../../crypto";
import { IdentityStore } from "./identity-store";

/**
 * The invite link's secret, found by its hash: the link is the credential, and the organization
 * is known only once it is found. Spending it and adding the member go through that organization's
 * scope (core/staff/invites.ts).
 */

/** The open invitation a link's secret names (not accepted, withdrawn or expired), with its organization's name. */
export async function openInviteByToken(store: IdentityStore, token: string) {
  const [row] = await IdentityStore.handle(store)
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
  return row;
}
