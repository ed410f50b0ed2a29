import type { AccountSecurity } from "@clinsign/contracts";
import { recordAudit } from "../audit/audit";
import { inTransaction, type OrgContext, type RequestMeta, type Services } from "../context";
import { scopesOfAccount, type AccountHandle } from "./store/accounts";
import {
  deletePasskey,
  deleteRecoveryCodes,
  deleteTotp,
  factorsOf,
  passkeyOf,
  passkeysOf,
  renamePasskeyOf,
  totpOf,
} from "./store/factors";
import { AppError, notFound } from "../errors";
import { storePasskey, verifyPasskeyRegistration } from "./passkeys";
import { recoveryCodesForNewFactor, replaceRecoveryCodes } from "./recovery-codes";
import { confirmTotp } from "./totp";

/**
 * The member's own second factors (the console's "Account security" page, and first-factor
 * set-up during a pending sign-in): tenant services, `(ctx, input)`, where the context's actor is
 * the account. The factors belong to the account, so their rows are in core/credentials; each
 * change is audited in every organization the account belongs to.
 */

export type AccountAuditAction =
  | "staff.factor_added"
  | "staff.factor_removed"
  | "staff.recovery_codes_regenerated"
  | "staff.recovery_code_used"
  | "staff.second_factor_failed";

/** The staff account a context acts as: its own factors are the only ones it may change. */
export function accountOf(ctx: OrgContext): { userId: string; organizationId: string } {
  if (ctx.actor.type !== "user" || !ctx.actor.id) throw new AppError("unauthorized", "please sign in");
  return { userId: ctx.actor.id, organizationId: ctx.scope.organizationId };
}

/**
 * An account's own change (or failure), in the audit log of each organization it belongs to, in
 * the transaction of `via` when it has one.
 */
export async function auditAccount(
  services: Services,
  via: AccountHandle,
  userId: string,
  request: RequestMeta,
  action: AccountAuditAction,
  metadata: Record<string, unknown> = {},
) {
  for (const scope of await scopesOfAccount(via, userId)) {
    await recordAudit({ services, scope, actor: { type: "user", id: userId }, request }, { action, metadata });
  }
}

export const hasFactor = (factors: Awaited<ReturnType<typeof factorsOf>>) =>
  factors.totp !== null || factors.passkeys > 0;

export async function getAccountSecurity(ctx: OrgContext): Promise<AccountSecurity> {
  const { userId } = accountOf(ctx);
  const factors = await factorsOf(ctx.scope, userId);
  const passkeys = await passkeysOf(ctx.scope, userId, "newest");
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
  };
}

/** Confirms the authenticator app with its first code; the first factor also brings recovery codes. */
export async function addTotpFactor(ctx: OrgContext, input: { code: string }) {
  const { userId } = accountOf(ctx);
  return inTransaction(ctx, async (tx) => {
    await confirmTotp(tx, { userId, code: input.code });
    const recoveryCodes = await recoveryCodesForNewFactor(tx.scope, userId);
    await auditAccount(tx.services, tx.scope, userId, tx.request, "staff.factor_added", { factor: "totp" });
    return { recoveryCodes };
  });
}

export async function addPasskeyFactor(ctx: OrgContext, input: { name: string; response: Record<string, unknown> }) {
  const { userId } = accountOf(ctx);
  const verified = await verifyPasskeyRegistration(ctx, input);
  return inTransaction(ctx, async (tx) => {
    const passkey = await storePasskey(tx, verified);
    const recoveryCodes = await recoveryCodesForNewFactor(tx.scope, userId);
    await auditAccount(tx.services, tx.scope, userId, tx.request, "staff.factor_added", {
      factor: "passkey",
      passkeyId: passkey.id,
      name: passkey.name,
    });
    return { recoveryCodes };
  });
}

/** Where a second factor is required, the last one cannot be removed (the member would be led to set one up again). */
async function assertNotLastRequiredFactor(tx: OrgContext, userId: string, removing: "totp" | "passkey") {
  const factors = await factorsOf(tx.scope, userId);
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
async function dropRecoveryCodesWithoutFactor(via: AccountHandle, userId: string) {
  if (!hasFactor(await factorsOf(via, userId))) await deleteRecoveryCodes(via, userId);
}

export async function removeTotpFactor(ctx: OrgContext): Promise<{ ok: true }> {
  const { userId } = accountOf(ctx);
  return inTransaction(ctx, async (tx) => {
    if (!(await totpOf(tx.scope, userId, "confirmed"))) throw notFound("authenticator app");
    await assertNotLastRequiredFactor(tx, userId, "totp");
    await deleteTotp(tx.scope, userId);
    await dropRecoveryCodesWithoutFactor(tx.scope, userId);
    await auditAccount(tx.services, tx.scope, userId, tx.request, "staff.factor_removed", { factor: "totp" });
    return { ok: true as const };
  });
}

export async function removePasskeyFactor(ctx: OrgContext, input: { id: string }): Promise<{ ok: true }> {
  const { userId } = accountOf(ctx);
  return inTransaction(ctx, async (tx) => {
    const row = await passkeyOf(tx.scope, userId, input.id);
    if (!row) throw notFound("passkey");
    await assertNotLastRequiredFactor(tx, userId, "passkey");
    await deletePasskey(tx.scope, input.id);
    await dropRecoveryCodesWithoutFactor(tx.scope, userId);
    await auditAccount(tx.services, tx.scope, userId, tx.request, "staff.factor_removed", {
      factor: "passkey",
      passkeyId: input.id,
      name: row.name,
    });
    return { ok: true as const };
  });
}

export async function renamePasskey(ctx: OrgContext, input: { id: string; name: string }): Promise<{ ok: true }> {
  const { userId } = accountOf(ctx);
  if (!(await renamePasskeyOf(ctx.scope, userId, input.id, input.name))) throw notFound("passkey");
  return { ok: true as const };
}

/** New recovery codes (the old ones stop working); only for an account with a factor. */
export async function regenerateRecoveryCodes(ctx: OrgContext) {
  const { userId } = accountOf(ctx);
  return inTransaction(ctx, async (tx) => {
    if (!hasFactor(await factorsOf(tx.scope, userId)))
      throw new AppError("conflict", "set up an authenticator app or a passkey first", { reason: "no_second_factor" });
    const recoveryCodes = await replaceRecoveryCodes(tx.scope, userId);
    await auditAccount(tx.services, tx.scope, userId, tx.request, "staff.recovery_codes_regenerated");
    return { recoveryCodes };
  });
}
