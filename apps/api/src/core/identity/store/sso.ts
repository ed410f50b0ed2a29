import {
  and,
  eq,
  gt,
  isNotNull,
  lt,
  ne,
  organizationSso,
  sql,
  ssoDomains,
  ssoIdentities,
  ssoLinkRequests,
  ssoSignInAttempts,
  type MembershipRole,
  type OrgScope,
} from "@clinsign/db";
import { sha256Hex } from "../../crypto";
import { IdentityStore } from "./identity-store";

/**
 * Single sign-on across organizations: a proven e-mail domain to the organization that proved it,
 * a provider's `state` back to the sign-in it started, who a provider's (issuer, subject) is, and
 * the link requests that wait for an existing account to prove itself. Never an e-mail address
 * to an account: that is what another organization's provider could assert too.
 */

/** The organization's provider settings while single sign-on is on (SSO-only, break-glass, mapping); null otherwise. */
export async function enabledSsoOf(scope: OrgScope) {
  const [config] = await scope.select(organizationSso, eq(organizationSso.enabled, true));
  return config ?? null;
}

/** The organization that proved `domain` (DNS TXT), if any: only a proven domain routes the login page. */
export async function organizationOfProvenDomain(store: IdentityStore, domain: string): Promise<string | undefined> {
  const [row] = await IdentityStore.handle(store)
    .select({ organizationId: ssoDomains.organizationId })
    .from(ssoDomains)
    .where(and(eq(ssoDomains.domain, domain), isNotNull(ssoDomains.verifiedAt)));
  return row?.organizationId;
}

/** Whether an organization other than `organizationId` has proven `domain`. */
export async function domainProvenElsewhere(
  store: IdentityStore,
  organizationId: string,
  domain: string,
): Promise<boolean> {
  const [row] = await IdentityStore.handle(store)
    .select({ organizationId: ssoDomains.organizationId })
    .from(ssoDomains)
    .where(
      and(
        eq(ssoDomains.domain, domain),
        isNotNull(ssoDomains.verifiedAt),
        ne(ssoDomains.organizationId, organizationId),
      ),
    )
    .limit(1);
  return row !== undefined;
}

/** Takes the sign-in a provider's `state` names out of the store (single use); undefined when there is none. */
export async function takeSsoSignInAttempt(store: IdentityStore, state: string | undefined) {
  if (!state || state.length > 200) return undefined;
  const [attempt] = await IdentityStore.handle(store)
    .delete(ssoSignInAttempts)
    .where(eq(ssoSignInAttempts.stateHash, sha256Hex(state)))
    .returning();
  return attempt;
}

/** Drops sign-ins that never came back from the provider and link requests nobody finished. */
export async function pruneSsoLeftovers(store: IdentityStore): Promise<void> {
  const db = IdentityStore.handle(store);
  await db.delete(ssoSignInAttempts).where(lt(ssoSignInAttempts.expiresAt, new Date()));
  await db.delete(ssoLinkRequests).where(lt(ssoLinkRequests.expiresAt, new Date()));
}

// ---- Identities: (organization, issuer, subject) → account ----

export interface ProviderIdentity {
  organizationId: string;
  issuer: string;
  subject: string;
}

/** The account a provider's subject was linked to in this organization, if any. */
export async function accountOfIdentity(store: IdentityStore, who: ProviderIdentity): Promise<string | undefined> {
  const [row] = await IdentityStore.handle(store)
    .update(ssoIdentities)
    .set({ lastSignInAt: sql`now()` })
    .where(
      and(
        eq(ssoIdentities.organizationId, who.organizationId),
        eq(ssoIdentities.issuer, who.issuer),
        eq(ssoIdentities.subject, who.subject),
      ),
    )
    .returning({ userId: ssoIdentities.userId });
  return row?.userId;
}

/** Links a provider's subject to an account (once: a second link of the same subject is a no-op). */
export async function linkIdentity(
  store: IdentityStore,
  who: ProviderIdentity & { userId: string; email: string },
): Promise<void> {
  await IdentityStore.handle(store)
    .insert(ssoIdentities)
    .values({ ...who, lastSignInAt: new Date() })
    .onConflictDoNothing();
}

/** Whether the account has any provider identity in another organization than `organizationId`. */
export async function hasIdentityElsewhere(
  store: IdentityStore,
  userId: string,
  organizationId: string,
): Promise<boolean> {
  const [row] = await IdentityStore.handle(store)
    .select({ userId: ssoIdentities.userId })
    .from(ssoIdentities)
    .where(and(eq(ssoIdentities.userId, userId), ne(ssoIdentities.organizationId, organizationId)))
    .limit(1);
  return row !== undefined;
}

// ---- Link requests: an existing account proving itself before a provider's identity joins it ----

export type SsoLinkRequest = typeof ssoLinkRequests.$inferSelect;

export async function insertLinkRequest(
  store: IdentityStore,
  values: ProviderIdentity & { token: string; userId: string; email: string; role: MembershipRole; expiresAt: Date },
): Promise<void> {
  const { token, ...rest } = values;
  await IdentityStore.handle(store)
    .insert(ssoLinkRequests)
    .values({ ...rest, tokenHash: sha256Hex(token) });
}

/** The open link request a cookie's value names (unexpired), if any. */
export async function linkRequestByToken(
  store: IdentityStore,
  token: string | undefined,
): Promise<SsoLinkRequest | undefined> {
  if (!token || token.length > 200) return undefined;
  const [row] = await IdentityStore.handle(store)
    .select()
    .from(ssoLinkRequests)
    .where(and(eq(ssoLinkRequests.tokenHash, sha256Hex(token)), gt(ssoLinkRequests.expiresAt, new Date())));
  return row;
}

/** Records that the account proved itself (password and its own second factor) for this request. */
export async function markLinkProven(store: IdentityStore, tokenHash: string): Promise<boolean> {
  const rows = await IdentityStore.handle(store)
    .update(ssoLinkRequests)
    .set({ provenAt: new Date() })
    .where(and(eq(ssoLinkRequests.tokenHash, tokenHash), gt(ssoLinkRequests.expiresAt, new Date())))
    .returning({ tokenHash: ssoLinkRequests.tokenHash });
  return rows.length === 1;
}

/** Takes a proven request out of the store (single use: a second confirmation finds nothing). */
export async function takeProvenLinkRequest(
  store: IdentityStore,
  token: string | undefined,
): Promise<SsoLinkRequest | undefined> {
  if (!token || token.length > 200) return undefined;
  const [row] = await IdentityStore.handle(store)
    .delete(ssoLinkRequests)
    .where(
      and(
        eq(ssoLinkRequests.tokenHash, sha256Hex(token)),
        isNotNull(ssoLinkRequests.provenAt),
        gt(ssoLinkRequests.expiresAt, new Date()),
      ),
    )
    .returning();
  return row;
}

export async function deleteLinkRequest(store: IdentityStore, token: string | undefined): Promise<void> {
  if (!token || token.length > 200) return;
  await IdentityStore.handle(store)
    .delete(ssoLinkRequests)
    .where(eq(ssoLinkRequests.tokenHash, sha256Hex(token)));
}
