import { z } from "zod";
import { isoDateTime, uuid } from "./common";

// ---- several signers in order (issue 20) ------------------------------------------------------
//
// A document version's signature fields each belong to a role (absent = `patient`) and are
// required unless `required: false`. A request whose version has only patient fields is the
// one-patient request of the interface document (no signer rows, A1–A10 unchanged). A request
// whose version has other roles names who signs each role (A1 `signers`), in order. See
// docs/signatures.md, "Several signers".

export * from "./signer-roles";
import { PATIENT_ROLE } from "./signer-roles";
export const SIGNER_ROLE_MAX = 60;
/** At most this many signers (roles) on one request. */
export const MAX_SIGNERS = 10;

/** A field's role: a built-in id or the clinic's own name; trimmed, 1–60 characters, no control characters. */
export const signerRole = z
  .string({ message: "must be a string" })
  .trim()
  .min(1, { message: "is required" })
  .max(SIGNER_ROLE_MAX, { message: `must be at most ${SIGNER_ROLE_MAX} characters` })
  // eslint-disable-next-line no-control-regex
  .regex(/^[^\u0000-\u001f\u007f]+$/, { message: "must not contain control characters" });

/** The role of a stored field (rows written before issue 20 have none: the patient's). */
export const roleOfField = (field: { role?: string | undefined }): string => field.role ?? PATIENT_ROLE;
/** Whether sealing waits for a stored field (absent = required). */
export const isFieldRequired = (field: { required?: boolean | undefined }): boolean => field.required !== false;

export const signingOrders = ["sequential", "parallel"] as const;
export const signingOrder = z.enum(signingOrders, { message: "must be sequential or parallel" });
export type SigningOrder = z.infer<typeof signingOrder>;

/**
 * One entry of A1's optional `signers` (beyond the interface document): who signs a role.
 * - `patient`: the request's patient (A1's link, A4); takes nothing else (`patient_phone` is on A1).
 * - with `staff_user_id`: a staff member of the organization signs in the console; only they may.
 * - otherwise: a person with their own signing link (legal representative, witness, interpreter, …);
 *   `name` as staff know it, `phone` (mobile) for reminders.
 * The array's order is the signing order; the patient comes first when not listed.
 */
export const signerInput = z.strictObject({
  role: signerRole,
  staff_user_id: uuid.optional(),
  name: z
    .string({ message: "must be a string" })
    .trim()
    .min(1)
    .max(200, { message: "must be at most 200 characters" })
    .optional(),
  phone: z.string({ message: "must be a string" }).trim().min(1).max(40).optional(),
});
export type SignerInput = z.infer<typeof signerInput>;

export const signersInput = z
  .array(signerInput, { message: "must be an array of {role, staff_user_id?, name?, phone?}" })
  .min(1, { message: "needs at least one signer" })
  .max(MAX_SIGNERS, { message: `at most ${MAX_SIGNERS} signers` });

export const signerKinds = ["patient", "link", "staff"] as const;
export const signerKind = z.enum(signerKinds);
export type SignerKind = z.infer<typeof signerKind>;

/**
 * `waiting`: sequential order and an earlier signer has not signed; `pending`: their turn;
 * `opened`: they opened it; `signed`; `declined` (stops the request); `skipped`: an optional
 * signer who had not signed when the request was sealed.
 */
export const signerStatuses = ["waiting", "pending", "opened", "signed", "declined", "skipped"] as const;
export const signerStatus = z.enum(signerStatuses);
export type SignerStatus = z.infer<typeof signerStatus>;

/** A1's answer for a request with several signers gains `signers` (absent for one-patient requests). */
export const createdSigner = z.object({
  signer_id: uuid,
  role: z.string(),
  kind: signerKind,
  /** The link to hand to this signer: the request's `signing_link` for the patient, null for staff (they sign in the console). */
  signing_link: z.string().nullable(),
  /** The signer's name as staff gave it (A1 `signers[].name`), so each link is handed to the right person; null when none was given. */
  name: z.string().nullable(),
});
export type CreatedSigner = z.infer<typeof createdSigner>;

const fieldRectView = z.object({
  page: z.number(),
  x: z.number(),
  y: z.number(),
  width: z.number(),
  height: z.number(),
  role: z.string().optional(),
  required: z.boolean().optional(),
});

/** A signature already made, as the other signers see it (placed into that signer's fields). */
export const madeSignature = z.discriminatedUnion("kind", [
  z.object({ kind: z.literal("drawn"), dataUrl: z.string() }),
  z.object({ kind: z.literal("typed"), name: z.string() }),
]);
export type MadeSignature = z.infer<typeof madeSignature>;

/** One signer as a signer sees the request (portal and the staff signer's console view). */
export const partySigner = z.object({
  id: uuid,
  role: z.string(),
  kind: signerKind,
  position: z.number().int(),
  required: z.boolean(),
  /** The name staff entered (link signers) or the staff user's name; null for the patient. */
  label: z.string().nullable(),
  status: signerStatus,
  signedAt: isoDateTime.nullable(),
  /** Set once signed: the image or typed name, to show in `fields`. */
  signature: madeSignature.nullable(),
  /** This role's fields. */
  fields: z.array(fieldRectView),
});
export type PartySigner = z.infer<typeof partySigner>;

/**
 * The several-signer part of a signing view (`signing.open`, `signing.status`,
 * `signatures.staffSigningView`). `me` is the viewer's signer id; `signers` in order;
 * `waitingFor` the roles that must sign before it is the viewer's turn (empty when it is).
 */
export const signingParty = z.object({
  order: signingOrder,
  me: uuid,
  signers: z.array(partySigner),
  waitingFor: z.array(z.string()),
});
export type SigningParty = z.infer<typeof signingParty>;

/** A signer as staff see it in `signatures.detail` (never a token, phone number or IP). */
export const staffSignerItem = z.object({
  id: uuid,
  role: z.string(),
  kind: signerKind,
  position: z.number().int(),
  required: z.boolean(),
  /** Link signers: the name staff entered; staff signers: the user's name or e-mail. */
  name: z.string().nullable(),
  staffUserId: uuid.nullable(),
  status: signerStatus,
  /** Link signers: a mobile number is on file for reminders. */
  hasPhone: z.boolean(),
  activatedAt: isoDateTime.nullable(),
  openedAt: isoDateTime.nullable(),
  signedAt: isoDateTime.nullable(),
  signatureMethod: z.enum(["drawn", "typed"]).nullable(),
  declinedAt: isoDateTime.nullable(),
  declineReason: z.string().nullable(),
});
export type StaffSignerItem = z.infer<typeof staffSignerItem>;

/** `signatures.revealSignerLink`: a link signer's own signing link (audited as `signature.link_viewed`). */
export const revealSignerLinkInput = z.object({ id: uuid, signerId: uuid });
export type RevealSignerLinkInput = z.input<typeof revealSignerLinkInput>;

/**
 * Staff send a signing link by SMS or e-mail from the console: the patient's (no `signerId`) or a
 * link signer's. `to`: the number or address typed; absent (SMS), the number on the request.
 */
export const sendSigningLinkInput = z.object({
  id: uuid,
  signerId: uuid.optional(),
  channel: z.enum(["sms", "email"]),
  to: z.string().trim().max(320, { message: "must be at most 320 characters" }).optional(),
});
export type SendSigningLinkInput = z.infer<typeof sendSigningLinkInput>;
/** `outbox`: no provider is set up for the channel, nothing left the installation (the outbox shows it). */
export const sentSigningLink = z.object({
  channel: z.enum(["sms", "email"]),
  delivery: z.enum(["provider", "outbox"]),
  messageId: uuid,
});
export type SentSigningLink = z.infer<typeof sentSigningLink>;

/** Staff signing in the console: the request; the caller must be its named staff signer. */
export const staffSigningInput = z.object({ id: uuid });

const pngDataUrl = z
  .string()
  .max(2_000_000, { message: "the signature image is too large" })
  .regex(/^data:image\/png;base64,[A-Za-z0-9+/]+={0,2}$/, { message: "must be a PNG data URL" });

/** The signature itself (the pad's PNG or a typed name), for the portal and the console alike. */
export const signatureInput = z.discriminatedUnion("kind", [
  z.object({ kind: z.literal("drawn"), dataUrl: pngDataUrl }),
  z.object({ kind: z.literal("typed"), name: z.string().trim().min(1, { message: "enter your name" }).max(120) }),
]);

export const signAsStaffInput = z.object({
  id: uuid,
  consent: z.literal(true, { message: "consent is required to sign" }),
  signature: signatureInput,
});
export type SignAsStaffInput = z.input<typeof signAsStaffInput>;

export const declineAsStaffInput = z.object({
  id: uuid,
  reason: z.string().trim().max(1000, { message: "must be at most 1000 characters" }).optional(),
});
export type DeclineAsStaffInput = z.input<typeof declineAsStaffInput>;

/** `signatures.awaitingMySignature`: requests where the caller is a staff signer whose turn it is. */
export const awaitingStaffSignature = z.object({
  items: z.array(
    z.object({
      id: uuid,
      role: z.string(),
      documentName: z.string(),
      documentTitle: z.string(),
      patientId: z.string(),
      activatedAt: isoDateTime.nullable(),
      expiresAt: isoDateTime,
    }),
  ),
});
export type AwaitingStaffSignature = z.infer<typeof awaitingStaffSignature>;

/**
 * `signatures.signerCandidates`: the organization's active members who may be named as a staff
 * signer (owners, admins, staff), for the "New request" dialog's picker; by name, then e-mail.
 */
export const signerCandidates = z.object({
  items: z.array(z.object({ userId: uuid, name: z.string().nullable(), email: z.string() })),
});
export type SignerCandidates = z.infer<typeof signerCandidates>;
