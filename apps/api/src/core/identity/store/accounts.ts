import {
  and,
  asc,
  eq,
  isNull,
  memberships,
  organizations,
  users,
  type Db,
  type MembershipRole,
  type OrgScope,
  type SQL,
} from "@clinsign/db";
import { hashPassword } from "../../crypto";
import { AppError } from "../../errors";
import { IdentityStore } from "./identity-store";

/**
 * Staff accounts (the users table) and their memberships across organizations. An account is not
 * tenant data: one person may belong to several organizations, and sign-in finds the account by
 * its e-mail before any organization is known. Everything after that goes through OrgScope.
 */

/** The account of an e-mail address (stored lower-cased). */
export async function accountByEmail(store: IdentityStore, email: string) {
  const [account] = await IdentityStore.handle(store).select().from(users).where(eq(users.email, email));
  return account;
}

export async function accountById(store: IdentityStore, userId: string) {
  const [account] = await IdentityStore.handle(store).select().from(users).where(eq(users.id, userId));
  return account;
}

/**
 * A new account; the caller adds its membership through the organization's scope. `passwordHash`
 * null: an account its organization's provider made, with no password of its own.
 */
export async function createAccount(
  store: IdentityStore,
  values: { email: string; name: string | null; passwordHash: string | null },
): Promise<{ id: string }> {
  const [created] = await IdentityStore.handle(store).insert(users).values(values).returning({ id: users.id });
  return created!;
}

/** Memberships with their organization's name, oldest first, where `condition` holds. */
function membershipRows(store: IdentityStore, condition: SQL | undefined) {
  return IdentityStore.handle(store)
    .select({
      organizationId: memberships.organizationId,
      organizationName: organizations.name,
      role: memberships.role,
      deactivatedAt: memberships.deactivatedAt,
      createdAt: memberships.createdAt,
    })
    .from(memberships)
    .innerJoin(organizations, eq(organizations.id, memberships.organizationId))
    .where(condition)
    .orderBy(asc(memberships.createdAt));
}

/** The account's memberships in every organization, oldest first (`active`: not deactivated), with each organization's name. */
export function membershipsOf(store: IdentityStore, userId: string, only?: "active") {
  return membershipRows(
    store,
    and(eq(memberships.userId, userId), only === "active" ? isNull(memberships.deactivatedAt) : undefined),
  );
}

/** The account's membership in one organization (deactivated or not), with the organization's name. */
export async function membershipIn(store: IdentityStore, userId: string, organizationId: string) {
  const [membership] = await membershipRows(
    store,
    and(eq(memberships.userId, userId), eq(memberships.organizationId, organizationId)),
  );
  return membership;
}

/**
 * One scope per organization the account belongs to, on the store's handle (so inside its
 * transaction): an account's own change is audited in each of them.
 */
export async function scopesOfAccount(store: IdentityStore, userId: string): Promise<OrgScope[]> {
  const rows = await IdentityStore.handle(store)
    .select({ organizationId: memberships.organizationId })
    .from(memberships)
    .where(eq(memberships.userId, userId));
  return rows.map((row) => store.scopeOf(row.organizationId));
}

/** Creates a staff user as a member of the organization (CLI, seeding, tests). */
export async function createStaffUser(
  services: { db: Db },
  input: { organizationId: string; email: string; password: string; role: MembershipRole; name?: string },
): Promise<{ userId: string }> {
  const email = input.email.trim().toLowerCase();
  if (input.password.length < 8)
    throw new AppError("invalid_request", "password must be at least 8 characters", { field: "password" });
  const store = IdentityStore.of(services);
  const [org] = await IdentityStore.handle(store)
    .select({ id: organizations.id })
    .from(organizations)
    .where(eq(organizations.id, input.organizationId));
  if (!org) throw new AppError("not_found", "organization not found", { field: "org" });
  const passwordHash = await hashPassword(input.password);
  return store.transaction(async (tx) => {
    if (await accountByEmail(tx, email))
      throw new AppError("conflict", "a user with this e-mail already exists", { field: "email" });
    const user = await createAccount(tx, { email, passwordHash, name: input.name ?? null });
    await tx.scopeOf(input.organizationId).insert(memberships, { userId: user.id, role: input.role });
    return { userId: user.id };
  });
}
