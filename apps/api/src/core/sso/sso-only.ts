import { and, eq, memberships, organizationSso } from "@clinsign/db";
import type { Services } from "../context";

/**
 * The user's organizations whose members must sign in with single sign-on: SSO-only is on and
 * this user is not the break-glass owner.
 */
export async function organizationsRequiringSso(services: Services, userId: string): Promise<Set<string>> {
  const rows = await services.db
    .select({ organizationId: organizationSso.organizationId, breakGlassUserId: organizationSso.breakGlassUserId })
    .from(organizationSso)
    .innerJoin(
      memberships,
      and(eq(memberships.organizationId, organizationSso.organizationId), eq(memberships.userId, userId)),
    )
    .where(and(eq(organizationSso.enabled, true), eq(organizationSso.ssoOnly, true)));
  return new Set(rows.filter((r) => r.breakGlassUserId !== userId).map((r) => r.organizationId));
}
