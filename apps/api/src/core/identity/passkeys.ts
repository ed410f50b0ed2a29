import {
  generateAuthenticationOptions,
  generateRegistrationOptions,
  verifyAuthenticationResponse,
  verifyRegistrationResponse,
  type AuthenticationResponseJSON,
  type AuthenticatorTransport,
  type PublicKeyCredentialCreationOptionsJSON,
  type PublicKeyCredentialRequestOptionsJSON,
  type RegistrationResponseJSON,
} from "@simplewebauthn/server";
import { decodeClientDataJSON } from "@simplewebauthn/server/helpers";
import type { WebauthnChallengePurpose } from "@clinsign/db";
import type { Config } from "../../env";
import type { Services } from "../context";
import { accountById } from "./store/accounts";
import type { IdentityStore } from "./store/identity-store";
import {
  consumeWebauthnChallenge,
  insertPasskey,
  passkeyByCredentialId,
  passkeysOf,
  recordPasskeyUse,
  storeWebauthnChallenge,
} from "./store/factors";
import { sha256Hex } from "../crypto";
import { AppError } from "../errors";

/** How long a WebAuthn challenge may be answered: enough for a person to touch a key or unlock a phone. */
export const WEBAUTHN_CHALLENGE_SECONDS = 5 * 60;

/**
 * The relying party is the staff console: passkeys are bound to PUBLIC_WEB_URL's host name (rpID)
 * and its origin, where the browser runs the ceremony.
 */
export function relyingParty(config: Pick<Config, "publicWebUrl">) {
  const url = new URL(config.publicWebUrl);
  return { rpID: url.hostname, origin: url.origin, rpName: "ClinSign" };
}

/** What a WebAuthn ceremony needs: the relying party's configuration, the log, and the identity store. */
export interface PasskeyContext {
  services: Pick<Services, "config" | "log">;
  identity: IdentityStore;
}

const storeChallenge = (
  via: IdentityStore,
  challenge: string,
  purpose: WebauthnChallengePurpose,
  userId: string | null,
) =>
  storeWebauthnChallenge(
    via,
    sha256Hex(challenge),
    purpose,
    userId,
    new Date(Date.now() + WEBAUTHN_CHALLENGE_SECONDS * 1000),
  );

/**
 * The challenge an answer claims to answer, taken out of the store before anything else is checked,
 * so every answer uses its challenge up, whether it then passes or not. Null when it was not ours.
 */
async function takeAnsweredChallenge(
  via: IdentityStore,
  response: { response?: unknown },
  purpose: WebauthnChallengePurpose,
  userId: string | null,
): Promise<string | null> {
  const clientDataJSON = (response.response as { clientDataJSON?: unknown } | undefined)?.clientDataJSON;
  if (typeof clientDataJSON !== "string") return null;
  let challenge: string;
  try {
    challenge = decodeClientDataJSON(clientDataJSON).challenge;
  } catch {
    return null;
  }
  return typeof challenge === "string" && (await consumeWebauthnChallenge(via, sha256Hex(challenge), purpose, userId))
    ? challenge
    : null;
}

/** A user id as WebAuthn's user handle: the UUID's 16 bytes. */
const userHandle = (userId: string) => Uint8Array.from(Buffer.from(userId.replace(/-/g, ""), "hex"));

/**
 * Options for registering a new passkey. Discoverable (resident) and user-verified, so the same
 * passkey can later sign in without the password; the account's existing passkeys are excluded.
 */
export async function passkeyRegistrationOptions(
  ctx: PasskeyContext,
  userId: string,
): Promise<PublicKeyCredentialCreationOptionsJSON> {
  const user = await accountById(ctx.identity, userId);
  if (!user) throw new AppError("unauthorized", "please sign in");
  const existing = await passkeysOf(ctx.identity, userId, "oldest");
  const { rpID, rpName } = relyingParty(ctx.services.config);
  const options = await generateRegistrationOptions({
    rpName,
    rpID,
    userName: user.email,
    userDisplayName: user.name ?? user.email,
    userID: userHandle(userId),
    attestationType: "none",
    timeout: WEBAUTHN_CHALLENGE_SECONDS * 1000,
    excludeCredentials: existing.map((c) => ({
      id: c.credentialId,
      transports: c.transports as AuthenticatorTransport[],
    })),
    authenticatorSelection: { residentKey: "required", userVerification: "required" },
  });
  await storeChallenge(ctx.identity, options.challenge, "register", userId);
  return options;
}

/**
 * Checks a registration answer: its challenge (used up first, whatever follows), origin, rpID, user
 * verification and attestation. Returns the credential's row values, for the caller to store.
 */
export async function verifyPasskeyRegistration(
  ctx: PasskeyContext,
  userId: string,
  input: { name: string; response: Record<string, unknown> },
) {
  const { rpID, origin } = relyingParty(ctx.services.config);
  const challenge = await takeAnsweredChallenge(ctx.identity, input.response, "register", userId);
  if (!challenge)
    throw new AppError("invalid_request", "this passkey request has expired or was already answered; try again", {
      field: "response",
      reason: "challenge_expired",
    });
  let verified;
  try {
    verified = await verifyRegistrationResponse({
      // The contract checks the JSON's shape loosely (the library checks every field); its type is not the library's.
      response: input.response as unknown as RegistrationResponseJSON,
      expectedChallenge: challenge,
      expectedOrigin: origin,
      expectedRPID: rpID,
      requireUserVerification: true,
    });
  } catch (error) {
    throw new AppError("invalid_request", `the passkey could not be registered: ${(error as Error).message}`, {
      field: "response",
    });
  }
  if (!verified.verified)
    throw new AppError("invalid_request", "the passkey could not be registered", { field: "response" });
  const { credential, credentialDeviceType, credentialBackedUp } = verified.registrationInfo;
  return {
    userId,
    name: input.name,
    credentialId: credential.id,
    publicKey: Buffer.from(credential.publicKey).toString("base64url"),
    counter: credential.counter,
    transports: credential.transports ?? [],
    deviceType: credentialDeviceType,
    backedUp: credentialBackedUp,
  };
}

/** Stores a verified credential, in the store's transaction; a credential is registered once. */
export function storePasskey(
  store: IdentityStore,
  values: Awaited<ReturnType<typeof verifyPasskeyRegistration>>,
): Promise<{ id: string; name: string }> {
  return insertPasskey(store, values);
}

/**
 * Options for answering with a passkey: for one account (`userId`: the second step after its
 * password, or a step-up), or passwordless (`null`: no allow-list, the authenticator offers its
 * discoverable passkeys).
 */
export async function passkeyAuthenticationOptions(
  ctx: PasskeyContext,
  userId: string | null,
  purpose: "authenticate" | "step_up" = "authenticate",
): Promise<PublicKeyCredentialRequestOptionsJSON> {
  const { config } = ctx.services;
  const allow = userId ? await passkeysOf(ctx.identity, userId, "oldest") : [];
  const options = await generateAuthenticationOptions({
    rpID: relyingParty(config).rpID,
    timeout: WEBAUTHN_CHALLENGE_SECONDS * 1000,
    userVerification: "required",
    allowCredentials: allow.map((c) => ({ id: c.credentialId, transports: c.transports as AuthenticatorTransport[] })),
  });
  await storeChallenge(ctx.identity, options.challenge, purpose, userId);
  return options;
}

/**
 * Checks a passkey assertion: the credential must be known (and the account's, when `userId` is
 * given), the challenge handed out for this sign-in and not used, the signature valid with user
 * verification, the counter not gone back. Returns the account; null when any check fails (the
 * caller counts the failure).
 */
export async function authenticatePasskey(
  ctx: PasskeyContext,
  response: Record<string, unknown>,
  userId: string | null,
  purpose: "authenticate" | "step_up" = "authenticate",
): Promise<{ userId: string; passkeyId: string } | null> {
  const { config } = ctx.services;
  // As above: shape checked loosely by the contract, each field by verifyAuthenticationResponse.
  const answer = response as unknown as AuthenticationResponseJSON;
  const challenge = await takeAnsweredChallenge(ctx.identity, answer, purpose, userId);
  if (!challenge) return null;
  const passkey = await passkeyByCredentialId(ctx.identity, String(answer.id));
  if (!passkey || (userId !== null && passkey.userId !== userId)) return null;
  // A discoverable passkey names its account: it must be the one the credential was registered to.
  const handle = typeof answer.response?.userHandle === "string" ? answer.response.userHandle : null;
  if (handle !== null && handle !== Buffer.from(userHandle(passkey.userId)).toString("base64url")) return null;
  const { rpID, origin } = relyingParty(config);
  try {
    const result = await verifyAuthenticationResponse({
      response: answer,
      expectedChallenge: challenge,
      expectedOrigin: origin,
      expectedRPID: rpID,
      requireUserVerification: true,
      credential: {
        id: passkey.credentialId,
        publicKey: Uint8Array.from(Buffer.from(passkey.publicKey, "base64url")),
        counter: passkey.counter,
        transports: passkey.transports as AuthenticatorTransport[],
      },
    });
    if (!result.verified) return null;
    await recordPasskeyUse(ctx.identity, passkey.id, {
      counter: result.authenticationInfo.newCounter,
      backedUp: result.authenticationInfo.credentialBackedUp,
    });
    return { userId: passkey.userId, passkeyId: passkey.id };
  } catch (error) {
    ctx.services.log.info(
      { event: "staff.passkey_refused", reason: (error as Error).message },
      "passkey assertion refused",
    );
    return null;
  }
}
