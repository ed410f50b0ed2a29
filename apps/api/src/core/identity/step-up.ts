import type { StepUpInput, StepUpMethods } from "@clinsign/contracts";
import type { PublicKeyCredentialRequestOptionsJSON } from "@simplewebauthn/server";
import { verifyPassword } from "../crypto";
import { AppError } from "../errors";
import { auditAccount } from "./notices";
import { authenticatePasskey, passkeyAuthenticationOptions } from "./passkeys";
import type { PublicContext } from "./public-context";
import { useRecoveryCode } from "./recovery-codes";
import { accountById } from "./store/accounts";
import { factorsOf, hasFactor } from "./store/factors";
import { clearSignInAttempts, countSignInAttempt } from "./store/limits";
import { useTotpCode } from "./totp";

/**
 * Step-up: a change to how an account signs in (a factor or passkey added or removed, new
 * recovery codes, an organization's single sign-on) asks, in that very call, for something only
 * the account's holder has. A stolen staff session alone cannot make itself permanent. The
 * strongest the account has decides: with a second factor, a factor (code, recovery code,
 * passkey); otherwise its password. An account with neither (its organization's provider made it)
 * has nothing to ask again: its staff session must then be fresh.
 */

/** How old a staff session may be to stand in for a step-up of an account without credentials. */
export const FRESH_SIGN_IN_SECONDS = 10 * 60;
const STEP_UP_LIMIT_PER_ACCOUNT = 10;
const STEP_UP_WINDOW_SECONDS = 15 * 60;

/** What the account can confirm a change with, and its password's hash for the `password` method. */
async function stepUpOf(pub: PublicContext, userId: string) {
  const passwordHash = (await accountById(pub.identity, userId))?.passwordHash ?? null;
  const factors = await factorsOf(pub.identity, userId);
  const withFactor = hasFactor(factors);
  const methods: StepUpMethods = {
    password: passwordHash !== null && !withFactor,
    totp: factors.totp !== null,
    passkey: factors.passkeys > 0,
    recoveryCode: withFactor && factors.recoveryCodesLeft > 0,
    freshSignIn: !withFactor && passwordHash === null,
  };
  return { methods, passwordHash };
}

/** What the account can confirm a change with. */
export async function stepUpMethodsOf(pub: PublicContext, userId: string): Promise<StepUpMethods> {
  return (await stepUpOf(pub, userId)).methods;
}

/** Passkey options for a step-up: the account's own passkeys, a challenge only a step-up may answer. */
export function stepUpPasskeyOptions(
  pub: PublicContext,
  userId: string,
): Promise<PublicKeyCredentialRequestOptionsJSON> {
  return passkeyAuthenticationOptions(pub, userId, "step_up");
}

const refused = (reason: "step_up_failed" | "step_up_factor_required" | "step_up_stale", message: string) =>
  new AppError("invalid_request", message, { field: "stepUp", reason });

/**
 * Confirms a step-up for the account of a staff session opened at `signedInAt`, or throws 400
 * (field `stepUp`) saying why. Attempts are counted per account; a failure is audited.
 */
export async function confirmStepUp(
  pub: PublicContext,
  who: { userId: string; signedInAt: Date },
  stepUp: StepUpInput,
): Promise<void> {
  await countSignInAttempt(pub.identity, {
    key: `step-up:user:${who.userId}`,
    limit: STEP_UP_LIMIT_PER_ACCOUNT,
    windowSeconds: STEP_UP_WINDOW_SECONDS,
  });
  const { methods, passwordHash } = await stepUpOf(pub, who.userId);
  if (await answers(pub, who, stepUp, methods, passwordHash)) {
    await clearSignInAttempts(pub.identity, `step-up:user:${who.userId}`);
    return;
  }
  await auditAccount(pub, who.userId, "staff.step_up_failed", { method: stepUp.method });
  if (stepUp.method === "password" && (methods.totp || methods.passkey))
    throw refused("step_up_factor_required", "confirm with your second factor: this account has one");
  if (stepUp.method === "fresh_sign_in" && methods.freshSignIn)
    throw refused("step_up_stale", "sign out and in again to confirm this change");
  throw refused("step_up_failed", "this could not be confirmed: check the password or code");
}

async function answers(
  pub: PublicContext,
  who: { userId: string; signedInAt: Date },
  stepUp: StepUpInput,
  methods: StepUpMethods,
  passwordHash: string | null,
): Promise<boolean> {
  switch (stepUp.method) {
    case "password":
      return methods.password && passwordHash !== null && verifyPassword(stepUp.password, passwordHash);
    case "totp":
      return methods.totp && useTotpCode(pub, who.userId, stepUp.code);
    case "recovery": {
      if (!methods.recoveryCode) return false;
      const left = await useRecoveryCode(pub.identity, who.userId, stepUp.code);
      if (left !== null) await auditAccount(pub, who.userId, "staff.recovery_code_used", { remaining: left });
      return left !== null;
    }
    case "passkey":
      return methods.passkey && (await authenticatePasskey(pub, stepUp.response, who.userId, "step_up")) !== null;
    case "fresh_sign_in":
      return methods.freshSignIn && Date.now() - who.signedInAt.getTime() <= FRESH_SIGN_IN_SECONDS * 1000;
  }
}
