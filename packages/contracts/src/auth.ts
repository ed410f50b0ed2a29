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
});

export const me = z.object({
  user: z.object({ id: z.uuid(), email: z.string(), name: z.string().nullable() }),
  organization: z.object({ id: z.uuid(), name: z.string() }),
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
 * What the password step (and a passkey sign-in) leads to: `done` (the session is open),
 * `second_factor` (enter a code or use a passkey), `enroll` (the organization requires a second
 * factor and the account has none yet: set one up to continue).
 */
export const signInStep = z.enum(["done", "second_factor", "enroll"]);
export type SignInStep = z.infer<typeof signInStep>;
export const loginResult = z.object({
  ok: z.literal(true),
  step: signInStep,
  /** The factors the second step may use (present for `second_factor`). */
  methods: z.object({ totp: z.boolean(), passkey: z.boolean(), recoveryCode: z.boolean() }).optional(),
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

export const passkeyIdInput = z.object({ id: z.uuid() });

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
});
export type AccountSecurity = z.infer<typeof accountSecurity>;

/** Set-up of an authenticator app: the secret (for manual entry) and the `otpauth://` URI (for the QR code). */
export const totpSetup = z.object({ secret: z.string(), uri: z.string() });
export type TotpSetup = z.infer<typeof totpSetup>;

/** Recovery codes, shown once when created. */
export const recoveryCodes = z.object({ recoveryCodes: z.array(z.string()).nullable() });
