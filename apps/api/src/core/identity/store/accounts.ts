import {
  and,
  asc,
  eq,
  isNull,
  memberships,
  organizations,
  OrgScope,
  users,
  type Db,
  type Executor,
  type MembershipRole,
} from "@clinsign/db";
import type { Services } from "../../context";
import { hashPassword } from "../../crypto";
import { AppError } from "../../errors";

/**
 * Staff accounts (the users table) and their memberships across organizations. An account is not
 * tenant data: one person may belong to several organizations, and sign-in finds the account by
 * its e-mail before any organization is known. Everything after that goes through OrgScope.
 */

/** The handle a lookup runs on: the process's (before sign-in) or a scope's, to join its transaction. */
export type AccountHandle = Pick<Services, "db"> | OrgScope;

export const handleOf = (via: AccountHandle): Executor => (via instanceof OrgScope ? OrgScope.unscoped(via) : via.db);

/** The account of an e-mail address (stored lower-cased). */
export async function accountByEmail(via: AccountHandle, email: string) {
  const [account] = await handleOf(via).select().from(users).where(eq(users.email, email));
  return account;
}

export async function accountById(via: AccountHandle, userId: string) {
  const [account] = await handleOf(via).select().from(users).where(eq(users.id, userId));
  return account;
}

/** A new account; the caller adds its membership through the organization's scope. */
export async function createAccount(
  via: AccountHandle,
  values: { email: string; name: string | null; passwordHash: string },
): Promise<{ id: string }> {
  const [created] = await handleOf(via).insert(users).values(values).returning({ id: users.id });
  return created!;
}

/** The account's memberships in every organization, oldest first (`active`: not deactivated). */
export function membershipsOf(via: AccountHandle, userId: string, only?: "active") {
  return handleOf(via)
    .select()
    .from(memberships)
    .where(and(eq(memberships.userId, userId), only === "active" ? isNull(memberships.deactivatedAt) : undefined))
    .orderBy(asc(memberships.createdAt));
}

/**
 * One scope per organization the account belongs to, on the same handle (so inside the caller's
 * transaction): an account's own change is audited in each of them.
 */
export async function scopesOfAccount(via: AccountHandle, userId: string): Promise<OrgScope[]> {
  const db = handleOf(via);
  const rows = await db
    .select({ organizationId: memberships.organizationId })
    .from(memberships)
    .where(eq(memberships.userId, userId));
  return rows.map((row) => new OrgScope(db, row.organizationId));
}

/** Creates a staff user as a member of the organization (CLI, seeding, tests). */
export async function createStaffUser(
  db: Db,
  input: { organizationId: string; email: string; password: string; role: MembershipRole; name?: string },
): Promise<{ userId: string }> {
  const email = input.email.trim().toLowerCase();
  if (input.password.length < 8)
    throw new AppError("invalid_request", "password must be at least 8 characters", { field: "password" });
  const [org] = await db
    .select({ id: organizations.id })
    .from(organizations)
    .where(eq(organizations.id, input.organizationId));
  if (!org) throw new AppError("not_found", "organization not found", { field: "org" });
  const passwordHash = await hashPassword(input.password);
  return db.transaction(async (tx) => {
    const [existing] = await tx.select().from(users).where(eq(users.email, email));
    if (existing) throw new AppError("conflict", "a user with this e-mail already exists", { field: "email" });
    const [user] = await tx
      .insert(users)
      .values({ email, passwordHash, name: input.name ?? null })
      .returning({ id: users.id });
    await new OrgScope(tx, input.organizationId).insert(memberships, { userId: user!.id, role: input.role });
    return { userId: user!.id };
  });
}
