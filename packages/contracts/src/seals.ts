import { z } from "zod";

/** Why an uploaded PKCS#12 was refused (details.reason; the settings page words each one). */
export const sealRefusalReasons = [
  "not_pkcs12",
  "wrong_password",
  "no_private_key",
  "unsupported_key",
  "key_mismatch",
  "expired",
  "not_yet_valid",
  "ca_certificate",
  "key_usage",
  "extended_key_usage",
  /** The file's MAC or encryption asks for more key-derivation iterations than SEAL_P12_MAX_ITERATIONS. */
  "iteration_count",
  /** Opening the file took longer than SEAL_P12_TIMEOUT_SECONDS. */
  "open_timeout",
] as const;
export type SealRefusalReason = (typeof sealRefusalReasons)[number];

/** A PKCS#12 file is a few kilobytes; 256 KB of base64 leaves room for long chains. */
export const MAX_SEAL_P12_BASE64 = 256 * 1024;

export const uploadOrganizationSealInput = z.object({
  /** The PKCS#12 (.p12/.pfx) file, base64. */
  p12Base64: z.string().min(1).max(MAX_SEAL_P12_BASE64),
  /** Opens the file once; never stored. */
  password: z.string().max(1000),
});
export type UploadOrganizationSealInput = z.input<typeof uploadOrganizationSealInput>;

export const sealCertificate = z.object({
  subject: z.string(),
  issuer: z.string(),
  notBefore: z.string(),
  notAfter: z.string(),
  /** SHA-256 of the certificate's DER, hex. */
  fingerprint: z.string(),
});
export type SealCertificate = z.infer<typeof sealCertificate>;

/** Days before expiry from which the settings page warns. */
export const SEAL_EXPIRY_WARNING_DAYS = 60;

export const organizationSeal = z.object({
  /** The organization's own identity, or null: documents are sealed with the service's default. */
  own: z
    .object({
      certificate: sealCertificate,
      /** Signing certificate first. */
      chain: z.array(sealCertificate),
      uploadedAt: z.string(),
      daysLeft: z.number().int(),
      expiresSoon: z.boolean(),
      expired: z.boolean(),
    })
    .nullable(),
  /** The service's certificate (SIGNING_P12_FILE or the development certificate). */
  default: z.object({ subject: z.string(), fingerprint: z.string(), development: z.boolean() }),
});
export type OrganizationSeal = z.infer<typeof organizationSeal>;

// ---------------------------------------------------------------- verify

export const padesLevels = ["B-B", "B-T", "B-LT", "B-LTA"] as const;

/** What a PDF's incremental updates after the seal add (not DSS or document timestamps). */
export const verifyChanges = z.object({
  pagesAdded: z.number().int(),
  pagesRemoved: z.number().int(),
  annotationsAdded: z.number().int(),
  formFieldsAdded: z.number().int(),
  signaturesAdded: z.number().int(),
  /** Objects changed or added that none of the counts above explain. */
  otherObjectsChanged: z.number().int(),
});
export type VerifyChanges = z.infer<typeof verifyChanges>;

export const verifyResult = z.object({
  /** `sealed`: it carries a PDF signature; `unsigned`: it is a PDF without one. */
  status: z.enum(["sealed", "unsigned"]),
  /** The signing certificate is this service's (environment, development or an organization's), or the fingerprint lookup found its request. */
  sealedByThisService: z.boolean(),
  /** Byte range covers the file (except the signature and later DSS/timestamp updates), digest matches and the CMS signature verifies. */
  intact: z.boolean(),
  /** Bytes inside the signed range changed: the digest or the signature does not match. */
  modifiedAfterSealing: z.boolean(),
  /** The file was extended after the seal by updates other than DSS or document timestamps. */
  updatedAfterSealing: z.boolean(),
  changes: verifyChanges.nullable(),
  signer: z.object({ subject: z.string(), issuer: z.string(), fingerprint: z.string() }).nullable(),
  /**
   * When it was sealed: `timestamp` is an RFC 3161 genTime (signature timestamp or document
   * timestamp), `claimed` the signer's own signingTime claim (CMS attribute or the signature
   * dictionary's /M), `null` when the file says neither.
   */
  sealedAt: z
    .object({ at: z.string(), source: z.enum(["signature_timestamp", "document_timestamp", "claimed"]) })
    .nullable(),
  padesLevel: z.enum(padesLevels).nullable(),
  /** The request it belongs to, as its metadata JSON shows it. */
  request: z
    .object({
      signatureId: z.string(),
      documentId: z.string(),
      documentVersion: z.number().int(),
      completedAt: z.string().nullable(),
    })
    .nullable(),
  signatureCount: z.number().int(),
});
export type VerifyResult = z.infer<typeof verifyResult>;

/** `/verify`'s input as the REST door hands it on: the PDF's bytes. */
export const verifyPdfInput = z.object({ pdf: z.instanceof(Uint8Array, { message: "send a PDF file" }) });
