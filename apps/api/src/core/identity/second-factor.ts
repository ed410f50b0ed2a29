import type { LoginResult } from "@clinsign/contracts";
import { staffPendingSignIns, type PendingSignInStep } from "@clinsign/db";
import type {
  PublicKeyCredentialCreationOptionsJSON,
  PublicKeyCredentialRequestOptionsJSON,
} from "@simplewebauthn/server";
import { systemContext, type OrgContext, type RequestMeta, type Services } from "../context";
import { randomSecret, sha256Hex } from "../crypto";
import { clearSignInAttempts, countSignInAttempt } from "./store/limits";
import { membershipsOf } from "./store/accounts";
import { factorsOf } from "./store/factors";
import { readPendingSignIn, spendPendingSignIn, type PendingSignIn } from "./store/staff-sessions";
import { unauthorized } from "../errors";
import { addPasskeyFactor, addTotpFactor, auditAccount, hasFactor } from "./account-security";
import { authenticatePasskey, passkeyAuthenticationOptions, passkeyRegistrationOptions } from "./passkeys";
import { useRecoveryCode } from "./recovery-codes";
import { openStaffSession } from "./password";
import { totpSetupFor, useTotpCode } from "./totp";

/**
 * The sign-in steps after the password: the second factor, passwordless passkey sign-in, and
 * setting up a first factor where the organization requires one. Pre-sign-in steps, shaped
 * `(services, request, input)`: no organization context exists until the pending sign-in is read.
 * The member's own factors are account-security.ts.
 */

/** The HTTP-only cookie that carries a pending sign-in between the password and the second step. */
export const PENDING_SIGN_IN_COOKIE = "clinsign_pending_sign_in";
/** Time to enter a code or touch a passkey after the password. */
export const SECOND_FACTOR_SECONDS = 5 * 60;
/** Time to set up a first factor (install an app, scan, type) when the organization requires one. */
export const ENROLL_SECONDS = 15 * 60;

/** Failed second steps, per account and per address, in 15 minutes. */
const FACTOR_LIMIT_PER_ACCOUNT = 10;
const FACTOR_LIMIT_PER_IP = 50;
const FACTOR_WINDOW_SECONDS = 15 * 60;

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
