import { randomInt } from "node:crypto";
import type { AccountSecurity, LoginResult } from "@clinsign/contracts";
import { staffPendingSignIns, type PendingSignInStep } from "@clinsign/db";
import type {
  PublicKeyCredentialCreationOptionsJSON,
  PublicKeyCredentialRequestOptionsJSON,
} from "@simplewebauthn/server";
import { recordAudit } from "../audit/audit";
import { inTransaction, systemContext, type OrgContext, type RequestMeta, type Services } from "../context";
import { randomSecret, sha256Hex } from "../crypto";
import { clearSignInAttempts, countSignInAttempt } from "../credentials/sign-in-limits";
import { membershipsOf, scopesOfAccount, type AccountHandle } from "../credentials/staff-accounts";
import {
  deletePasskey,
  deleteRecoveryCodes,
  deleteTotp,
  factorsOf,
  passkeyOf,
  passkeysOf,
  renamePasskeyOf,
  replaceRecoveryCodeHashes,
  spendRecoveryCode,
  totpOf,
} from "../credentials/staff-factors";
import { readPendingSignIn, spendPendingSignIn, type PendingSignIn } from "../credentials/staff-sessions";
import { AppError, notFound, unauthorized } from "../errors";
import {
  authenticatePasskey,
  passkeyAuthenticationOptions,
  passkeyRegistrationOptions,
  storePasskey,
  verifyPasskeyRegistration,
} from "./passkeys";
import { openStaffSession } from "./staff";
import { confirmTotp, totpSetupFor, useTotpCode } from "./totp";

/**
 * Second factors: the sign-in steps after the password (pre-sign-in steps, shaped
 * `(services, request, input)`: no organization context exists yet), and the member's own factors
 * on the Account security page (tenant services, `(ctx, input)`: the staff member's context).
 */

/** The HTTP-only cookie that carries a pending sign-in between the password and the second step. */
export const PENDING_SIGN_IN_COOKIE = "clinsign_pending_sign_in";
/** Time to enter a code or touch a passkey after the password. */
export const SECOND_FACTOR_SECONDS = 5 * 60;
/** Time to set up a first factor (install an app, scan, type) when the organization requires one. */
export const ENROLL_SECONDS = 15 * 60;
export const RECOVERY_CODE_COUNT = 10;

/** Failed second steps, per account and per address, in 15 minutes. */
const FACTOR_LIMIT_PER_ACCOUNT = 10;
const FACTOR_LIMIT_PER_IP = 50;
const FACTOR_WINDOW_SECONDS = 15 * 60;

export type AccountAuditAction =
  | "staff.factor_added"
  | "staff.factor_removed"
  | "staff.recovery_codes_regenerated"
  | "staff.recovery_code_used"
  | "staff.second_factor_failed";

/** The staff account a context acts as: its own factors are the only ones it may change. */
function accountOf(ctx: OrgContext): { userId: string; organizationId: string } {
  if (ctx.actor.type !== "user" || !ctx.actor.id) throw new AppError("unauthorized", "please sign in");
  return { userId: ctx.actor.id, organizationId: ctx.scope.organizationId };
}

/**
 * The context of an account during a pending sign-in (its password given, its staff session not
 * yet open): the organization it signs into, with the account as actor.
 */
function pendingAccountContext(services: Services, request: RequestMeta, pending: PendingSignIn): OrgContext {
  return {
    ...systemContext(services, pending.organizationId, request.requestId),
    actor: { type: "user", id: pending.userId },
    request,
  };
}

/**
 * An account's own change (or failure), in the audit log of each organization it belongs to, in
 * the transaction of `via` when it has one.
 */
async function auditAccount(
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

const hasFactor = (factors: Awaited<ReturnType<typeof factorsOf>>) => factors.totp !== null || factors.passkeys > 0;

export type PasswordStepResult =
  | { step: "done"; staffSession: Awaited<ReturnType<typeof openStaffSession>> }
  | { step: PendingSignInStep; pending: { token: string; expiresAt: Date }; methods?: LoginResult["methods"] };

/**
 * After a right password: opens the staff session when the account has no second factor and the
 * organization does not require one; otherwise hands out a pending sign-in (the cookie's value,
 * stored hashed) for the second step, or for setting up a first factor.
 */
export async function afterPassword(
  services: Services,
  request: RequestMeta,
  member: { userId: string; organizationId: string },
): Promise<PasswordStepResult> {
  const { scope } = systemContext(services, member.organizationId, request.requestId);
  const factors = await factorsOf(services, member.userId);
  let step: PendingSignInStep;
  if (hasFactor(factors)) step = "second_factor";
  else {
    if (!(await scope.organization()).requireSecondFactor)
      return { step: "done", staffSession: await openStaffSession(services, request, member, { method: "password" }) };
    step = "enroll";
  }
  const token = randomSecret(32);
  const expiresAt = new Date(Date.now() + (step === "enroll" ? ENROLL_SECONDS : SECOND_FACTOR_SECONDS) * 1000);
  await scope.insert(staffPendingSignIns, { tokenHash: sha256Hex(token), userId: member.userId, step, expiresAt });
  const methods =
    step === "second_factor"
      ? { totp: factors.totp !== null, passkey: factors.passkeys > 0, recoveryCode: factors.recoveryCodesLeft > 0 }
      : undefined;
  return { step, pending: { token, expiresAt }, ...(methods && { methods }) };
}

/** Ends the pending sign-in (once: a second use finds nothing) and opens the staff session. */
async function completeSignIn(services: Services, request: RequestMeta, pending: PendingSignIn) {
  await spendPendingSignIn(services, pending);
  return openStaffSession(services, request, pending, { method: "password_and_second_factor" });
}

/** Counts one second-step attempt for the account and the address (429 past the limits). */
async function countFactorAttempt(services: Services, request: RequestMeta, userId: string | null) {
  await countSignInAttempt(services, {
    key: `factor:ip:${request.ip ?? "unknown"}`,
    limit: FACTOR_LIMIT_PER_IP,
    windowSeconds: FACTOR_WINDOW_SECONDS,
  });
  if (userId)
    await countSignInAttempt(services, {
      key: `factor:user:${userId}`,
      limit: FACTOR_LIMIT_PER_ACCOUNT,
      windowSeconds: FACTOR_WINDOW_SECONDS,
    });
}

async function refuseFactor(services: Services, request: RequestMeta, userId: string, method: string): Promise<never> {
  services.log.warn(
    { event: "staff.second_factor_failed", requestId: request.requestId, ip: request.ip, method },
    "second factor refused",
  );
  await auditAccount(services, services, userId, request, "staff.second_factor_failed", { method });
  throw unauthorized(method === "passkey" ? "this passkey could not be confirmed" : "this code is not valid");
}

/** The second step with a code: the authenticator app's, or a recovery code (each works once). */
export async function verifySecondFactorCode(
  services: Services,
  request: RequestMeta,
  input: { pendingSignIn: string | undefined; method: "totp" | "recovery"; code: string },
) {
  const pending = await readPendingSignIn(services, input.pendingSignIn, "second_factor");
  await countFactorAttempt(services, request, pending.userId);
  if (input.method === "totp") {
    if (!(await useTotpCode(services, pending.userId, input.code)))
      await refuseFactor(services, request, pending.userId, "totp");
  } else {
    const used = await useRecoveryCode(services, pending.userId, input.code);
    if (used === null) await refuseFactor(services, request, pending.userId, "recovery");
    await auditAccount(services, services, pending.userId, request, "staff.recovery_code_used", { remaining: used });
  }
  await clearSignInAttempts(services, `factor:user:${pending.userId}`);
  return completeSignIn(services, request, pending);
}

/** The second step with a passkey of the account that gave its password. */
export async function verifySecondFactorPasskey(
  services: Services,
  request: RequestMeta,
  input: { pendingSignIn: string | undefined; response: Record<string, unknown> },
) {
  const pending = await readPendingSignIn(services, input.pendingSignIn, "second_factor");
  await countFactorAttempt(services, request, pending.userId);
  const passkey = await authenticatePasskey(services, input.response, pending.userId);
  if (!passkey) await refuseFactor(services, request, pending.userId, "passkey");
  await clearSignInAttempts(services, `factor:user:${pending.userId}`);
  return completeSignIn(services, request, pending);
}

/**
 * Passkey options: for the second step, the pending sign-in's account's passkeys; passwordless,
 * any discoverable passkey (a leftover pending cookie does not matter then).
 */
export async function passkeySignInOptions(
  services: Services,
  _request: RequestMeta,
  input: { pendingSignIn: string | undefined; secondStep: boolean },
): Promise<PublicKeyCredentialRequestOptionsJSON> {
  const pending = input.secondStep ? await readPendingSignIn(services, input.pendingSignIn, "second_factor") : null;
  return passkeyAuthenticationOptions(services, pending?.userId ?? null);
}

/**
 * Passwordless: a discoverable, user-verified passkey is both factors at once (something the
 * member has, unlocked by something they know or are), so it opens the staff session directly, also
 * where the organization requires a second factor. The staff session is for the account's first
 * organization, as after a password.
 */
export async function signInWithPasskey(
  services: Services,
  request: RequestMeta,
  input: { response: Record<string, unknown> },
) {
  await countFactorAttempt(services, request, null);
  const passkey = await authenticatePasskey(services, input.response, null);
  if (!passkey) {
    services.log.warn(
      { event: "staff.passkey_sign_in_failed", requestId: request.requestId, ip: request.ip },
      "passkey sign-in failed",
    );
    throw unauthorized("this passkey could not be confirmed");
  }
  const [membership] = await membershipsOf(services, passkey.userId, "active").limit(1);
  if (!membership) throw unauthorized("this account belongs to no active organization");
  return openStaffSession(
    services,
    request,
    { userId: passkey.userId, organizationId: membership.organizationId },
    { method: "passkey" },
  );
}

// ---- Setting up a first factor during a pending `enroll` sign-in ----

const pendingEnrollment = (services: Services, pendingSignIn: string | undefined) =>
  readPendingSignIn(services, pendingSignIn, "enroll");

/** The authenticator app's set-up, for the account of a pending `enroll` sign-in. */
export async function startTotpEnrollment(
  services: Services,
  request: RequestMeta,
  input: { pendingSignIn: string | undefined },
) {
  const pending = await pendingEnrollment(services, input.pendingSignIn);
  return totpSetupFor(pendingAccountContext(services, request, pending));
}

/** Confirms the app during a pending `enroll` sign-in; the staff session opens once it is confirmed. */
export async function confirmTotpEnrollment(
  services: Services,
  request: RequestMeta,
  input: { pendingSignIn: string | undefined; code: string },
) {
  const pending = await pendingEnrollment(services, input.pendingSignIn);
  const { recoveryCodes } = await addTotpFactor(pendingAccountContext(services, request, pending), input);
  return { recoveryCodes, staffSession: await completeSignIn(services, request, pending) };
}

/** Passkey registration options for the account of a pending `enroll` sign-in. */
export async function passkeyEnrollmentOptions(
  services: Services,
  request: RequestMeta,
  input: { pendingSignIn: string | undefined },
): Promise<PublicKeyCredentialCreationOptionsJSON> {
  const pending = await pendingEnrollment(services, input.pendingSignIn);
  return passkeyRegistrationOptions(pendingAccountContext(services, request, pending));
}

/** Registers a passkey during a pending `enroll` sign-in; the staff session opens once it is stored. */
export async function registerPasskeyEnrollment(
  services: Services,
  request: RequestMeta,
  input: { pendingSignIn: string | undefined; name: string; response: Record<string, unknown> },
) {
  const pending = await pendingEnrollment(services, input.pendingSignIn);
  const { recoveryCodes } = await addPasskeyFactor(pendingAccountContext(services, request, pending), input);
  return { recoveryCodes, staffSession: await completeSignIn(services, request, pending) };
}

// ---- Recovery codes ----

/** `xxxxx-xxxxx` from an alphabet without look-alikes: about 49 bits each, typed easily from paper. */
const RECOVERY_ALPHABET = "abcdefghjkmnpqrstuvwxyz23456789";
function newRecoveryCode(): string {
  let code = "";
  for (let i = 0; i < 10; i++) code += RECOVERY_ALPHABET[randomInt(RECOVERY_ALPHABET.length)];
  return `${code.slice(0, 5)}-${code.slice(5)}`;
}
const normalizeRecoveryCode = (code: string) => code.toLowerCase().replace(/[^a-z0-9]/g, "");
const hashRecoveryCode = (code: string) => sha256Hex(`clinsign-recovery:${normalizeRecoveryCode(code)}`);

/** Replaces the account's recovery codes with ten new ones; returns them (shown once). */
async function replaceRecoveryCodes(via: AccountHandle, userId: string): Promise<string[]> {
  const codes = new Set<string>();
  while (codes.size < RECOVERY_CODE_COUNT) codes.add(newRecoveryCode());
  await replaceRecoveryCodeHashes(via, userId, [...codes].map(hashRecoveryCode));
  return [...codes];
}

/** Marks a recovery code used; the number left, or null when the code is not an unused one of the account. */
async function useRecoveryCode(via: AccountHandle, userId: string, code: string): Promise<number | null> {
  if (normalizeRecoveryCode(code).length !== 10) return null;
  if (!(await spendRecoveryCode(via, userId, hashRecoveryCode(code)))) return null;
  return (await factorsOf(via, userId)).recoveryCodesLeft;
}

/** The first factor brings recovery codes; later ones keep the codes the member already has. */
async function recoveryCodesForNewFactor(via: AccountHandle, userId: string): Promise<string[] | null> {
  return (await factorsOf(via, userId)).recoveryCodesLeft > 0 ? null : replaceRecoveryCodes(via, userId);
}

// ---- The member's own factors ----

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
