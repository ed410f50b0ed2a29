import {
  and,
  asc,
  count,
  desc,
  eq,
  gt,
  isNotNull,
  isNull,
  lt,
  or,
  staffPasskeys,
  staffRecoveryCodes,
  staffTotp,
  webauthnChallenges,
  type WebauthnChallengePurpose,
} from "@clinsign/db";
import { AppError } from "../../errors";
import { IdentityStore } from "./identity-store";

/**
 * A staff account's second factors: the authenticator app's sealed secret, recovery codes (hashed),
 * passkeys and the WebAuthn challenges handed out for them. They belong to the account, not to an
 * organization, and the sign-in finds a passkey by its credential id before any organization is
 * known. The checks themselves (TOTP codes, WebAuthn answers) live in core/staff.
 */

/** What an account can use as a second factor. */
export async function factorsOf(store: IdentityStore, userId: string) {
  const db = IdentityStore.handle(store);
  const [totp] = await db
    .select({ createdAt: staffTotp.createdAt })
    .from(staffTotp)
    .where(and(eq(staffTotp.userId, userId), isNotNull(staffTotp.confirmedAt)));
  const [passkeys] = await db.select({ n: count() }).from(staffPasskeys).where(eq(staffPasskeys.userId, userId));
  const [codes] = await db
    .select({ n: count() })
    .from(staffRecoveryCodes)
    .where(and(eq(staffRecoveryCodes.userId, userId), isNull(staffRecoveryCodes.usedAt)));
  return { totp: totp ?? null, passkeys: Number(passkeys?.n ?? 0), recoveryCodesLeft: Number(codes?.n ?? 0) };
}

// ---- Authenticator app ----

/** The account's authenticator secret: `confirmed` only once set-up saw its first code. */
export async function totpOf(store: IdentityStore, userId: string, only?: "confirmed") {
  const [row] = await IdentityStore.handle(store)
    .select()
    .from(staffTotp)
    .where(and(eq(staffTotp.userId, userId), only === "confirmed" ? isNotNull(staffTotp.confirmedAt) : undefined));
  return row;
}

/**
 * Records `step` as the newest one used, in one statement that only succeeds while it is newer than
 * the last: a code is accepted once, even when two requests race.
 */
export async function claimTotpStep(store: IdentityStore, userId: string, step: number): Promise<boolean> {
  const claimed = await IdentityStore.handle(store)
    .update(staffTotp)
    .set({ lastUsedStep: step })
    .where(and(eq(staffTotp.userId, userId), or(isNull(staffTotp.lastUsedStep), lt(staffTotp.lastUsedStep, step))))
    .returning({ userId: staffTotp.userId });
  return claimed.length === 1;
}

/** Stores a new (unconfirmed) secret, replacing an unconfirmed one. */
export async function storeTotpSecret(store: IdentityStore, userId: string, secretEnc: string): Promise<void> {
  await IdentityStore.handle(store)
    .insert(staffTotp)
    .values({ userId, secretEnc })
    .onConflictDoUpdate({
      target: staffTotp.userId,
      set: { secretEnc, confirmedAt: null, lastUsedStep: null, createdAt: new Date() },
    });
}

export async function confirmTotpSecret(store: IdentityStore, userId: string, step: number): Promise<void> {
  await IdentityStore.handle(store)
    .update(staffTotp)
    .set({ confirmedAt: new Date(), lastUsedStep: step })
    .where(eq(staffTotp.userId, userId));
}

export async function deleteTotp(store: IdentityStore, userId: string): Promise<void> {
  await IdentityStore.handle(store).delete(staffTotp).where(eq(staffTotp.userId, userId));
}

// ---- Recovery codes ----

/** Replaces the account's recovery codes with new ones (their hashes). */
export async function replaceRecoveryCodeHashes(store: IdentityStore, userId: string, hashes: string[]): Promise<void> {
  const db = IdentityStore.handle(store);
  await db.delete(staffRecoveryCodes).where(eq(staffRecoveryCodes.userId, userId));
  await db.insert(staffRecoveryCodes).values(hashes.map((codeHash) => ({ userId, codeHash })));
}

/** Marks an unused code of the account used; false when it is not one. */
export async function spendRecoveryCode(store: IdentityStore, userId: string, codeHash: string): Promise<boolean> {
  const used = await IdentityStore.handle(store)
    .update(staffRecoveryCodes)
    .set({ usedAt: new Date() })
    .where(
      and(
        eq(staffRecoveryCodes.userId, userId),
        eq(staffRecoveryCodes.codeHash, codeHash),
        isNull(staffRecoveryCodes.usedAt),
      ),
    )
    .returning({ id: staffRecoveryCodes.id });
  return used.length === 1;
}

export async function deleteRecoveryCodes(store: IdentityStore, userId: string): Promise<void> {
  await IdentityStore.handle(store).delete(staffRecoveryCodes).where(eq(staffRecoveryCodes.userId, userId));
}

// ---- Passkeys ----

export function passkeysOf(store: IdentityStore, userId: string, order: "oldest" | "newest") {
  return IdentityStore.handle(store)
    .select()
    .from(staffPasskeys)
    .where(eq(staffPasskeys.userId, userId))
    .orderBy(order === "oldest" ? asc(staffPasskeys.createdAt) : desc(staffPasskeys.createdAt));
}

/** One passkey of the account (undefined for another account's). */
export async function passkeyOf(store: IdentityStore, userId: string, id: string) {
  const [row] = await IdentityStore.handle(store)
    .select()
    .from(staffPasskeys)
    .where(and(eq(staffPasskeys.id, id), eq(staffPasskeys.userId, userId)));
  return row;
}

/** The passkey an authenticator names by its credential id, whoever's it is. */
export async function passkeyByCredentialId(store: IdentityStore, credentialId: string) {
  const [row] = await IdentityStore.handle(store)
    .select()
    .from(staffPasskeys)
    .where(eq(staffPasskeys.credentialId, credentialId));
  return row;
}

/** Stores a verified credential; a credential is registered once. */
export async function insertPasskey(
  store: IdentityStore,
  values: typeof staffPasskeys.$inferInsert,
): Promise<{ id: string; name: string }> {
  if (await passkeyByCredentialId(store, values.credentialId))
    throw new AppError("conflict", "this passkey is already registered", { reason: "passkey_exists" });
  const [row] = await IdentityStore.handle(store)
    .insert(staffPasskeys)
    .values(values)
    .returning({ id: staffPasskeys.id, name: staffPasskeys.name });
  return row!;
}

/** After a verified assertion: the authenticator's counter and backup state, and when. */
export async function recordPasskeyUse(
  store: IdentityStore,
  id: string,
  use: { counter: number; backedUp: boolean },
): Promise<void> {
  await IdentityStore.handle(store)
    .update(staffPasskeys)
    .set({ counter: use.counter, lastUsedAt: new Date(), backedUp: use.backedUp })
    .where(eq(staffPasskeys.id, id));
}

/** Renames one of the account's passkeys; false when it has no such passkey. */
export async function renamePasskeyOf(store: IdentityStore, userId: string, id: string, name: string) {
  const renamed = await IdentityStore.handle(store)
    .update(staffPasskeys)
    .set({ name })
    .where(and(eq(staffPasskeys.id, id), eq(staffPasskeys.userId, userId)))
    .returning({ id: staffPasskeys.id });
  return renamed.length === 1;
}

export async function deletePasskey(store: IdentityStore, id: string): Promise<void> {
  await IdentityStore.handle(store).delete(staffPasskeys).where(eq(staffPasskeys.id, id));
}

// ---- WebAuthn challenges ----

export async function storeWebauthnChallenge(
  store: IdentityStore,
  challengeHash: string,
  purpose: WebauthnChallengePurpose,
  userId: string | null,
  expiresAt: Date,
): Promise<void> {
  await IdentityStore.handle(store).insert(webauthnChallenges).values({ challengeHash, purpose, userId, expiresAt });
}

/**
 * Takes a challenge out of the store: true only once, only before it expires, only for the
 * purpose and account it was handed out for (null: a passwordless sign-in).
 */
export async function consumeWebauthnChallenge(
  store: IdentityStore,
  challengeHash: string,
  purpose: WebauthnChallengePurpose,
  userId: string | null,
): Promise<boolean> {
  const taken = await IdentityStore.handle(store)
    .delete(webauthnChallenges)
    .where(
      and(
        eq(webauthnChallenges.challengeHash, challengeHash),
        eq(webauthnChallenges.purpose, purpose),
        userId === null ? isNull(webauthnChallenges.userId) : eq(webauthnChallenges.userId, userId),
        gt(webauthnChallenges.expiresAt, new Date()),
      ),
    )
    .returning({ hash: webauthnChallenges.challengeHash });
  return taken.length === 1;
}

/** What the second step may use, as the sign-in answer names it. */
export const secondStepMethods = (factors: Awaited<ReturnType<typeof factorsOf>>) => ({
  totp: factors.totp !== null,
  passkey: factors.passkeys > 0,
  recoveryCode: factors.recoveryCodesLeft > 0,
});

/** Whether the account has a second factor (recovery codes only stand in for one). */
export const hasFactor = (factors: Awaited<ReturnType<typeof factorsOf>>) =>
  factors.totp !== null || factors.passkeys > 0;
