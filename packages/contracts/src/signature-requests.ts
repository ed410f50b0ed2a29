import { z } from "zod";
import { isoDateTime, uuid } from "./common";
import { patientLanguage } from "./languages";
import { createdRange, listInput, listPage } from "./lists";
import { assignmentVisibility, brandingFonts } from "./signatures";
import { signingOrder, staffSignerItem } from "./signers";

// ---- staff: the signature requests section ----------------------------------------------------

/**
 * What staff see of a request. The stored statuses plus `failed`: the patient signed, but the
 * seal job gave up (its error is kept and no further attempt is scheduled); "seal again" starts
 * over. `sealing` is only the requests whose sealing is still under way.
 */
export const signatureRequestStates = [
  "pending",
  "opened",
  "sealing",
  "completed",
  "declined",
  "expired",
  "failed",
] as const;
export type SignatureRequestState = (typeof signatureRequestStates)[number];
export const signatureRequestState = z.enum(signatureRequestStates, {
  message: `must be one of ${signatureRequestStates.join(", ")}`,
});

const exactText = (max: number) =>
  z
    .string({ message: "must be a string" })
    .trim()
    .min(1, { message: "is required" })
    .max(max, { message: `must be at most ${max} characters` });

/** The filters of the organization-wide request list; each one is backed by an index. */
export const signatureRequestFilters = {
  status: signatureRequestState.optional(),
  visibility: assignmentVisibility.optional(),
  /** Exact patient id, as the caller's system sent it. */
  patientId: exactText(200).optional(),
  documentId: uuid.optional(),
  /** The caller's own institution id (A1 `institution_id`), exact. */
  institutionId: exactText(200).optional(),
  ...createdRange,
};

/** Staff: the organization's signature requests, newest first (the list contract). */
export const listSignatureRequestsInput = listInput(signatureRequestFilters);
export type ListSignatureRequestsInput = z.input<typeof listSignatureRequestsInput>;

export const signatureRequestListItem = z.object({
  id: uuid,
  patientId: z.string(),
  /**
   * The document the request shows: the one pinned when the patient opened it (issue 19: perhaps
   * the one in their language), else A1's `document_id`. The `documentId` filter matches A1's.
   */
  documentId: uuid,
  /** Set when the pinned document is not A1's `document_id` (a document in the patient's language). */
  requestedDocumentId: uuid.optional(),
  documentName: z.string(),
  /** The version the request is pinned to, or the document's current one while it follows the newest. */
  documentVersion: z.number().int(),
  /** The caller's own institution id. */
  institutionId: z.string(),
  orderBy: z.string(),
  status: signatureRequestState,
  visibility: assignmentVisibility,
  createdAt: isoDateTime,
  expiresAt: isoDateTime,
  openedAt: isoDateTime.nullable(),
  completedAt: isoDateTime.nullable(),
  declinedAt: isoDateTime.nullable(),
  /**
   * Several signers only (absent for one-patient requests): how many have signed, of how many who
   * sign (an optional signer left out at sealing no longer counts). While others still have to
   * sign the request stays `opened`; this says the patient (or whoever) already did.
   */
  signerProgress: z.object({ signed: z.number().int(), total: z.number().int() }).optional(),
  /**
   * Issue 35: when staff last handed a device over for it ("Sign at this device"); while the
   * request is still open, the device has not reported back (it may hold a signature made offline).
   */
  kioskStartedAt: isoDateTime.nullable().optional(),
});
export type SignatureRequestListItem = z.infer<typeof signatureRequestListItem>;
export const signatureRequestListPage = listPage(signatureRequestListItem);

export const signatureTimelineKinds = [
  "created",
  "opened",
  "signed",
  "sealed",
  "seal_failed",
  /** Staff started sealing over ("seal again"). */
  "seal_again",
  /** The sealed PDF got a new document time stamp (B-LTA renewal). */
  "retimestamped",
  "declined",
  "expired",
  "visibility_changed",
  "expiry_changed",
  "link_replaced",
  /** A staff member fetched the signing link (`signatures.revealLink`, or A2 with a staff session). */
  "link_viewed",
  /** Staff handed a device to the patient ("Sign at this device"; detail: who, by name or e-mail). */
  "kiosk_started",
  "webhook_delivery",
  /** A reminder went to the signer (detail: the channel, `sms`). */
  "reminder_sent",
  /** A reminder was due but had no channel (no phone on the request): nothing was sent. */
  "reminder_not_sent",
  /** Staff were told by e-mail that the request expired or was declined (detail: the event). */
  "staff_notified",
] as const;
export type SignatureTimelineKind = (typeof signatureTimelineKinds)[number];

/** A webhook delivery of the request's events (F12 data): its event type and how it went. */
export const signatureTimelineDelivery = z.object({
  deliveryId: uuid,
  eventType: z.string(),
  url: z.string(),
  status: z.enum(["pending", "delivered", "failed"]),
  attempts: z.number().int(),
  lastStatusCode: z.number().int().nullable(),
});

export const signatureTimelineEvent = z.object({
  at: isoDateTime,
  kind: z.enum(signatureTimelineKinds),
  /** Who did it, as the audit log says (`api_key`, `session`, `portal`, `user`, `system`). */
  actorType: z.string().optional(),
  /**
   * What changed, for people: e.g. `draft → active`, the new expiry, the decline reason, the
   * seal error. Never patient data staff do not already see, never a token.
   */
  detail: z.string().optional(),
  /** Set on `webhook_delivery` events. */
  delivery: signatureTimelineDelivery.optional(),
});
export type SignatureTimelineEvent = z.infer<typeof signatureTimelineEvent>;

/**
 * The detail carries no signing link: it is a bearer credential, fetched through
 * `signatures.revealLink`, which writes an audit entry. `assignmentUrl` is the caller's own
 * replacement address (A7), already in the audit log when it was set.
 */
export const signatureRequestDetail = signatureRequestListItem.extend({
  assignmentUrl: z.string().nullable(),
  declineReason: z.string().nullable(),
  sealError: z.string().nullable(),
  signatureMethod: z.enum(["drawn", "typed"]).nullable(),
  /** Sealing gave up: `signatures.sealAgain` may start it over. */
  canSealAgain: z.boolean(),
  /**
   * Signed, still `sealing`, and the last attempt failed (e.g. the time-stamping authority did
   * not answer): the seal job retries; `sealError` says why.
   */
  sealDelayed: z.boolean(),
  /** The PAdES level of the sealed PDF (B-B, B-T, B-LT, B-LTA); null until sealed. */
  sealLevel: z.enum(["B-B", "B-T", "B-LT", "B-LTA"]).nullable(),
  /** The trusted time of the seal (the signature time stamp's genTime); null without one. */
  timestampedAt: z.string().nullable(),
  /** The signed PDF and its metadata JSON can be downloaded (`signatures.signedArtifact`). */
  hasSignedPdf: z.boolean(),
  /** Oldest first. */
  timeline: z.array(signatureTimelineEvent),
  /** Several signers only (absent for one-patient requests): the order and every signer. */
  signingOrder: signingOrder.optional(),
  signers: z.array(staffSignerItem).optional(),
  /** Several signers: the role whose signer declined. */
  declinedRole: z.string().nullable().optional(),
  /** Issue 19: the language of the document version the patient got; null: not pinned yet, or not named. */
  documentLanguage: patientLanguage.nullable().optional(),
  /**
   * Issue 19, only for a request with documents in several languages: A1's document (`main`)
   * and one per language; `documentId` above says which one the patient got.
   */
  documentsByLanguage: z
    .array(
      z.object({
        language: z.union([patientLanguage, z.literal("main")]),
        documentId: uuid,
        documentName: z.string(),
      }),
    )
    .optional(),
});
export type SignatureRequestDetail = z.infer<typeof signatureRequestDetail>;

/** `signatures.revealLink`: the link the patient is given now: `assignmentUrl` when set, else the /sign/<token> link. */
export const revealedSigningLink = z.object({ signingUrl: z.string() });
export type RevealedSigningLink = z.infer<typeof revealedSigningLink>;

/**
 * `signatures.startKiosk`: the desk hands this browser to the patient. `kioskPath` (on the web
 * origin) opens the signing page with a one-time ticket; the caller's staff session has ended.
 */
export const startedKiosk = z.object({ kioskPath: z.string() });
export type StartedKiosk = z.infer<typeof startedKiosk>;

const futureInstant = z
  .string({ message: "must be an ISO 8601 date-time string" })
  .pipe(
    z.iso.datetime({
      offset: true,
      message: "must be an ISO 8601 date-time with a time zone, e.g. 2030-01-31T12:00:00Z",
    }),
  )
  .refine((v) => Date.parse(v) > Date.now(), { message: "must be in the future" });

/**
 * Staff: change a request. Only what is sent changes: `visibility` (A7 draft/active),
 * `expiresAt` (future; pending and opened requests only), `assignmentUrl` (an http(s) URL that
 * replaces the signing link; `null` clears it). At least one of them.
 */
export const updateSignatureRequestInput = z
  .object({
    id: uuid,
    visibility: assignmentVisibility.optional(),
    expiresAt: futureInstant.optional(),
    assignmentUrl: z
      .string({ message: "must be a string" })
      .max(2048, { message: "must be at most 2048 characters" })
      .pipe(z.url({ protocol: /^https?$/, message: "must be an http(s) URL" }))
      .nullable()
      .optional(),
  })
  .refine((v) => v.visibility !== undefined || v.expiresAt !== undefined || v.assignmentUrl !== undefined, {
    message: "send at least one of visibility, expiresAt, assignmentUrl",
  });
export type UpdateSignatureRequestInput = z.input<typeof updateSignatureRequestInput>;

// ---- staff: branding ---------------------------------------------------------------------------

/** Staff: institutions that have their own branding, most recently changed first. */
export const listInstitutionBrandingsInput = listInput({});
export type ListInstitutionBrandingsInput = z.input<typeof listInstitutionBrandingsInput>;

export const institutionBrandingItem = z.object({
  /** The caller's own institution id. */
  institutionId: z.string(),
  logoUrl: z.string().nullable(),
  primaryColor: z.string().nullable(),
  accentColor: z.string().nullable(),
  font: z.enum(brandingFonts).nullable(),
  updatedAt: isoDateTime,
});
export type InstitutionBrandingItem = z.infer<typeof institutionBrandingItem>;
export const institutionBrandingPage = listPage(institutionBrandingItem);

/** Staff: the organization's known institution ids (for pickers), alphabetical, by prefix. */
export const listInstitutionIdsInput = z.object({
  prefix: z
    .string({ message: "must be a string" })
    .trim()
    .max(200, { message: "must be at most 200 characters" })
    .optional(),
  limit: z
    .number()
    .int({ message: "must be a whole number" })
    .min(1, { message: "must be at least 1" })
    .max(200, { message: "must be at most 200" })
    .default(50),
});
export type ListInstitutionIdsInput = z.input<typeof listInstitutionIdsInput>;

export const institutionIdList = z.object({
  items: z.array(z.object({ institutionId: z.string(), hasBranding: z.boolean() })),
  /** More institutions match the prefix than were returned. */
  hasMore: z.boolean(),
});
export type InstitutionIdList = z.infer<typeof institutionIdList>;

/** POST /staff/branding/logo: the public URL to put into `logo_url`. */
export const uploadedLogo = z.object({ logoUrl: z.string(), contentType: z.string(), size: z.number().int() });
export type UploadedLogo = z.infer<typeof uploadedLogo>;

/** The logo upload's limits, for the UI's hint and the server's check. */
export const LOGO_MAX_BYTES = 512 * 1024;
export const logoContentTypes = ["image/png", "image/jpeg", "image/webp", "image/svg+xml"] as const;
