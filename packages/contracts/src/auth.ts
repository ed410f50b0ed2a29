import { z } from "zod";

/**
 * Staff roles, strongest first. What each may call is the one table in `permissions.ts`: owners
 * and admins run the organization (tokens, settings, users), staff do the daily work, viewers
 * only read (lists, details, downloads).
 */
export const roles = ["owner", "admin", "staff", "viewer"] as const;
export const role = z.enum(roles);
export type Role = z.infer<typeof role>;

export const loginInput = z.object({
  email: z
    .string()
    .trim()
    .toLowerCase()
    .max(320)
    .pipe(z.email({ message: "enter a valid e-mail address" })),
  password: z.string().min(1, { message: "enter your password" }).max(1024),
  /** The organization's login URL names the organization to sign in to; otherwise the account's first one that admits it. */
  organizationId: z.uuid().optional(),
});

export const me = z.object({
  user: z.object({ id: z.uuid(), email: z.string(), name: z.string().nullable() }),
  /**
   * `timeZone`: the organization's (Settings, IANA name). The console shows every date and time on
   * this clock, lists and detail pages alike, and says which (issue 31).
   */
  organization: z.object({ id: z.uuid(), name: z.string(), timeZone: z.string() }),
  role,
  /** True while completion seals with a generated development certificate. */
  devCertificate: z.boolean(),
  /**
   * The PAdES level new seals aim for: `B-B` without a time-stamping authority (TSA_URL unset:
   * the signing time is only the service's clock), else `B-LTA` (docs/signatures.md).
   */
  sealLevel: z.enum(["B-B", "B-LTA"]),
});
export type Me = z.infer<typeof me>;

/**
 * What a sign-in step leads to: `done` (the session is open), `second_factor` (enter a code or use
 * a passkey), `enroll` (the organization requires a second factor and the account has none yet:
 * set one up to continue), `confirm_link` (the account proved itself for connecting an
 * organization's single sign-on: the person confirms, `auth.ssoLinkConfirm`).
 */
export const signInStep = z.enum(["done", "second_factor", "enroll", "confirm_link"]);
export type SignInStep = z.infer<typeof signInStep>;
export const loginResult = z.object({
  ok: z.literal(true),
  step: signInStep,
  /** The factors the second step may use (present for `second_factor`). */
  methods: z.object({ totp: z.boolean(), passkey: z.boolean(), recoveryCode: z.boolean() }).optional(),
  /** The organization the staff session opened in (present for `done`). */
  organization: z.object({ id: z.uuid(), name: z.string() }).optional(),
});
export type LoginResult = z.infer<typeof loginResult>;

export const secondFactorCodeInput = z.object({
  method: z.enum(["totp", "recovery"]),
  code: z.string().trim().min(1, { message: "enter the code" }).max(64),
});

export const totpCodeInput = z.object({
  code: z.string().trim().min(1, { message: "enter the code" }).max(16),
});

/** A WebAuthn answer as `@simplewebauthn/browser` hands it over; its contents are checked by the server's verification. */
const webauthnCredentialJson = z
  .object({
    id: z.string().min(1).max(1024),
    rawId: z.string().min(1).max(1024),
    type: z.literal("public-key"),
    response: z.record(z.string(), z.unknown()),
    clientExtensionResults: z.record(z.string(), z.unknown()).default({}),
    authenticatorAttachment: z.string().max(32).optional(),
  })
  .loose();

export const passkeyNameInput = z.string().trim().min(1, { message: "name the passkey" }).max(60);

export const passkeyRegistrationInput = z.object({
  name: passkeyNameInput,
  response: webauthnCredentialJson,
});

/** Passkey options for the second step (the pending sign-in's account) or for a passwordless sign-in. */
export const passkeyOptionsInput = z.object({ secondStep: z.boolean() });

export const passkeyAuthenticationInput = z.object({ response: webauthnCredentialJson });
/** A WebAuthn ceremony's answer as every passkey call takes it. */
export type WebauthnCredentialJson = z.infer<typeof webauthnCredentialJson>;

/** Passwordless passkey sign-in: on an organization's login URL, that organization. */
export const passkeySignInInput = passkeyAuthenticationInput.extend({ organizationId: z.uuid().optional() });

/**
 * Step-up: changing how an account signs in (factors, passkeys, recovery codes, single sign-on
 * settings) asks again, in that very call, for something only the account's holder has. An
 * account with a second factor must use one (a code, a recovery code or a passkey); the password
 * alone is enough only for an account without one. A passkey answers `accountSecurity.stepUpOptions`.
 */
export const stepUpInput = z.discriminatedUnion("method", [
  z.object({
    method: z.literal("password"),
    password: z.string().min(1, { message: "enter your password" }).max(1024),
  }),
  z.object({ method: z.literal("totp"), code: z.string().trim().min(1, { message: "enter the code" }).max(16) }),
  z.object({ method: z.literal("recovery"), code: z.string().trim().min(1, { message: "enter the code" }).max(64) }),
  z.object({ method: z.literal("passkey"), response: webauthnCredentialJson }),
  /**
   * Only for an account with neither a password nor a factor of its own (made by its
   * organization's provider): nothing to ask again, so its staff session must be fresh (10 minutes).
   */
  z.object({ method: z.literal("fresh_sign_in") }),
]);
export type StepUpInput = z.infer<typeof stepUpInput>;
/** The ways an account can confirm a step-up (`accountSecurity.overview`). */
export const stepUpMethods = z.object({
  password: z.boolean(),
  totp: z.boolean(),
  passkey: z.boolean(),
  recoveryCode: z.boolean(),
  /** The account has no credential of its own: a sign-in of at most 10 minutes ago confirms. */
  freshSignIn: z.boolean(),
});
export type StepUpMethods = z.infer<typeof stepUpMethods>;
const withStepUp = { stepUp: stepUpInput };

export const passkeyIdInput = z.object({ id: z.uuid() });

/** The member's own factor changes, each with its step-up. */
export const addTotpInput = totpCodeInput.extend(withStepUp);
export const addPasskeyInput = passkeyRegistrationInput.extend(withStepUp);
export const removePasskeyInput = passkeyIdInput.extend(withStepUp);
export const stepUpOnlyInput = z.object(withStepUp);

export const renamePasskeyInput = z.object({ id: z.uuid(), name: passkeyNameInput });

export const passkeySummary = z.object({
  id: z.uuid(),
  name: z.string(),
  createdAt: z.string(),
  lastUsedAt: z.string().nullable(),
  /** A synced passkey (in a password manager or platform account) rather than bound to one device. */
  backedUp: z.boolean(),
});
export type PasskeySummary = z.infer<typeof passkeySummary>;

/** The signed-in member's own factors (the "Account security" page). */
export const accountSecurity = z.object({
  totp: z.object({ createdAt: z.string() }).nullable(),
  passkeys: z.array(passkeySummary),
  recoveryCodesLeft: z.number().int(),
  /** The organization requires a second factor for password sign-ins. */
  required: z.boolean(),
  /** How this account can confirm a change (step-up); all false: none, its sign-in is its organization's provider. */
  stepUp: stepUpMethods,
});
export type AccountSecurity = z.infer<typeof accountSecurity>;

/** Set-up of an authenticator app: the secret (for manual entry) and the `otpauth://` URI (for the QR code). */
export const totpSetup = z.object({ secret: z.string(), uri: z.string() });
export type TotpSetup = z.infer<typeof totpSetup>;

/** Recovery codes, shown once when created. */
export const recoveryCodes = z.object({ recoveryCodes: z.array(z.string()).nullable() });
