import type {
  PublicKeyCredentialCreationOptionsJSON,
  PublicKeyCredentialRequestOptionsJSON,
} from "@simplewebauthn/server";
import { unauthorized } from "../errors";
import { accountContext, admitToOrganization, chooseOrganization, type Admission, type Proof } from "./admission";
import { enrollPasskey, enrollTotp } from "./account-security";
import { auditAccount } from "./notices";
import { authenticatePasskey, passkeyAuthenticationOptions, passkeyRegistrationOptions } from "./passkeys";
import type { PublicContext } from "./public-context";
import { useRecoveryCode } from "./recovery-codes";
import { clearSignInAttempts, countSignInAttempt } from "./store/limits";
import { markLinkProven } from "./store/sso";
import { readPendingSignIn, spendPendingSignIn, type PendingSignIn } from "./store/staff-sessions";
import { totpSetupFor, useTotpCode } from "./totp";
import { addressKey } from "../rate-limit";

/**
 * The sign-in steps after the password: the second factor, passwordless passkey sign-in, and
 * setting up a first factor where the organization requires one. Each ends in admission
 * (admission.ts), which applies the pending sign-in's organization's rules once more.
 */

/** Failed second steps, per account and per address, in 15 minutes. */
const FACTOR_LIMIT_PER_ACCOUNT = 10;
const FACTOR_LIMIT_PER_IP = 50;
const FACTOR_WINDOW_SECONDS = 15 * 60;
/** Passkey challenges handed out per address in 15 minutes (each is a stored row). */
const PASSKEY_OPTIONS_PER_IP = 60;

/** What a completed second step leads to: admission's answer, or (for a provider link) the link's confirmation. */
export type SecondStepResult = Admission | { step: "confirm_link" };

const TWO_FACTORS: Proof = { method: "password_and_second_factor", strength: "two_factors" };

/**
 * Ends the pending sign-in (once: a second use finds nothing). For a provider link, the account
 * has now proven itself: the link waits for the person's confirmation. Otherwise admission.
 */
async function completeSecondStep(pub: PublicContext, pending: PendingSignIn): Promise<SecondStepResult> {
  await spendPendingSignIn(pub.identity, pending);
  if (pending.ssoLinkHash) {
    if (!(await markLinkProven(pub.identity, pending.ssoLinkHash)))
      throw unauthorized("this sign-in has expired; start again from your organization's login page");
    return { step: "confirm_link" };
  }
  return admitToOrganization(pub, pending, TWO_FACTORS);
}

/** Counts one second-step attempt for the account and the address (429 past the limits). */
async function countFactorAttempt(pub: PublicContext, userId: string | null) {
  await countSignInAttempt(pub.identity, {
    key: `factor:ip:${addressKey(pub.request.ip)}`,
    limit: FACTOR_LIMIT_PER_IP,
    windowSeconds: FACTOR_WINDOW_SECONDS,
  });
  if (userId)
    await countSignInAttempt(pub.identity, {
      key: `factor:user:${userId}`,
      limit: FACTOR_LIMIT_PER_ACCOUNT,
      windowSeconds: FACTOR_WINDOW_SECONDS,
    });
}

async function refuseFactor(pub: PublicContext, userId: string, method: string): Promise<never> {
  pub.services.log.warn(
    { event: "staff.second_factor_failed", requestId: pub.request.requestId, ip: pub.request.ip, method },
    "second factor refused",
  );
  await auditAccount(pub, userId, "staff.second_factor_failed", { method });
  throw unauthorized(method === "passkey" ? "this passkey could not be confirmed" : "this code is not valid");
}

/** The second step with a code: the authenticator app's, or a recovery code (each works once). */
export async function verifySecondFactorCode(
  pub: PublicContext,
  input: { pendingSignIn: string | undefined; method: "totp" | "recovery"; code: string },
): Promise<SecondStepResult> {
  const pending = await readPendingSignIn(pub.identity, input.pendingSignIn, "second_factor");
  await countFactorAttempt(pub, pending.userId);
  if (input.method === "totp") {
    if (!(await useTotpCode(pub, pending.userId, input.code))) await refuseFactor(pub, pending.userId, "totp");
  } else {
    const used = await useRecoveryCode(pub.identity, pending.userId, input.code);
    if (used === null) await refuseFactor(pub, pending.userId, "recovery");
    await auditAccount(pub, pending.userId, "staff.recovery_code_used", { remaining: used });
  }
  await clearSignInAttempts(pub.identity, `factor:user:${pending.userId}`);
  return completeSecondStep(pub, pending);
}

/** The second step with a passkey of the account that gave its password. */
export async function verifySecondFactorPasskey(
  pub: PublicContext,
  input: { pendingSignIn: string | undefined; response: Record<string, unknown> },
): Promise<SecondStepResult> {
  const pending = await readPendingSignIn(pub.identity, input.pendingSignIn, "second_factor");
  await countFactorAttempt(pub, pending.userId);
  const passkey = await authenticatePasskey(pub, input.response, pending.userId);
  if (!passkey) await refuseFactor(pub, pending.userId, "passkey");
  await clearSignInAttempts(pub.identity, `factor:user:${pending.userId}`);
  return completeSecondStep(pub, pending);
}

/**
 * Passkey options: for the second step, the pending sign-in's account's passkeys; passwordless,
 * any discoverable passkey (a leftover pending cookie does not matter then). Each call stores a
 * challenge, so each is counted per address like the other steps before sign-in.
 */
export async function passkeySignInOptions(
  pub: PublicContext,
  input: { pendingSignIn: string | undefined; secondStep: boolean },
): Promise<PublicKeyCredentialRequestOptionsJSON> {
  await countSignInAttempt(pub.identity, {
    key: `passkey:options:ip:${addressKey(pub.request.ip)}`,
    limit: PASSKEY_OPTIONS_PER_IP,
    windowSeconds: FACTOR_WINDOW_SECONDS,
  });
  const pending = input.secondStep ? await readPendingSignIn(pub.identity, input.pendingSignIn, "second_factor") : null;
  return passkeyAuthenticationOptions(pub, pending?.userId ?? null);
}

/**
 * Passwordless: a discoverable, user-verified passkey is both factors at once (something the
 * member has, unlocked by something they know or are). It signs in to the organization the login
 * URL names, else the account's first one that admits a passkey; admission applies that
 * organization's rules (SSO-only refuses it) and the answer names the organization it opened.
 */
export async function signInWithPasskey(
  pub: PublicContext,
  input: { response: Record<string, unknown>; organizationId?: string },
): Promise<Admission> {
  await countFactorAttempt(pub, null);
  const passkey = await authenticatePasskey(pub, input.response, null);
  if (!passkey) {
    pub.services.log.warn(
      { event: "staff.passkey_sign_in_failed", requestId: pub.request.requestId, ip: pub.request.ip },
      "passkey sign-in failed",
    );
    throw unauthorized("this passkey could not be confirmed");
  }
  const proof: Proof = { method: "passkey", strength: "two_factors" };
  const organizationId = input.organizationId ?? (await chooseOrganization(pub, passkey.userId, proof));
  if (!organizationId) throw unauthorized("this account belongs to no active organization");
  return admitToOrganization(pub, { userId: passkey.userId, organizationId }, proof);
}

// ---- Setting up a first factor during a pending `enroll` sign-in ----

const pendingEnrollment = (pub: PublicContext, pendingSignIn: string | undefined) =>
  readPendingSignIn(pub.identity, pendingSignIn, "enroll");

/** The authenticator app's set-up, for the account of a pending `enroll` sign-in. */
export async function startTotpEnrollment(pub: PublicContext, input: { pendingSignIn: string | undefined }) {
  const pending = await pendingEnrollment(pub, input.pendingSignIn);
  return totpSetupFor(pub, pending.userId);
}

/**
 * Confirms the app during a pending `enroll` sign-in; the staff session opens once it is confirmed.
 * No step-up: the password was given in this very sign-in, minutes ago, and nothing else exists yet.
 */
export async function confirmTotpEnrollment(
  pub: PublicContext,
  input: { pendingSignIn: string | undefined; code: string },
) {
  const pending = await pendingEnrollment(pub, input.pendingSignIn);
  const { recoveryCodes } = await enrollTotp(accountContext(pub, pending), {
    userId: pending.userId,
    code: input.code,
  });
  return { recoveryCodes, admission: await completeSecondStep(pub, pending) };
}

/** Passkey registration options for the account of a pending `enroll` sign-in. */
export async function passkeyEnrollmentOptions(
  pub: PublicContext,
  input: { pendingSignIn: string | undefined },
): Promise<PublicKeyCredentialCreationOptionsJSON> {
  const pending = await pendingEnrollment(pub, input.pendingSignIn);
  return passkeyRegistrationOptions(pub, pending.userId);
}

/** Registers a passkey during a pending `enroll` sign-in; the staff session opens once it is stored. */
export async function registerPasskeyEnrollment(
  pub: PublicContext,
  input: { pendingSignIn: string | undefined; name: string; response: Record<string, unknown> },
) {
  const pending = await pendingEnrollment(pub, input.pendingSignIn);
  const { recoveryCodes } = await enrollPasskey(accountContext(pub, pending), {
    userId: pending.userId,
    name: input.name,
    response: input.response,
  });
  return { recoveryCodes, admission: await completeSecondStep(pub, pending) };
}
