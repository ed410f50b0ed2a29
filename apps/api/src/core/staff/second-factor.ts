import { randomInt } from "node:crypto";
import type { AccountSecurity, LoginResult } from "@clinsign/contracts";
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
  memberships,
  OrgScope,
  organizations,
  staffPasskeys,
  staffPendingSignIns,
  staffRecoveryCodes,
  staffTotp,
  type Executor,
  type PendingSignInStep,
} from "@clinsign/db";
import { recordAudit } from "../audit/audit";
import type { RequestMeta, Services } from "../context";
import { randomSecret, sha256Hex } from "../crypto";
import { AppError, notFound, unauthorized } from "../errors";
import { consumeRateLimit, resetRateLimit } from "../rate-limit";
import { authenticatePasskey, pruneWebauthnChallenges, storePasskey, verifyPasskeyRegistration } from "./passkeys";
import { openStaffSession } from "./staff";
import { confirmTotp, useTotpCode } from "./totp";

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

/** An account's own change (or failure), in the audit log of each organization it belongs to. */
async function auditAccount(
  services: Services,
  db: Executor,
  userId: string,
  request: RequestMeta,
  action: AccountAuditAction,
  metadata: Record<string, unknown> = {},
) {
  const joined = await db
    .select({ organizationId: memberships.organizationId })
    .from(memberships)
    .where(eq(memberships.userId, userId));
  for (const { organizationId } of joined) {
    await recordAudit(
      { services, scope: new OrgScope(db, organizationId), actor: { type: "user", id: userId }, request },
      { action, metadata },
    );
  }
}

/** What an account can use as a second factor. */
export async function factorsOf(db: Executor, userId: string) {
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

const hasFactor = (factors: Awaited<ReturnType<typeof factorsOf>>) => factors.totp !== null || factors.passkeys > 0;

export type PasswordStepResult =
  | { step: "done"; session: Awaited<ReturnType<typeof openStaffSession>> }
  | { step: PendingSignInStep; pending: { token: string; expiresAt: Date }; methods?: LoginResult["methods"] };

/**
 * After a right password: opens the session when the account has no second factor and the
 * organization does not require one; otherwise hands out a pending sign-in (the cookie's value,
 * stored hashed) for the second step, or for setting up a first factor.
 */
export async function afterPassword(
  services: Services,
  member: { userId: string; organizationId: string },
  request: RequestMeta,
): Promise<PasswordStepResult> {
  const { db } = services;
  const factors = await factorsOf(db, member.userId);
  let step: PendingSignInStep;
  if (hasFactor(factors)) step = "second_factor";
  else {
    const [org] = await db
      .select({ required: organizations.requireSecondFactor })
      .from(organizations)
      .where(eq(organizations.id, member.organizationId));
    if (!org?.required)
      return { step: "done", session: await openStaffSession(services, member, request, { method: "password" }) };
    step = "enroll";
  }
  const token = randomSecret(32);
  const expiresAt = new Date(Date.now() + (step === "enroll" ? ENROLL_SECONDS : SECOND_FACTOR_SECONDS) * 1000);
  await db.insert(staffPendingSignIns).values({
    tokenHash: sha256Hex(token),
    userId: member.userId,
    organizationId: member.organizationId,
    step,
    expiresAt,
  });
  const methods =
    step === "second_factor"
      ? { totp: factors.totp !== null, passkey: factors.passkeys > 0, recoveryCode: factors.recoveryCodesLeft > 0 }
      : undefined;
  return { step, pending: { token, expiresAt }, ...(methods && { methods }) };
}

export interface PendingSignIn {
  tokenHash: string;
  userId: string;
  organizationId: string;
  step: PendingSignInStep;
}

/** The pending sign-in a cookie names, at the step expected; 401 when missing, forged or expired. */
export async function readPendingSignIn(
  db: Executor,
  token: string | undefined,
  step: PendingSignInStep,
): Promise<PendingSignIn> {
  if (token && token.length <= 200) {
    const [row] = await db
      .select()
      .from(staffPendingSignIns)
      .where(and(eq(staffPendingSignIns.tokenHash, sha256Hex(token)), gt(staffPendingSignIns.expiresAt, new Date())));
    if (row && row.step === step) return row;
  }
  throw new AppError("unauthorized", "this sign-in has expired; enter your password again", {
    reason: "sign_in_expired",
  });
}

/** Ends the pending sign-in (once: a second use finds nothing) and opens the session. */
async function completeSignIn(services: Services, pending: PendingSignIn, request: RequestMeta) {
  const taken = await services.db
    .delete(staffPendingSignIns)
    .where(eq(staffPendingSignIns.tokenHash, pending.tokenHash))
    .returning({ userId: staffPendingSignIns.userId });
  if (taken.length !== 1)
    throw new AppError("unauthorized", "this sign-in has expired; enter your password again", {
      reason: "sign_in_expired",
    });
  return openStaffSession(services, { userId: pending.userId, organizationId: pending.organizationId }, request, {
    method: "password_and_second_factor",
  });
}

/** Counts one second-step attempt for the account and the address (429 past the limits). */
async function countFactorAttempt(services: Services, userId: string | null, request: RequestMeta) {
  await consumeRateLimit(services.db, {
    key: `factor:ip:${request.ip ?? "unknown"}`,
    limit: FACTOR_LIMIT_PER_IP,
    windowSeconds: FACTOR_WINDOW_SECONDS,
  });
  if (userId)
    await consumeRateLimit(services.db, {
      key: `factor:user:${userId}`,
      limit: FACTOR_LIMIT_PER_ACCOUNT,
      windowSeconds: FACTOR_WINDOW_SECONDS,
    });
}

async function refuseFactor(services: Services, userId: string, request: RequestMeta, method: string): Promise<never> {
  services.log.warn(
    { event: "staff.second_factor_failed", requestId: request.requestId, ip: request.ip, method },
    "second factor refused",
  );
  await auditAccount(services, services.db, userId, request, "staff.second_factor_failed", { method });
  throw unauthorized(method === "passkey" ? "this passkey could not be confirmed" : "this code is not valid");
}

/** The second step with a code: the authenticator app's, or a recovery code (each works once). */
export async function verifySecondFactorCode(
  services: Services,
  token: string | undefined,
  input: { method: "totp" | "recovery"; code: string },
  request: RequestMeta,
) {
  const pending = await readPendingSignIn(services.db, token, "second_factor");
  await countFactorAttempt(services, pending.userId, request);
  if (input.method === "totp") {
    if (!(await useTotpCode(services, services.db, pending.userId, input.code)))
      await refuseFactor(services, pending.userId, request, "totp");
  } else {
    const used = await useRecoveryCode(services.db, pending.userId, input.code);
    if (used === null) await refuseFactor(services, pending.userId, request, "recovery");
    await auditAccount(services, services.db, pending.userId, request, "staff.recovery_code_used", { remaining: used });
  }
  await resetRateLimit(services.db, `factor:user:${pending.userId}`);
  return completeSignIn(services, pending, request);
}

/** The second step with a passkey of the account that gave its password. */
export async function verifySecondFactorPasskey(
  services: Services,
  token: string | undefined,
  response: Record<string, unknown>,
  request: RequestMeta,
) {
  const pending = await readPendingSignIn(services.db, token, "second_factor");
  await countFactorAttempt(services, pending.userId, request);
  const passkey = await authenticatePasskey(services, response, pending.userId);
  if (!passkey) await refuseFactor(services, pending.userId, request, "passkey");
  await resetRateLimit(services.db, `factor:user:${pending.userId}`);
  return completeSignIn(services, pending, request);
}

/**
 * Passwordless: a discoverable, user-verified passkey is both factors at once (something the
 * member has, unlocked by something they know or are), so it opens the session directly, also
 * where the organization requires a second factor. The session is for the account's first
 * organization, as after a password.
 */
export async function signInWithPasskey(services: Services, response: Record<string, unknown>, request: RequestMeta) {
  await countFactorAttempt(services, null, request);
  const passkey = await authenticatePasskey(services, response, null);
  if (!passkey) {
    services.log.warn(
      { event: "staff.passkey_sign_in_failed", requestId: request.requestId, ip: request.ip },
      "passkey sign-in failed",
    );
    throw unauthorized("this passkey could not be confirmed");
  }
  const [membership] = await services.db
    .select()
    .from(memberships)
    .where(and(eq(memberships.userId, passkey.userId), isNull(memberships.deactivatedAt)))
    .orderBy(asc(memberships.createdAt))
    .limit(1);
  if (!membership) throw unauthorized("this account belongs to no active organization");
  return openStaffSession(services, { userId: passkey.userId, organizationId: membership.organizationId }, request, {
    method: "passkey",
  });
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
async function replaceRecoveryCodes(tx: Executor, userId: string): Promise<string[]> {
  const codes = new Set<string>();
  while (codes.size < RECOVERY_CODE_COUNT) codes.add(newRecoveryCode());
  await tx.delete(staffRecoveryCodes).where(eq(staffRecoveryCodes.userId, userId));
  await tx.insert(staffRecoveryCodes).values([...codes].map((code) => ({ userId, codeHash: hashRecoveryCode(code) })));
  return [...codes];
}

/** Marks a recovery code used; the number left, or null when the code is not an unused one of the account. */
async function useRecoveryCode(db: Executor, userId: string, code: string): Promise<number | null> {
  if (normalizeRecoveryCode(code).length !== 10) return null;
  const used = await db
    .update(staffRecoveryCodes)
    .set({ usedAt: new Date() })
    .where(
      and(
        eq(staffRecoveryCodes.userId, userId),
        eq(staffRecoveryCodes.codeHash, hashRecoveryCode(code)),
        isNull(staffRecoveryCodes.usedAt),
      ),
    )
    .returning({ id: staffRecoveryCodes.id });
  if (used.length !== 1) return null;
  return (await factorsOf(db, userId)).recoveryCodesLeft;
}

/** The first factor brings recovery codes; later ones keep the codes the member already has. */
async function recoveryCodesForNewFactor(tx: Executor, userId: string): Promise<string[] | null> {
  const [existing] = await tx
    .select({ n: count() })
    .from(staffRecoveryCodes)
    .where(and(eq(staffRecoveryCodes.userId, userId), isNull(staffRecoveryCodes.usedAt)));
  return Number(existing?.n ?? 0) > 0 ? null : replaceRecoveryCodes(tx, userId);
}

// ---- The member's own factors ----

export async function getAccountSecurity(
  services: Services,
  member: { userId: string; organizationId: string },
): Promise<AccountSecurity> {
  const { db } = services;
  const factors = await factorsOf(db, member.userId);
  const passkeys = await db
    .select()
    .from(staffPasskeys)
    .where(eq(staffPasskeys.userId, member.userId))
    .orderBy(desc(staffPasskeys.createdAt));
  const [org] = await db
    .select({ required: organizations.requireSecondFactor })
    .from(organizations)
    .where(eq(organizations.id, member.organizationId));
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
    required: org?.required ?? false,
  };
}

/** Confirms the authenticator app with its first code; the first factor also brings recovery codes. */
export async function addTotpFactor(services: Services, userId: string, code: string, request: RequestMeta) {
  return services.db.transaction(async (tx) => {
    await confirmTotp(services, tx, userId, code);
    const recoveryCodes = await recoveryCodesForNewFactor(tx, userId);
    await auditAccount(services, tx, userId, request, "staff.factor_added", { factor: "totp" });
    return { recoveryCodes };
  });
}

export async function addPasskeyFactor(
  services: Services,
  userId: string,
  input: { name: string; response: Record<string, unknown> },
  request: RequestMeta,
) {
  const verified = await verifyPasskeyRegistration(services, userId, input);
  return services.db.transaction(async (tx) => {
    const passkey = await storePasskey(tx, verified);
    const recoveryCodes = await recoveryCodesForNewFactor(tx, userId);
    await auditAccount(services, tx, userId, request, "staff.factor_added", {
      factor: "passkey",
      passkeyId: passkey.id,
      name: passkey.name,
    });
    return { recoveryCodes };
  });
}

/** Where a second factor is required, the last one cannot be removed (the member would be led to set one up again). */
async function assertNotLastRequiredFactor(
  tx: Executor,
  member: { userId: string; organizationId: string },
  removing: "totp" | "passkey",
) {
  const factors = await factorsOf(tx, member.userId);
  const left =
    (removing === "totp" ? 0 : factors.totp ? 1 : 0) +
    (removing === "passkey" ? factors.passkeys - 1 : factors.passkeys);
  if (left > 0) return;
  const [org] = await tx
    .select({ required: organizations.requireSecondFactor })
    .from(organizations)
    .where(eq(organizations.id, member.organizationId));
  if (org?.required)
    throw new AppError("conflict", "your organization requires a second factor: add another before removing this one", {
      reason: "second_factor_required",
    });
}

/** Recovery codes stand in for a factor: with the last factor gone they go too, and the next factor brings new ones. */
async function dropRecoveryCodesWithoutFactor(tx: Executor, userId: string) {
  if (!hasFactor(await factorsOf(tx, userId)))
    await tx.delete(staffRecoveryCodes).where(eq(staffRecoveryCodes.userId, userId));
}

export async function removeTotpFactor(
  services: Services,
  member: { userId: string; organizationId: string },
  request: RequestMeta,
) {
  await services.db.transaction(async (tx) => {
    const [row] = await tx
      .select()
      .from(staffTotp)
      .where(and(eq(staffTotp.userId, member.userId), isNotNull(staffTotp.confirmedAt)));
    if (!row) throw notFound("authenticator app");
    await assertNotLastRequiredFactor(tx, member, "totp");
    await tx.delete(staffTotp).where(eq(staffTotp.userId, member.userId));
    await dropRecoveryCodesWithoutFactor(tx, member.userId);
    await auditAccount(services, tx, member.userId, request, "staff.factor_removed", { factor: "totp" });
  });
}

export async function removePasskeyFactor(
  services: Services,
  member: { userId: string; organizationId: string },
  passkeyId: string,
  request: RequestMeta,
) {
  await services.db.transaction(async (tx) => {
    const [row] = await tx
      .select()
      .from(staffPasskeys)
      .where(and(eq(staffPasskeys.id, passkeyId), eq(staffPasskeys.userId, member.userId)));
    if (!row) throw notFound("passkey");
    await assertNotLastRequiredFactor(tx, member, "passkey");
    await tx.delete(staffPasskeys).where(eq(staffPasskeys.id, passkeyId));
    await dropRecoveryCodesWithoutFactor(tx, member.userId);
    await auditAccount(services, tx, member.userId, request, "staff.factor_removed", {
      factor: "passkey",
      passkeyId,
      name: row.name,
    });
  });
}

export async function renamePasskey(services: Services, userId: string, input: { id: string; name: string }) {
  const renamed = await services.db
    .update(staffPasskeys)
    .set({ name: input.name })
    .where(and(eq(staffPasskeys.id, input.id), eq(staffPasskeys.userId, userId)))
    .returning({ id: staffPasskeys.id });
  if (renamed.length !== 1) throw notFound("passkey");
}

/** New recovery codes (the old ones stop working); only for an account with a factor. */
export async function regenerateRecoveryCodes(services: Services, userId: string, request: RequestMeta) {
  return services.db.transaction(async (tx) => {
    if (!hasFactor(await factorsOf(tx, userId)))
      throw new AppError("conflict", "set up an authenticator app or a passkey first", { reason: "no_second_factor" });
    const recoveryCodes = await replaceRecoveryCodes(tx, userId);
    await auditAccount(services, tx, userId, request, "staff.recovery_codes_regenerated");
    return { recoveryCodes };
  });
}

/** Setting up a first factor during a pending `enroll` sign-in opens the session once it is confirmed. */
export async function enrollAndSignIn<R extends { recoveryCodes: string[] | null }>(
  services: Services,
  pending: PendingSignIn,
  request: RequestMeta,
  add: () => Promise<R>,
) {
  const added = await add();
  const session = await completeSignIn(services, pending, request);
  return { ...added, session };
}

/** Drops pending sign-ins and WebAuthn challenges past their time. */
export async function pruneSignInLeftovers(db: Executor): Promise<void> {
  await db.delete(staffPendingSignIns).where(lt(staffPendingSignIns.expiresAt, new Date()));
  await pruneWebauthnChallenges(db);
}
