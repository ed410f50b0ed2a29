import { and, eq, inArray, lt, memberships, ne, organizationSso, ssoDomains, ssoSignInAttempts } from "@clinsign/db";
import type { Services } from "../../context";
import { sha256Hex } from "../../crypto";
import { handleOf, type AccountHandle } from "./accounts";

/**
 * Single sign-on before an organization is known: an e-mail domain to the organization that named
 * it, a provider's `state` back to the sign-in it started (by its hash), and which of an account's
 * organizations take no password. A domain belongs to one organization across all of them.
 */

/** The organization that named `domain` for single sign-on, if any. */
export async function organizationOfSsoDomain(services: Services, domain: string): Promise<string | undefined> {
  const [row] = await services.db
    .select({ organizationId: ssoDomains.organizationId })
    .from(ssoDomains)
    .where(eq(ssoDomains.domain, domain));
  return row?.organizationId;
}

/** The first of `domains` another organization than `organizationId` already named, if any. */
export async function ssoDomainClaimedElsewhere(
  via: AccountHandle,
  organizationId: string,
  domains: string[],
): Promise<string | undefined> {
  if (!domains.length) return undefined;
  const [taken] = await handleOf(via)
    .select({ domain: ssoDomains.domain })
    .from(ssoDomains)
    .where(and(inArray(ssoDomains.domain, domains), ne(ssoDomains.organizationId, organizationId)))
    .limit(1);
  return taken?.domain;
}

/** Takes the sign-in a provider's `state` names out of the store (single use); undefined when there is none. */
export async function takeSsoSignInAttempt(services: Services, state: string | undefined) {
  if (!state || state.length > 200) return undefined;
  const [attempt] = await services.db
    .delete(ssoSignInAttempts)
    .where(eq(ssoSignInAttempts.stateHash, sha256Hex(state)))
    .returning();
  return attempt;
}

/** Drops sign-ins that never came back from the provider. */
export async function pruneSsoAttempts(services: Services): Promise<void> {
  await services.db.delete(ssoSignInAttempts).where(lt(ssoSignInAttempts.expiresAt, new Date()));
}

/**
 * The account's organizations whose members must sign in with single sign-on: SSO-only is on and
 * this account is not the break-glass owner.
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
