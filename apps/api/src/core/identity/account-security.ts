import type { AccountSecurity, StepUpInput } from "@clinsign/contracts";
import { inTransaction, type OrgContext } from "../context";
import { AppError, notFound } from "../errors";
import { auditAccount, noticeAccountChange, type AccountChange } from "./notices";
import { passkeyRegistrationOptions, storePasskey, verifyPasskeyRegistration } from "./passkeys";
import { publicContextOf, type PublicContext } from "./public-context";
import { recoveryCodesForNewFactor, replaceRecoveryCodes } from "./recovery-codes";
import { confirmStepUp, stepUpMethodsOf, stepUpPasskeyOptions } from "./step-up";
import {
  deletePasskey,
  deleteRecoveryCodes,
  deleteTotp,
  factorsOf,
  hasFactor,
  passkeyOf,
  passkeysOf,
  renamePasskeyOf,
  totpOf,
} from "./store/factors";
import type { IdentityStore } from "./store/identity-store";
import { confirmTotp, totpSetupFor } from "./totp";

/**
 * The member's own second factors (the console's "Account security" page): tenant services,
 * `(ctx, input)`, where the context's actor is the account. Factors belong to the account, so
 * their rows go through the identity store (joining the organization's transaction). Every change
 * asks for a step-up in the same call (step-up.ts), is audited in each of the account's
 * organizations and e-mailed to the account. First-factor set-up during a sign-in uses
 * `enrollTotp` / `enrollPasskey` without a step-up (second-factor.ts: the password was just given).
 */

/** The staff session a change is made from: whose account, signed in when. */
export interface StaffSessionRef {
  userId: string;
  signedInAt: Date;
}

/** The staff account a context acts as: its own factors are the only ones it may change. */
export function accountOf(ctx: OrgContext): string {
  if (ctx.actor.type !== "user" || !ctx.actor.id) throw new AppError("unauthorized", "please sign in");
  return ctx.actor.id;
}

export async function getAccountSecurity(ctx: OrgContext): Promise<AccountSecurity> {
  const userId = accountOf(ctx);
  const pub = publicContextOf(ctx);
  const factors = await factorsOf(pub.identity, userId);
  const passkeys = await passkeysOf(pub.identity, userId, "newest");
  const org = await ctx.scope.organization();
  return {
    totp: factors.totp ? { createdAt: factors.totp.createdAt.toISOString() } : null,
    passkeys: passkeys.map((p) => ({
      id: p.id,
      name: p.name,
      createdAt: p.createdAt.toISOString(),
      lastUsedAt: p.lastUsedAt?.toISOString() ?? null,
      backedUp: p.backedUp,
    })),
    recoveryCodesLeft: factors.recoveryCodesLeft,
    required: org.requireSecondFactor,
    stepUp: await stepUpMethodsOf(pub, userId),
  };
}

/** The authenticator app's set-up (nothing changes until it is confirmed with a step-up). */
export const startTotpSetup = (ctx: OrgContext) => totpSetupFor(publicContextOf(ctx), accountOf(ctx));

/** Registration options for a new passkey (nothing changes until it is registered with a step-up). */
export const startPasskeyRegistration = (ctx: OrgContext) =>
  passkeyRegistrationOptions(publicContextOf(ctx), accountOf(ctx));

/** A passkey's challenge for the step-up of the changes below. */
export const stepUpOptions = (ctx: OrgContext) => stepUpPasskeyOptions(publicContextOf(ctx), accountOf(ctx));

/** The step-up a change asks for, checked first: its own writes (a used code, a used challenge) stand whatever follows. */
async function steppedUp(ctx: OrgContext, input: { stepUp: StepUpInput; staffSession: StaffSessionRef }) {
  const userId = accountOf(ctx);
  if (userId !== input.staffSession.userId) throw new AppError("unauthorized", "please sign in");
  await confirmStepUp(publicContextOf(ctx), input.staffSession, input.stepUp);
  return userId;
}

/** A change of the account's sign-in, in one transaction with its audit entries and the e-mail to the account. */
function commitChange<R>(
  ctx: OrgContext,
  userId: string,
  notice: AccountChange,
  change: (tx: OrgContext, pub: PublicContext) => Promise<R>,
): Promise<R> {
  return inTransaction(ctx, async (tx) => {
    const result = await change(tx, publicContextOf(tx));
    await noticeAccountChange(tx, userId, notice);
    return result;
  });
}

/** Confirms the authenticator app with its first code; the first factor also brings recovery codes. No step-up: callers ask. */
export async function enrollTotp(ctx: OrgContext, input: { userId: string; code: string }) {
  return inTransaction(ctx, async (tx) => {
    const pub = publicContextOf(tx);
    await confirmTotp(pub, input);
    const recoveryCodes = await recoveryCodesForNewFactor(pub.identity, input.userId);
    await auditAccount(pub, input.userId, "staff.factor_added", { factor: "totp" });
    return { recoveryCodes };
  });
}

/** Verifies and stores a new passkey; the first factor also brings recovery codes. No step-up: callers ask. */
export async function enrollPasskey(
  ctx: OrgContext,
  input: { userId: string; name: string; response: Record<string, unknown> },
) {
  // Outside the transaction: the answer uses up its challenge even when it is refused.
  const verified = await verifyPasskeyRegistration(publicContextOf(ctx), input.userId, input);
  return inTransaction(ctx, async (tx) => {
    const pub = publicContextOf(tx);
    const passkey = await storePasskey(pub.identity, verified);
    const recoveryCodes = await recoveryCodesForNewFactor(pub.identity, input.userId);
    await auditAccount(pub, input.userId, "staff.factor_added", {
      factor: "passkey",
      passkeyId: passkey.id,
      name: passkey.name,
    });
    return { recoveryCodes };
  });
}

export async function addTotpFactor(
  ctx: OrgContext,
  input: { code: string; stepUp: StepUpInput; staffSession: StaffSessionRef },
) {
  const userId = await steppedUp(ctx, input);
  return commitChange(ctx, userId, "totp_added", (tx) => enrollTotp(tx, { userId, code: input.code }));
}

export async function addPasskeyFactor(
  ctx: OrgContext,
  input: { name: string; response: Record<string, unknown>; stepUp: StepUpInput; staffSession: StaffSessionRef },
) {
  const userId = await steppedUp(ctx, input);
  const added = await enrollPasskey(ctx, { userId, name: input.name, response: input.response });
  await noticeAccountChange(ctx, userId, "passkey_added");
  return added;
}

/** Where a second factor is required, the last one cannot be removed (the member would be led to set one up again). */
async function assertNotLastRequiredFactor(
  tx: OrgContext,
  store: IdentityStore,
  userId: string,
  removing: "totp" | "passkey",
) {
  const factors = await factorsOf(store, userId);
  const left =
    (removing === "totp" ? 0 : factors.totp ? 1 : 0) +
    (removing === "passkey" ? factors.passkeys - 1 : factors.passkeys);
  if (left > 0) return;
  if ((await tx.scope.organization()).requireSecondFactor)
    throw new AppError("conflict", "your organization requires a second factor: add another before removing this one", {
      reason: "second_factor_required",
    });
}

/** Recovery codes stand in for a factor: with the last factor gone they go too, and the next factor brings new ones. */
async function dropRecoveryCodesWithoutFactor(store: IdentityStore, userId: string) {
  if (!hasFactor(await factorsOf(store, userId))) await deleteRecoveryCodes(store, userId);
}

export async function removeTotpFactor(
  ctx: OrgContext,
  input: { stepUp: StepUpInput; staffSession: StaffSessionRef },
): Promise<{ ok: true }> {
  if (!(await totpOf(publicContextOf(ctx).identity, accountOf(ctx), "confirmed"))) throw notFound("authenticator app");
  const userId = await steppedUp(ctx, input);
  return commitChange(ctx, userId, "totp_removed", async (tx, pub) => {
    await assertNotLastRequiredFactor(tx, pub.identity, userId, "totp");
    await deleteTotp(pub.identity, userId);
    await dropRecoveryCodesWithoutFactor(pub.identity, userId);
    await auditAccount(pub, userId, "staff.factor_removed", { factor: "totp" });
    return { ok: true as const };
  });
}

export async function removePasskeyFactor(
  ctx: OrgContext,
  input: { id: string; stepUp: StepUpInput; staffSession: StaffSessionRef },
): Promise<{ ok: true }> {
  if (!(await passkeyOf(publicContextOf(ctx).identity, accountOf(ctx), input.id))) throw notFound("passkey");
  const userId = await steppedUp(ctx, input);
  return commitChange(ctx, userId, "passkey_removed", async (tx, pub) => {
    const row = await passkeyOf(pub.identity, userId, input.id);
    if (!row) throw notFound("passkey");
    await assertNotLastRequiredFactor(tx, pub.identity, userId, "passkey");
    await deletePasskey(pub.identity, input.id);
    await dropRecoveryCodesWithoutFactor(pub.identity, userId);
    await auditAccount(pub, userId, "staff.factor_removed", { factor: "passkey", passkeyId: input.id, name: row.name });
    return { ok: true as const };
  });
}

export async function renamePasskey(ctx: OrgContext, input: { id: string; name: string }): Promise<{ ok: true }> {
  if (!(await renamePasskeyOf(publicContextOf(ctx).identity, accountOf(ctx), input.id, input.name)))
    throw notFound("passkey");
  return { ok: true as const };
}

/** New recovery codes (the old ones stop working); only for an account with a factor. */
export async function regenerateRecoveryCodes(
  ctx: OrgContext,
  input: { stepUp: StepUpInput; staffSession: StaffSessionRef },
) {
  if (!hasFactor(await factorsOf(publicContextOf(ctx).identity, accountOf(ctx))))
    throw new AppError("conflict", "set up an authenticator app or a passkey first", { reason: "no_second_factor" });
  const userId = await steppedUp(ctx, input);
  return commitChange(ctx, userId, "recovery_codes_regenerated", async (_tx, pub) => {
    const recoveryCodes = await replaceRecoveryCodes(pub.identity, userId);
    await auditAccount(pub, userId, "staff.recovery_codes_regenerated");
    return { recoveryCodes };
  });
}
