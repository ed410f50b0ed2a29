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
import {
  and,
  asc,
  eq,
  gt,
  isNull,
  lt,
  staffPasskeys,
  users,
  webauthnChallenges,
  type Executor,
  type WebauthnChallengePurpose,
} from "@clinsign/db";
import type { Config } from "../../env";
import type { Services } from "../context";
import { sha256Hex } from "../crypto";
import { AppError } from "../errors";

/** How long a WebAuthn challenge may be answered: enough for a person to touch a key or unlock a phone. */
export const WEBAUTHN_CHALLENGE_SECONDS = 5 * 60;

/**
 * The relying party is the staff console: passkeys are bound to PUBLIC_WEB_URL's host name (rpID)
 * and its origin, where the browser runs the ceremony.
 */
export function relyingParty(config: Config) {
  const url = new URL(config.publicWebUrl);
  return { rpID: url.hostname, origin: url.origin, rpName: "ClinSign" };
}

async function storeChallenge(
  db: Executor,
  challenge: string,
  purpose: WebauthnChallengePurpose,
  userId: string | null,
) {
  await db.insert(webauthnChallenges).values({
    challengeHash: sha256Hex(challenge),
    purpose,
    userId,
    expiresAt: new Date(Date.now() + WEBAUTHN_CHALLENGE_SECONDS * 1000),
  });
}

/**
 * Takes a challenge out of the store: true only once, only before it expires, only for the
 * purpose and account it was handed out for (null: a passwordless sign-in).
 */
async function consumeChallenge(
  db: Executor,
  challenge: string,
  purpose: WebauthnChallengePurpose,
  userId: string | null,
): Promise<boolean> {
  const taken = await db
    .delete(webauthnChallenges)
    .where(
      and(
        eq(webauthnChallenges.challengeHash, sha256Hex(challenge)),
        eq(webauthnChallenges.purpose, purpose),
        userId === null ? isNull(webauthnChallenges.userId) : eq(webauthnChallenges.userId, userId),
        gt(webauthnChallenges.expiresAt, new Date()),
      ),
    )
    .returning({ hash: webauthnChallenges.challengeHash });
  return taken.length === 1;
}

/** Drops challenges nobody answered in time. */
export async function pruneWebauthnChallenges(db: Executor): Promise<void> {
  await db.delete(webauthnChallenges).where(lt(webauthnChallenges.expiresAt, new Date()));
}

/**
 * The challenge an answer claims to answer, taken out of the store before anything else is checked,
 * so every answer uses its challenge up, whether it then passes or not. Null when it was not ours.
 */
async function takeAnsweredChallenge(
  db: Executor,
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
  return typeof challenge === "string" && (await consumeChallenge(db, challenge, purpose, userId)) ? challenge : null;
}

/** A user id as WebAuthn's user handle: the UUID's 16 bytes. */
const userHandle = (userId: string) => Uint8Array.from(Buffer.from(userId.replace(/-/g, ""), "hex"));

/**
 * Options for registering a new passkey. Discoverable (resident) and user-verified, so the same
 * passkey can later sign in without the password; the account's existing passkeys are excluded.
 */
export async function passkeyRegistrationOptions(
  services: Services,
  userId: string,
): Promise<PublicKeyCredentialCreationOptionsJSON> {
  const { db, config } = services;
  const [user] = await db.select({ email: users.email, name: users.name }).from(users).where(eq(users.id, userId));
  if (!user) throw new AppError("unauthorized", "please sign in");
  const existing = await db
    .select({ credentialId: staffPasskeys.credentialId, transports: staffPasskeys.transports })
    .from(staffPasskeys)
    .where(eq(staffPasskeys.userId, userId));
  const { rpID, rpName } = relyingParty(config);
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
  await storeChallenge(db, options.challenge, "register", userId);
  return options;
}

/**
 * Checks a registration answer: its challenge (used up first, whatever follows), origin, rpID, user
 * verification and attestation. Returns the credential's row values, for the caller to store.
 */
export async function verifyPasskeyRegistration(
  services: Services,
  userId: string,
  input: { name: string; response: Record<string, unknown> },
) {
  const { rpID, origin } = relyingParty(services.config);
  const challenge = await takeAnsweredChallenge(services.db, input.response, "register", userId);
  if (!challenge)
    throw new AppError("invalid_request", "this passkey request has expired or was already answered; try again", {
      field: "response",
      reason: "challenge_expired",
    });
  let verified;
  try {
    verified = await verifyRegistrationResponse({
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

/** Stores a verified credential, in the caller's transaction; a credential is registered once. */
export async function storePasskey(
  tx: Executor,
  values: Awaited<ReturnType<typeof verifyPasskeyRegistration>>,
): Promise<{ id: string; name: string }> {
  const [taken] = await tx
    .select({ id: staffPasskeys.id })
    .from(staffPasskeys)
    .where(eq(staffPasskeys.credentialId, values.credentialId));
  if (taken) throw new AppError("conflict", "this passkey is already registered", { reason: "passkey_exists" });
  const [row] = await tx
    .insert(staffPasskeys)
    .values(values)
    .returning({ id: staffPasskeys.id, name: staffPasskeys.name });
  return row!;
}

/**
 * Options for signing in with a passkey: for one account after its password (`userId`), or
 * passwordless (`null`: no allow-list, the authenticator offers its discoverable passkeys).
 */
export async function passkeyAuthenticationOptions(
  services: Services,
  userId: string | null,
): Promise<PublicKeyCredentialRequestOptionsJSON> {
  const { db, config } = services;
  const allow = userId
    ? await db
        .select({ credentialId: staffPasskeys.credentialId, transports: staffPasskeys.transports })
        .from(staffPasskeys)
        .where(eq(staffPasskeys.userId, userId))
        .orderBy(asc(staffPasskeys.createdAt))
    : [];
  const options = await generateAuthenticationOptions({
    rpID: relyingParty(config).rpID,
    timeout: WEBAUTHN_CHALLENGE_SECONDS * 1000,
    userVerification: "required",
    allowCredentials: allow.map((c) => ({ id: c.credentialId, transports: c.transports as AuthenticatorTransport[] })),
  });
  await storeChallenge(db, options.challenge, "authenticate", userId);
  return options;
}

/**
 * Checks a passkey assertion: the credential must be known (and the account's, when `userId` is
 * given), the challenge handed out for this sign-in and not used, the signature valid with user
 * verification, the counter not gone back. Returns the account; null when any check fails (the
 * caller counts the failure).
 */
export async function authenticatePasskey(
  services: Services,
  response: Record<string, unknown>,
  userId: string | null,
): Promise<{ userId: string; passkeyId: string } | null> {
  const { db, config } = services;
  const answer = response as unknown as AuthenticationResponseJSON;
  const challenge = await takeAnsweredChallenge(db, answer, "authenticate", userId);
  if (!challenge) return null;
  const [passkey] = await db
    .select()
    .from(staffPasskeys)
    .where(eq(staffPasskeys.credentialId, String(answer.id)));
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
    await db
      .update(staffPasskeys)
      .set({
        counter: result.authenticationInfo.newCounter,
        lastUsedAt: new Date(),
        backedUp: result.authenticationInfo.credentialBackedUp,
      })
      .where(eq(staffPasskeys.id, passkey.id));
    return { userId: passkey.userId, passkeyId: passkey.id };
  } catch (error) {
    services.log.info(
      { event: "staff.passkey_refused", reason: (error as Error).message },
      "passkey assertion refused",
    );
    return null;
  }
}
