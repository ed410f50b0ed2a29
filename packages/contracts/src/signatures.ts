import { z } from "zod";
import { isoDateTime } from "./common";
import { patientLanguage, patientLanguages } from "./languages";
import { MAX_SIGNATURE_REMINDER_DAYS } from "./organizations";
import { createdSigner, signatureInput, signerRole, signersInput, signingOrder, signingParty } from "./signers";

// ---------------------------------------------------------------- shared pieces

const requiredText = (max: number) =>
  z
    .string({ error: (issue) => (issue.input === undefined ? "is required" : "must be a string") })
    .trim()
    .min(1, { message: "is required" })
    .max(max, { message: `must be at most ${max} characters` });

/** Identifiers we issue are UUIDs; anything else cannot name one of ours (404, not 400). */
export const resourceId = requiredText(100);

/** ISO 8601 date-time with a zone (`Z` or an offset): local times would be ambiguous. */
const futureTimestamp = z
  .string({ error: (issue) => (issue.input === undefined ? "is required" : "must be an ISO 8601 date-time string") })
  .pipe(
    z.iso.datetime({
      offset: true,
      message: "must be an ISO 8601 date-time with a time zone, e.g. 2030-01-31T12:00:00Z",
    }),
  )
  .refine((v) => Date.parse(v) > Date.now(), { message: "must be in the future" });

const pdfPoints = z.number({ message: "must be a number (PDF points)" }).finite({ message: "must be a finite number" });

/** A signature field: PDF points (1/72 inch), origin at the top-left corner, `page` counted from 1. */
export const signingFieldRect = z.strictObject({
  page: z
    .number({ message: "must be a whole number" })
    .int({ message: "must be a whole number" })
    .min(1, { message: "must be at least 1" })
    .max(100_000),
  x: pdfPoints.min(0, { message: "must not be negative" }),
  y: pdfPoints.min(0, { message: "must not be negative" }),
  width: pdfPoints.positive({ message: "must be greater than 0" }),
  height: pdfPoints.positive({ message: "must be greater than 0" }),
  /** Several signers (issue 20): who signs this field; absent = `patient`. */
  role: signerRole.optional(),
  /** Absent = true: sealing waits for this field. */
  required: z.boolean({ message: "must be true or false" }).optional(),
});
export type SigningFieldRect = z.infer<typeof signingFieldRect>;

const rectList = z.union([
  signingFieldRect.transform((r) => [r]),
  z.array(signingFieldRect).min(1, { message: "needs at least one field" }).max(20, { message: "at most 20 fields" }),
]);

/**
 * One rectangle or an array of them. Problems are reported on the field itself (details.field
 * names `signingfield_koordinates`), with the exact spot in the message.
 */
function fieldRects() {
  return z.unknown().transform((value, ctx): SigningFieldRect[] => {
    if (value === undefined) {
      ctx.addIssue({ code: "custom", message: "is required" });
      return z.NEVER;
    }
    const parsed = (
      Array.isArray(value)
        ? z
            .array(signingFieldRect)
            .min(1, { message: "needs at least one field" })
            .max(20, { message: "at most 20 fields" })
        : rectList
    ).safeParse(value);
    if (parsed.success) return Array.isArray(parsed.data) ? parsed.data : [parsed.data];
    const issue = parsed.error.issues[0]!;
    const where = issue.path.length ? `${issue.path.join(".")} ` : "";
    const message =
      issue.code === "unrecognized_keys" ||
      (issue.code === "invalid_union" && !Array.isArray(value) && (typeof value !== "object" || value === null))
        ? "must be an object {page, x, y, width, height, role?, required?} or an array of them"
        : `${where}${issue.message}`;
    ctx.addIssue({ code: "custom", message });
    return z.NEVER;
  });
}

export const signingFieldKoordinates = fieldRects();

// ---------------------------------------------------------------- documents (A6, A8, A9, A10)

/** A document's language on the REST door: one of the patient languages, with a clear message. */
const documentLanguage = z.enum(patientLanguages, { message: `must be one of ${patientLanguages.join(", ")}` });

/** A1's `documents_by_language`: patient language → document id (at most one per language). */
export const documentsByLanguage = z
  .partialRecord(documentLanguage, resourceId, {
    // zod reports unknown keys of a partial record as `unrecognized_keys` (its types say `invalid_key`).
    error: (issue) => {
      const unknown = issue as { code: string; keys?: string[] };
      if (issue.code === "invalid_type") return 'must be an object such as {"tr": "<document_id>"}';
      if (unknown.code === "unrecognized_keys")
        return `unknown language ${unknown.keys?.join(", ")}; the languages are ${patientLanguages.join(", ")}`;
      return undefined;
    },
  })
  .refine((map) => Object.keys(map).length > 0, { message: "must name at least one language" })
  .meta({
    examples: [{ tr: "0b8e3c1a-5f2d-4c6e-9a7b-1d2e3f4a5b6c", ar: "5d6e7f80-1a2b-4c3d-8e9f-0a1b2c3d4e5f" }],
  });
export type DocumentsByLanguage = z.output<typeof documentsByLanguage>;

export const documentAvailabilities = ["draft", "active", "inactive"] as const;
export const documentAvailability = z.enum(documentAvailabilities, {
  message: "must be one of draft, active, inactive",
});

export const createDocumentInput = z.object({
  document_name: requiredText(200),
  document_description: z
    .string({ message: "must be a string" })
    .max(2000, { message: "must be at most 2000 characters" })
    .nullish(),
  account_name: z
    .string({ message: "must be a string" })
    .max(200, { message: "must be at most 200 characters" })
    .nullish(),
  signingfield_koordinates: signingFieldKoordinates,
  document_bloburl: z
    .string({ error: (issue) => (issue.input === undefined ? "is required" : "must be a string") })
    .max(2048, { message: "must be at most 2048 characters" })
    .pipe(z.url({ protocol: /^https?$/, message: "must be an http(s) URL" })),
  /**
   * Beyond the interface document (optional, issue 19): the language the PDF is written in, one of
   * de, en, tr, ar, ru, uk, pl. A1's `documents_by_language` offers such documents to patients.
   */
  language: documentLanguage.nullish(),
});
export type CreateDocumentInput = z.input<typeof createDocumentInput>;

export const createDocumentOutput = z.object({
  document_name: z.string(),
  document_id: z.string(),
  document_bloburl: z.string(),
});

/**
 * A8 `fields`: `{signature: <rect or array>}` as in the interface document, or the rect(s)
 * directly. `{}` (what a caller sends when only the title changes) leaves the fields as they are.
 */
const updateFields = z.unknown().transform((value, ctx): SigningFieldRect[] | undefined => {
  if (value === undefined || value === null) return undefined;
  if (typeof value === "object" && !Array.isArray(value) && Object.keys(value).length === 0) return undefined;
  const inner =
    typeof value === "object" && !Array.isArray(value) && "signature" in value
      ? (value as { signature: unknown }).signature
      : value;
  if (typeof value === "object" && !Array.isArray(value) && "signature" in value && Object.keys(value).length > 1) {
    ctx.addIssue({ code: "custom", message: "only a signature entry is supported" });
    return z.NEVER;
  }
  const parsed = signingFieldKoordinates.safeParse(inner);
  if (parsed.success) return parsed.data;
  ctx.addIssue({ code: "custom", message: parsed.error.issues[0]!.message });
  return z.NEVER;
});

export const updateDocumentInput = z.object({
  id: resourceId,
  /** Optional repetition of the path id; must match it when sent. */
  document_id: z.string().optional(),
  title: requiredText(200).optional(),
  description: z
    .string({ message: "must be a string" })
    .max(2000, { message: "must be at most 2000 characters" })
    .nullish(),
  fields: updateFields.optional(),
  /** Beyond the document (issue 19): the new version's language; null clears it, absent keeps it. */
  language: documentLanguage.nullish(),
});
export type UpdateDocumentInput = z.input<typeof updateDocumentInput>;

export const updateDocumentOutput = z.object({ id: z.string(), modified: z.boolean() });

export const documentIdInput = z.object({ id: resourceId });

export const deleteDocumentOutput = z.object({ deleted: z.boolean(), reason: z.string().nullable() });
export type DeleteDocumentOutput = z.infer<typeof deleteDocumentOutput>;

export const setAvailabilityInput = z.object({ id: resourceId, availability: documentAvailability });
export const availabilityOutput = z.object({ id: z.string(), availability: documentAvailability });

/** A document as the admin UI sees it. */
export const documentSummary = z.object({
  id: z.string(),
  name: z.string(),
  accountName: z.string().nullable(),
  availability: documentAvailability,
  currentVersion: z.number(),
  title: z.string(),
  description: z.string().nullable(),
  fields: z.array(signingFieldRect),
  pageCount: z.number(),
  pageSizes: z.array(z.object({ width: z.number(), height: z.number() })),
  sha256: z.string(),
  /** The current version's language (issue 19); null: not named. */
  language: patientLanguage.nullable(),
  createdAt: isoDateTime,
  updatedAt: isoDateTime,
});
export type DocumentSummary = z.infer<typeof documentSummary>;

// ---------------------------------------------------------------- signature requests (A1, A2, A3, A7)

export const createSignatureRequestInput = z.object({
  patient_id: requiredText(200),
  document_id: resourceId,
  institution_id: requiredText(200),
  expiration_date: futureTimestamp,
  order_by: requiredText(200),
  /**
   * Beyond the interface document (optional, so its bodies answer as before): the patient's mobile
   * number, international or national in the organization's phone country, for reminders by SMS.
   */
  patient_phone: z.string({ message: "must be a string" }).trim().min(1).max(40).optional(),
  /** Beyond the document: remind after this many days instead of the organization's setting (0 = never). */
  reminder_days: z
    .number({ message: "must be a whole number of days" })
    .int({ message: "must be a whole number of days" })
    .min(0, { message: "must be 0 to 90" })
    .max(MAX_SIGNATURE_REMINDER_DAYS, { message: "must be 0 to 90" })
    .optional(),
  /**
   * Beyond the document (several signers): who signs each role of the document's fields, in
   * signing order. Needed only when the document has fields of roles other than `patient`.
   */
  signers: signersInput.optional(),
  /** Beyond the document: `sequential` (default) or `parallel`. */
  signing_order: signingOrder.optional(),
  /**
   * Beyond the document (issue 19): the same consent in other languages, e.g.
   * `{"tr": "<document_id>", "ar": "<document_id>"}`. When the patient opens the link, the
   * document for the signing page's language is pinned, else `document_id`. Each must be one of
   * the organization's documents with a patient signature field; single-signer requests only.
   */
  documents_by_language: documentsByLanguage.optional(),
});
export type CreateSignatureRequestInput = z.input<typeof createSignatureRequestInput>;

export const createSignatureRequestOutput = z.object({
  signing_link: z.string(),
  signature_id: z.string(),
  expiration_date: isoDateTime,
  /** Only for a request with several signers: each signer and the link to hand them. */
  signers: z.array(createdSigner).optional(),
});

export const patientQuery = z.object({ patient_id: requiredText(200) });

export const openSignatureLink = z.object({
  document_id: z.string(),
  document_title: z.string(),
  signing_link: z.string(),
  status: z.enum(["pending", "opened"]),
  expiration_date: isoDateTime,
});
export type OpenSignatureLink = z.infer<typeof openSignatureLink>;

export const completedProcess = z.object({
  signature_id: z.string(),
  signed_pdf_url: z.string(),
  metadata_json_url: z.string(),
  timestamp: isoDateTime,
});
export type CompletedProcess = z.infer<typeof completedProcess>;

export const assignmentVisibility = z.enum(["draft", "active"], { message: "must be draft or active" });

export const updateAssignmentInput = z.object({
  id: resourceId,
  status: assignmentVisibility,
  expiration_timestamp: futureTimestamp.optional(),
  assigment_url: z
    .string({ message: "must be a string" })
    .max(2048, { message: "must be at most 2048 characters" })
    .pipe(z.url({ protocol: /^https?$/, message: "must be an http(s) URL" }))
    .nullish(),
});
export type UpdateAssignmentInput = z.input<typeof updateAssignmentInput>;

export const updateAssignmentOutput = z.object({
  id: z.string(),
  status: assignmentVisibility,
  expiration_timestamp: isoDateTime,
});

export const signatureRequestIdInput = z.object({ id: resourceId });

// ---------------------------------------------------------------- branding (A5)

/** Fonts the portal bundles or can rely on; the portal maps each to a font stack. */
export const brandingFonts = [
  "system-ui",
  "Arial",
  "Helvetica",
  "Verdana",
  "Tahoma",
  "Trebuchet MS",
  "Georgia",
  "Times New Roman",
  "Inter",
  "Roboto",
  "Open Sans",
  "Source Sans 3",
] as const;

const hexColor = z
  .string({ message: "must be a hex colour such as #0a7f5a" })
  .regex(/^#(?:[0-9a-fA-F]{3}|[0-9a-fA-F]{6})$/, { message: "must be a hex colour such as #0a7f5a" })
  .transform((v) => v.toLowerCase());

export const designParameters = z.strictObject(
  {
    primaryColor: hexColor.optional(),
    accentColor: hexColor.optional(),
    font: z.enum(brandingFonts, { message: `must be one of ${brandingFonts.join(", ")}` }).optional(),
  },
  {
    error: (issue) =>
      issue.code === "unrecognized_keys"
        ? `unknown key(s) ${issue.keys.join(", ")}; allowed: primaryColor, accentColor, font`
        : issue.code === "invalid_type"
          ? "must be an object"
          : undefined,
  },
);
export type DesignParameters = z.infer<typeof designParameters>;

/**
 * The path of a logo uploaded through `POST /staff/branding/logo`. The API serves it and the web
 * app passes it through from its own origin, so pages show it as a same-origin image.
 */
export const uploadedLogoPath =
  /^\/branding\/logos\/[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\/[0-9]{6}\/[A-Za-z0-9_-]{32,64}$/;

const httpsUrl = z.url({ protocol: /^https$/ });

export const designInput = z.object({
  institution_id: requiredText(200),
  /** An https URL, or the `logoUrl` path an upload answered. */
  logo_url: z
    .string({ message: "must be a string" })
    .max(2048, { message: "must be at most 2048 characters" })
    .refine((v) => uploadedLogoPath.test(v) || httpsUrl.safeParse(v).success, {
      message: "must be an https URL (or the logoUrl of an uploaded logo)",
    })
    .nullish(),
  design_parameters: designParameters.default({}),
});
export type DesignInput = z.input<typeof designInput>;

export const designOutput = z.object({ message: z.string() });

/** The organization's default branding: an institution's without the institution. */
export const defaultBrandingInput = designInput.omit({ institution_id: true });
export type DefaultBrandingInput = z.input<typeof defaultBrandingInput>;

/** Branding as the portal applies it (only validated values). */
export const branding = z.object({
  logoUrl: z.string().nullable(),
  primaryColor: z.string().nullable(),
  accentColor: z.string().nullable(),
  font: z.string().nullable(),
});
export type Branding = z.infer<typeof branding>;

// ---------------------------------------------------------------- session verification (A4)

export const verifySessionInput = z.object({
  patient_id: requiredText(200),
  signature_id: requiredText(100),
  session_token: requiredText(8192),
});
export type VerifySessionInput = z.input<typeof verifySessionInput>;

export const verifySessionOutput = z.object({
  valid: z.boolean(),
  redirect_url: z.string().nullable(),
  session_token: z.string(),
});
export type VerifySessionOutput = z.infer<typeof verifySessionOutput>;

// ---------------------------------------------------------------- patient-side procedures (portal)

const secret = z.string().min(16).max(200);

/**
 * `language`: the signing page's language. A request with documents in several languages pins
 * the one in this language when it is first opened (later opens keep that pin).
 */
export const openSigningInput = z.union([
  z.object({ token: secret, language: patientLanguage.optional() }),
  z.object({ ticket: secret, language: patientLanguage.optional() }),
]);
export type OpenSigningInput = z.infer<typeof openSigningInput>;
/**
 * `signing.preview`: the signing link only (an A4 ticket is used up by opening it). `language`:
 * the page's, which picks the document as `signing.open` will (issue 19).
 */
export const previewSigningInput = z.object({ token: secret, language: patientLanguage.optional() });

export const signingState = z.enum([
  /** Ready to sign; `sessionToken` is set. */
  "ready",
  "expired",
  "declined",
  /** Signed; the sealed PDF is still being produced. */
  "sealing",
  "completed",
  /** The assignment is a draft (hidden by the caller). */
  "unavailable",
  /** The organization requires A4 verification: open through the patient portal. */
  "verification_required",
  /** Unknown link, or a used or expired ticket. */
  "unknown",
  /** Several signers, sequential: an earlier signer has not signed yet (`party.waitingFor`). */
  "waiting",
  /** Several signers: this signer signed; others still have to. */
  "signed",
]);
export type SigningState = z.infer<typeof signingState>;

/**
 * The signer's own copy of the sealed PDF (§630e BGB): `preparing` while it is being sealed,
 * `available` until the organization's `signedCopyDays` after signing have passed, then
 * `expired` (the clinic hands it out). Null for requests that were not signed.
 */
export const signedCopyState = z.enum(["preparing", "available", "expired"]);
export type SignedCopyState = z.infer<typeof signedCopyState>;

/**
 * Where the signing page finds the page images: `<url>/<page>-<width>.webp` for each width in
 * `widths`; `pages` gives each page's unrotated size in PDF points and its /Rotate (field
 * rectangles are given on the unrotated page) and the pixel height of each width's image.
 */
export const signingPageImages = z.object({
  url: z.string(),
  widths: z.array(z.number().int()),
  pages: z.array(
    z.object({
      width: z.number(),
      height: z.number(),
      rotate: z.number().int(),
      heights: z.array(z.number().int()),
    }),
  ),
});
export type SigningPageImages = z.infer<typeof signingPageImages>;

/** `signing.pageTexts`: the text of each page of the pinned version, for screen readers and search. */
export const signingPageTexts = z.object({ pages: z.array(z.string()) });
export type SigningPageTexts = z.infer<typeof signingPageTexts>;

export const signingView = z.object({
  state: signingState,
  sessionToken: z.string().nullable(),
  sessionExpiresAt: isoDateTime.nullable(),
  documentTitle: z.string().nullable(),
  documentDescription: z.string().nullable(),
  institutionId: z.string().nullable(),
  /** Who is asking: the page names the organization whatever the branding (null for an unknown link). */
  organizationName: z.string().nullable(),
  branding: branding.nullable(),
  pageCount: z.number().nullable(),
  pageSizes: z.array(z.object({ width: z.number(), height: z.number() })).nullable(),
  fields: z.array(signingFieldRect).nullable(),
  expiresAt: isoDateTime.nullable(),
  signedCopy: signedCopyState.nullable(),
  /** Until when the signed copy can be downloaded through this link (set once signed). */
  signedCopyUntil: isoDateTime.nullable(),
  /**
   * Only for a request with several signers: the signers, their fields and signatures, whose turn
   * it is. `fields` above is then the viewer's own fields.
   */
  party: signingParty.optional(),
  /**
   * The pinned version's pages as images (drawn once per version), so the page needs no pdf.js;
   * null (or absent) while they are being drawn or cannot be: the page then shows the PDF.
   */
  pageImages: signingPageImages.nullable().optional(),
  /**
   * Offline signing (issue 35): the key (32 bytes, base64url) the page encrypts a signature with
   * while it waits on the device for the network. The same for every opening of one signer's
   * link, so what an earlier opening held opens again; only `signing.open` with a pass gives it.
   */
  holdKey: z.string().nullable().optional(),
  /**
   * Until when a signature held on the device may wait for the network (issue 35): past it the
   * device deletes it unsent. A ticket's opening (the desk's tablet, a portal's ticket): the
   * service's `KIOSK_OFFLINE_HOLD_MINUTES`, never past the pass; a signing link: the request's
   * expiry. Null with no key.
   */
  holdUntil: isoDateTime.nullable().optional(),
});
export type SigningView = z.infer<typeof signingView>;

/** `signing.status`: where the request and the signer's copy stand (the page polls it while sealing). */
export const signingStatus = z.object({
  state: signingState,
  signedCopy: signedCopyState.nullable(),
  signedCopyUntil: isoDateTime.nullable(),
  /** As in `signing.open` (several signers only). */
  party: signingParty.optional(),
});
export type SigningStatus = z.infer<typeof signingStatus>;

export const signingSessionInput = z.object({ sessionToken: secret });

export const signingDocument = z.object({
  contentType: z.literal("application/pdf"),
  base64: z.string(),
  sha256: z.string(),
  version: z.number(),
});

/**
 * `signing.signedDocument`: the sealed PDF, the signer's copy (each answer with the PDF is
 * audited as `signature.copy_downloaded`). `state` is the request's state as the portal shows it;
 * `base64`/`sha256` are set only once it is `completed`. After the copy period: 409
 * `signed_copy_expired`.
 */
export const signedSigningDocument = z.object({
  state: signingState,
  contentType: z.literal("application/pdf"),
  base64: z.string().nullable(),
  sha256: z.string().nullable(),
});
export type SignedSigningDocument = z.infer<typeof signedSigningDocument>;

export const signInput = z.object({
  sessionToken: secret,
  consent: z.literal(true, { message: "consent is required to sign" }),
  signature: signatureInput,
  /** The language of the page the patient signed on: the sealed PDF's audit page is written in it. */
  language: patientLanguage.optional(),
  /**
   * Signed offline (issue 35): when the patient signed, by the device's clock, the signature held
   * on the device and sent once the network returned. Recorded as the device's claim beside the
   * arrival, which stays the signing time the seal's time stamp vouches for.
   */
  signedOnDeviceAt: isoDateTime.optional(),
  /** Made once per signing on the device: a resend of the same signing after a lost answer is told it was signed. */
  actionId: z.uuid().optional(),
});
export type SignInput = z.input<typeof signInput>;

/** `signed`: several signers, and others still have to sign. */
export const signResult = z.object({ state: z.enum(["sealing", "completed", "signed"]) });

export const declineInput = z.object({
  sessionToken: secret,
  reason: z.string().trim().max(1000, { message: "must be at most 1000 characters" }).optional(),
});
export const declineResult = z.object({ state: z.literal("declined") });
