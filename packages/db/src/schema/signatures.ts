import { randomUUID } from "node:crypto";
import { sql } from "drizzle-orm";
import {
  boolean,
  index,
  integer,
  jsonb,
  pgTable,
  primaryKey,
  text,
  timestamp,
  unique,
  uniqueIndex,
  uuid,
} from "drizzle-orm/pg-core";
import { institutions, organizations, users } from "./core";

const id = () =>
  uuid("id")
    .primaryKey()
    .$defaultFn(() => randomUUID());
const at = (name: string) => timestamp(name, { withTimezone: true, mode: "date" });
const createdAt = () => at("created_at").notNull().defaultNow();
const organizationId = () =>
  uuid("organization_id")
    .notNull()
    .references(() => organizations.id, { onDelete: "cascade" });

/** A signature field: PDF points, origin at the page's top-left corner, page counted from 1. */
export interface SignatureFieldRect {
  page: number;
  x: number;
  y: number;
  width: number;
  height: number;
  /**
   * Who signs this field (several signers, issue 20): `patient` (also when absent, as in every
   * row written before), `legal_representative`, `witness`, `interpreter`, `physician`, or a name
   * the clinic chose. Stored only when the caller sent it, so older answers echo what they sent.
   */
  role?: string;
  /** Whether the request can be sealed without this field signed; absent = true. */
  required?: boolean;
}

export type DocumentAvailability = "draft" | "active" | "inactive";
/** v3-Confidentiality: normal, restricted, very restricted (the contracts' `confidentiality`). */
export type DocumentConfidentiality = "N" | "R" | "V";
/** The patient languages (contracts' language-list.ts), which a document version may be written in. */
export type DocumentLanguage = "de" | "en" | "tr" | "ar" | "ru" | "uk" | "pl";

/** A registered PDF (A6). Its content and field definitions live in versions. */
export const documents = pgTable(
  "documents",
  {
    id: id(),
    organizationId: organizationId(),
    name: text("name").notNull(),
    accountName: text("account_name"),
    /** The URL the caller registered the PDF from (A6 echoes it); patients never see it. */
    sourceUrl: text("source_url").notNull(),
    availability: text("availability").$type<DocumentAvailability>().notNull().default("active"),
    currentVersion: integer("current_version").notNull().default(1),
    /** The KDL type staff chose for the hospital's filing (issue 34); null: the default, AM050199. */
    kdlType: text("kdl_type"),
    /** v3-Confidentiality of the sealed PDFs: N, R or V (issue 34). */
    confidentiality: text("confidentiality").$type<DocumentConfidentiality>().notNull().default("N"),
    createdAt: createdAt(),
    updatedAt: at("updated_at").notNull().defaultNow(),
  },
  (t) => [index("documents_org_created_idx").on(t.organizationId, t.createdAt)],
);

/** One version of a document (A6 creates 1, A8 adds the next). Bytes are in file storage. */
export const documentVersions = pgTable(
  "document_versions",
  {
    id: id(),
    organizationId: organizationId(),
    documentId: uuid("document_id")
      .notNull()
      .references(() => documents.id, { onDelete: "cascade" }),
    version: integer("version").notNull(),
    title: text("title").notNull(),
    description: text("description"),
    fields: jsonb("fields").$type<SignatureFieldRect[]>().notNull(),
    storageKey: text("storage_key").notNull(),
    sha256: text("sha256").notNull(),
    size: integer("size").notNull(),
    pageCount: integer("page_count").notNull(),
    /** Width and height of every page in points, in page order. */
    pageSizes: jsonb("page_sizes").$type<{ width: number; height: number }[]>().notNull(),
    /**
     * The language the version is written in (issue 19: de, en, tr, ar, ru, uk, pl), as A6, A8 or
     * the console named it; null: not named. Shown to staff and on the sealed PDF's audit page.
     */
    language: text("language").$type<DocumentLanguage>(),
    createdAt: createdAt(),
  },
  (t) => [uniqueIndex("document_versions_doc_version_uq").on(t.documentId, t.version)],
);

export type AssignmentVisibility = "draft" | "active";
/**
 * `sealing`: the patient signed; the stamped and sealed PDF is still being produced (retried
 * by a job until it succeeds). It becomes `completed` once the signed PDF is stored.
 */
/** PAdES baseline levels (ETSI EN 319 142-1): B-B signature only, B-T with trusted time, B-LT with validation data, B-LTA with a document time stamp. */
export type PadesLevel = "B-B" | "B-T" | "B-LT" | "B-LTA";

export type SignatureRequestStatus = "pending" | "opened" | "sealing" | "completed" | "declined" | "expired";

/** A signature request (A1) = an assignment (A7); its id is the `signature_id`. */
export const signatureRequests = pgTable(
  "signature_requests",
  {
    id: id(),
    organizationId: organizationId(),
    documentId: uuid("document_id")
      .notNull()
      .references(() => documents.id, { onDelete: "restrict" }),
    /** Null while the request follows the newest document version; set when the patient opens it. */
    pinnedVersion: integer("pinned_version"),
    /**
     * Documents in the patient's language (issue 19), A1's `documents_by_language`: language →
     * document id of this organization; null: only `document_id`. Single-signer requests only.
     */
    documentsByLanguage: jsonb("documents_by_language").$type<Partial<Record<DocumentLanguage, string>>>(),
    /**
     * The document `pinnedVersion` belongs to, set with it when the patient opens the request:
     * `document_id` or the one of `documents_by_language` for the page's language. Null while
     * pending (and on rows pinned before this column: read as `document_id`). Every reader goes
     * through `pinnedDocumentIdOf` (core/signatures/requests.ts).
     */
    pinnedDocumentId: uuid("pinned_document_id").references(() => documents.id, { onDelete: "restrict" }),
    patientId: text("patient_id").notNull(),
    institutionId: uuid("institution_id")
      .notNull()
      .references(() => institutions.id, { onDelete: "restrict" }),
    /** The caller's own institution identifier, as sent. */
    institutionExternalId: text("institution_external_id").notNull(),
    orderBy: text("order_by").notNull(),
    expiresAt: at("expires_at").notNull(),
    visibility: text("visibility").$type<AssignmentVisibility>().notNull().default("active"),
    status: text("status").$type<SignatureRequestStatus>().notNull().default("pending"),
    /** Replaces the signing link in A2 when set (A7 `assigment_url`). */
    assignmentUrl: text("assignment_url"),
    /** SHA-256 of the signing-link token: the lookup key. */
    tokenHash: text("token_hash").notNull(),
    /** The token itself, encrypted with the service key, so A2 can show the link again. */
    tokenEnc: text("token_enc").notNull(),
    openedAt: at("opened_at"),
    signedAt: at("signed_at"),
    /**
     * Signed offline (issue 35): when the patient signed on the device, by the device's own clock,
     * held there and sent when the network returned. A claim beside `signed_at`, the arrival.
     */
    signedOnDeviceAt: at("signed_on_device_at"),
    /**
     * When staff last handed a device over for this request ("Sign at this device"): until the
     * request moves on, staff read "waiting for the device" (it may hold a signature made offline).
     */
    kioskStartedAt: at("kiosk_started_at"),
    completedAt: at("completed_at"),
    declinedAt: at("declined_at"),
    declineReason: text("decline_reason"),
    /** The patient's mobile number (E.164) for reminders; without one no reminder can be sent. */
    patientPhone: text("patient_phone"),
    /** Days after which the signer is reminded; null follows the organization's setting, 0 = none. */
    reminderDays: integer("reminder_days"),
    expiredAt: at("expired_at"),
    /**
     * Several signers (issue 20): `sequential` (each signer after the one before, in position
     * order) or `parallel`. Only meaningful for requests with `signature_signers` rows; the
     * one-patient requests of A1 have none and keep their columns below as the signer's.
     */
    signingOrder: text("signing_order").$type<SigningOrder>().notNull().default("sequential"),
    /** The role whose signer declined (several signers); null for one-patient requests. */
    declinedRole: text("declined_role"),
    /** drawn (PNG from the signature pad) or typed (name rendered by the service). */
    signatureMethod: text("signature_method").$type<"drawn" | "typed">(),
    signatureImageKey: text("signature_image_key"),
    typedName: text("typed_name"),
    /**
     * The language of the portal the patient signed in (de, en, tr, ar, ru, uk, pl), as the signing
     * page sent it; the sealed PDF's audit page is written in it. Null: not sent (older clients,
     * staff) — the page is in the organization's language.
     */
    signingLanguage: text("signing_language").$type<"de" | "en" | "tr" | "ar" | "ru" | "uk" | "pl">(),
    signerIp: text("signer_ip"),
    signerUserAgent: text("signer_user_agent"),
    originalSha256: text("original_sha256"),
    stampedKey: text("stamped_key"),
    stampedSha256: text("stamped_sha256"),
    signedPdfKey: text("signed_pdf_key"),
    signedPdfSha256: text("signed_pdf_sha256"),
    metadataKey: text("metadata_key"),
    metadataSha256: text("metadata_sha256"),
    /**
     * SHA-256 (hex) of the byte ranges the seal signs (the CMS message digest), so `/verify` can
     * tell which request a dropped PDF belongs to without storing or comparing the whole file.
     */
    sealedContentSha256: text("sealed_content_sha256"),
    sealAttempts: integer("seal_attempts").notNull().default(0),
    sealError: text("seal_error"),
    /**
     * Set when the seal job gave up (its attempts are used up); the request stays `sealing`, and
     * staff see it as `failed` until "seal again" (which clears it) or a late success.
     */
    sealFailedAt: at("seal_failed_at"),
    /** The PAdES baseline level the stored signed PDF reaches (docs/signatures.md, "Long-term signatures"). */
    sealLevel: text("seal_level").$type<PadesLevel>(),
    /** genTime of the signature time stamp (B-T and up): the trusted time of the seal. */
    timestampedAt: at("timestamped_at"),
    /**
     * When the certificate of the newest time stamp in the signed PDF expires (B-LTA): the
     * re-time-stamp job adds a new document time stamp before then.
     */
    timestampExpiresAt: at("timestamp_expires_at"),
    createdAt: createdAt(),
    updatedAt: at("updated_at").notNull().defaultNow(),
  },
  (t) => [
    uniqueIndex("signature_requests_token_uq").on(t.tokenHash),
    // The staff list reads (created_at, id) pages under each filter: one index per filter, each
    // ending in the sort key, so every page is one range scan without a sort (see core/signatures/request-list.ts).
    index("signature_requests_org_created_idx").on(t.organizationId, t.createdAt, t.id),
    index("signature_requests_org_patient_idx").on(t.organizationId, t.patientId, t.createdAt, t.id),
    index("signature_requests_org_document_idx").on(t.organizationId, t.documentId, t.createdAt, t.id),
    // A9 and the documents' request counts look requests up by the document they pinned.
    index("signature_requests_pinned_document_idx")
      .on(t.organizationId, t.pinnedDocumentId)
      .where(sql`${t.pinnedDocumentId} is not null`),
    index("signature_requests_org_status_idx").on(t.organizationId, t.status, t.createdAt, t.id),
    index("signature_requests_org_institution_idx").on(t.organizationId, t.institutionExternalId, t.createdAt, t.id),
    index("signature_requests_org_visibility_idx").on(t.organizationId, t.visibility, t.createdAt, t.id),
    index("signature_requests_status_expiry_idx").on(t.status, t.expiresAt),
    index("signature_requests_timestamp_expiry_idx")
      .on(t.timestampExpiresAt)
      .where(sql`${t.timestampExpiresAt} is not null`),
    index("signature_requests_sealed_content_idx").on(t.sealedContentSha256),
  ],
);

export type SigningOrder = "sequential" | "parallel";
/** How a signer is reached: the request's patient (A1's link, A4), an own signing link, or a staff user in the console. */
export type SignerKind = "patient" | "link" | "staff";
/**
 * `waiting`: sequential order, an earlier signer has not signed yet; `pending`: it is their turn;
 * `opened`: they opened their link; `signed`; `declined` (the request stops); `skipped`: an
 * optional signer who had not signed when the request was sealed.
 */
export type SignerStatus = "waiting" | "pending" | "opened" | "signed" | "declined" | "skipped";

/**
 * One signer of a request with several signers (issue 20): one row per role of the pinned
 * document version. Requests whose version has only patient fields and that named no signers
 * (every A1 of the interface document) have no rows here and behave exactly as before.
 */
export const signatureSigners = pgTable(
  "signature_signers",
  {
    id: id(),
    organizationId: organizationId(),
    signatureRequestId: uuid("signature_request_id")
      .notNull()
      .references(() => signatureRequests.id, { onDelete: "cascade" }),
    role: text("role").notNull(),
    /** 0-based place in the signing order. */
    position: integer("position").notNull(),
    kind: text("kind").$type<SignerKind>().notNull(),
    /** Whether sealing waits for this signer (any required field of the role). */
    required: boolean("required").notNull().default(true),
    /** kind `staff`: the one staff user who may sign this role. */
    staffUserId: uuid("staff_user_id").references(() => users.id, { onDelete: "restrict" }),
    /** The signer's name as staff entered it (kind `link`), for the console and the audit page. */
    name: text("name"),
    /** kind `link`: SHA-256 of the signer's own signing-link token (the lookup key). */
    tokenHash: text("token_hash"),
    /** kind `link`: the token, encrypted with the service key, so staff can hand the link out again. */
    tokenEnc: text("token_enc"),
    /** kind `link`: mobile number (E.164) for reminders. */
    phone: text("phone"),
    status: text("status").$type<SignerStatus>().notNull(),
    /** When it became this signer's turn (reminders count from here). */
    activatedAt: at("activated_at"),
    openedAt: at("opened_at"),
    signedAt: at("signed_at"),
    /** Signed offline: the device's time of the signature (see signature_requests.signed_on_device_at). */
    signedOnDeviceAt: at("signed_on_device_at"),
    signatureMethod: text("signature_method").$type<"drawn" | "typed">(),
    signatureImageKey: text("signature_image_key"),
    typedName: text("typed_name"),
    /** The portal language this signer signed in (see signature_requests.signing_language). */
    signingLanguage: text("signing_language").$type<"de" | "en" | "tr" | "ar" | "ru" | "uk" | "pl">(),
    ip: text("ip"),
    userAgent: text("user_agent"),
    declinedAt: at("declined_at"),
    declineReason: text("decline_reason"),
    createdAt: createdAt(),
    updatedAt: at("updated_at").notNull().defaultNow(),
  },
  (t) => [
    uniqueIndex("signature_signers_request_role_uq").on(t.signatureRequestId, t.role),
    uniqueIndex("signature_signers_token_uq").on(t.tokenHash),
    index("signature_signers_org_request_idx").on(t.organizationId, t.signatureRequestId, t.position),
    index("signature_signers_org_staff_idx").on(t.organizationId, t.staffUserId, t.status),
  ],
);

export type SignatureNoticeKind = "reminder" | "expired" | "declined";
/** `cancelled`: the request was signed, declined or expired before its reminder went out. */
export type SignatureNoticeStatus = "queued" | "sent" | "no_channel" | "cancelled";
export type SignatureNoticeChannel = "sms" | "email" | "none";

/**
 * A reminder to a signer, or a notice to staff that a request expired or was declined: one row per
 * (request, kind, signer, sequence), written with its job in one transaction. The unique key is
 * what makes each notice happen once however many API processes sweep at the same time.
 * `signerId` stays null for the one-signer requests of today (the patient); a later signer table
 * can name its signer here without changing the key.
 */
export const signatureNotices = pgTable(
  "signature_notices",
  {
    id: id(),
    organizationId: organizationId(),
    signatureRequestId: uuid("signature_request_id")
      .notNull()
      .references(() => signatureRequests.id, { onDelete: "cascade" }),
    kind: text("kind").$type<SignatureNoticeKind>().notNull(),
    signerId: uuid("signer_id"),
    /** The reminder's number (1 = first); 1 for staff notices. */
    sequence: integer("sequence").notNull().default(1),
    status: text("status").$type<SignatureNoticeStatus>().notNull().default("queued"),
    channel: text("channel").$type<SignatureNoticeChannel>(),
    /** The outbox message (messages.id) that carries it, once queued for delivery. */
    messageId: uuid("message_id"),
    createdAt: createdAt(),
    handledAt: at("handled_at"),
  },
  (t) => [
    unique("signature_notices_once_uq").on(t.signatureRequestId, t.kind, t.signerId, t.sequence).nullsNotDistinct(),
    index("signature_notices_org_request_idx").on(t.organizationId, t.signatureRequestId),
  ],
);

/**
 * An organization's own sealing identity (its PKCS#12, uploaded by an admin): sealed documents
 * carry its name instead of the environment's certificate. The key and chain are kept only
 * SecretBox-sealed (`identityEnc`: JSON of a PKCS#8 key PEM and the chain's PEMs); the P12's
 * password is used once at upload and never stored. The other columns are what the settings page
 * and `/verify` show and look up, none of them secret.
 */
export const organizationSeals = pgTable(
  "organization_seals",
  {
    organizationId: uuid("organization_id")
      .primaryKey()
      .references(() => organizations.id, { onDelete: "cascade" }),
    identityEnc: text("identity_enc").notNull(),
    /** SHA-256 (hex) of the signing certificate's DER. */
    fingerprint: text("fingerprint").notNull(),
    subject: text("subject").notNull(),
    issuer: text("issuer").notNull(),
    notBefore: at("not_before").notNull(),
    notAfter: at("not_after").notNull(),
    /** The chain as shown: signing certificate first. */
    chain: jsonb("chain")
      .$type<{ subject: string; issuer: string; notBefore: string; notAfter: string; fingerprint: string }[]>()
      .notNull(),
    uploadedBy: uuid("uploaded_by"),
    createdAt: createdAt(),
  },
  (t) => [index("organization_seals_fingerprint_idx").on(t.fingerprint)],
);

/**
 * One-time tickets from A4 (valid 5 minutes) and signing sessions (what the portal page keeps
 * after opening a link or exchanging a ticket). Only SHA-256 hashes of the secrets are stored.
 */
export const signingCredentials = pgTable(
  "signing_credentials",
  {
    id: id(),
    organizationId: organizationId(),
    signatureRequestId: uuid("request_id")
      .notNull()
      .references(() => signatureRequests.id, { onDelete: "cascade" }),
    kind: text("kind").$type<"ticket" | "session">().notNull(),
    /** The signer (several signers) this credential acts as; null = the request's patient. */
    signerId: uuid("signer_id"),
    secretHash: text("secret_hash").notNull(),
    expiresAt: at("expires_at").notNull(),
    usedAt: at("used_at"),
    ip: text("ip"),
    userAgent: text("user_agent"),
    createdAt: createdAt(),
  },
  (t) => [
    uniqueIndex("signing_credentials_hash_uq").on(t.secretHash),
    index("signing_credentials_request_idx").on(t.signatureRequestId),
  ],
);

/** `jti` values of session tokens already accepted by A4, kept until the token would expire. */
export const usedSessionJtis = pgTable(
  "used_session_jtis",
  {
    organizationId: organizationId(),
    jti: text("jti").notNull(),
    expiresAt: at("expires_at").notNull(),
    createdAt: createdAt(),
  },
  (t) => [primaryKey({ columns: [t.organizationId, t.jti] })],
);

/**
 * The organization's default branding: what institutions without their own (A5) show, and what
 * the form pages show. The same validated values as an institution's.
 */
export const organizationBranding = pgTable(
  "organization_branding",
  {
    id: id(),
    organizationId: organizationId(),
    logoUrl: text("logo_url"),
    primaryColor: text("primary_color"),
    accentColor: text("accent_color"),
    font: text("font"),
    createdAt: createdAt(),
    updatedAt: at("updated_at").notNull().defaultNow(),
  },
  (t) => [uniqueIndex("organization_branding_org_uq").on(t.organizationId)],
);

/** Portal branding of one institution (A5); values are validated so they are safe in CSS. */
export const institutionBranding = pgTable(
  "institution_branding",
  {
    id: id(),
    organizationId: organizationId(),
    institutionId: uuid("institution_id")
      .notNull()
      .references(() => institutions.id, { onDelete: "cascade" }),
    logoUrl: text("logo_url"),
    primaryColor: text("primary_color"),
    accentColor: text("accent_color"),
    font: text("font"),
    createdAt: createdAt(),
    updatedAt: at("updated_at").notNull().defaultNow(),
  },
  (t) => [
    uniqueIndex("institution_branding_institution_uq").on(t.institutionId),
    // The staff branding list: most recently changed first.
    index("institution_branding_org_updated_idx").on(t.organizationId, t.updatedAt, t.id),
  ],
);
