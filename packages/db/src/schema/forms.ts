import { randomUUID } from "node:crypto";
import { sql } from "drizzle-orm";
import {
  bigint,
  boolean,
  index,
  integer,
  jsonb,
  pgTable,
  text,
  timestamp,
  uniqueIndex,
  uuid,
} from "drizzle-orm/pg-core";
import { institutions, organizations } from "./core";

// Area B: embed sessions, drafts, submissions, uploads, webhooks, form requests by SMS, messages.

const id = () =>
  uuid("id")
    .primaryKey()
    .$defaultFn(() => randomUUID());
const ts = (name: string) => timestamp(name, { withTimezone: true, mode: "date" });
const createdAt = () => ts("created_at").notNull().defaultNow();
const organizationId = () =>
  uuid("organization_id")
    .notNull()
    .references(() => organizations.id, { onDelete: "cascade" });

/** The `config` of an embed session (POST /api/embed/sessions). */
export interface FormSessionConfig {
  webhookUrl?: string;
  draftKey?: string;
  redirectUrl?: string;
  emailTo?: string[];
  emailSubject?: string;
  rnummer?: string;
  phone?: string;
  prefill?: Record<string, unknown>;
  /** Origins (`https://host[:port]`) whose pages may frame the embedded form and get its events. */
  allowedOrigins?: string[];
  /** The caller's `institution_id` whose branding the form page shows (validated on creation). */
  institutionId?: string;
  /** The language the form opens in (a patient language); the patient may still switch. */
  language?: string;
  /** A visitor's session of a public embed: how its browser may keep and offer the unfinished form. */
  visitor?: VisitorPolicy;
}

/**
 * How a public embed treats the browser a visitor fills the form in (issue 31: a waiting-room
 * tablet is the next patient's too). `fresh` (the default): every visit starts empty, nothing is
 * kept in the browser. `resume`: the browser keeps the visitor's session and offers to continue
 * (the visitor's choice, naming only the form and when), or to start over. `shared_device`: like
 * fresh, and the form also empties after `idleMinutes` without activity.
 */
export type VisitorMode = "fresh" | "resume" | "shared_device";
export interface VisitorPolicy {
  mode: VisitorMode;
  idleMinutes: number;
}

/**
 * A template's public embed: the permanent code a clinic pastes on its website. Anyone may fill
 * the form, so the code is no credential to anyone's answers: every visitor's browser starts an
 * embed session of its own from it (`public_embed_id` below), and only pages on
 * `allowed_origins` may frame it. One per template; turning it off ends every visitor's session.
 */
export const publicEmbeds = pgTable(
  "public_embeds",
  {
    id: id(),
    organizationId: organizationId(),
    templateIdentifier: text("template_identifier").notNull(),
    code: text("code").notNull(),
    allowedOrigins: jsonb("allowed_origins").$type<string[]>().notNull().default([]),
    enabled: boolean("enabled").notNull().default(true),
    visitorMode: text("visitor_mode").$type<VisitorMode>().notNull().default("fresh"),
    /** Shared devices: minutes without activity after which the form empties itself. */
    idleMinutes: integer("idle_minutes").notNull().default(5),
    createdAt: createdAt(),
    updatedAt: ts("updated_at").notNull().defaultNow(),
  },
  (t) => [
    uniqueIndex("public_embeds_code_uq").on(t.code),
    uniqueIndex("public_embeds_org_template_uq").on(t.organizationId, t.templateIdentifier),
  ],
);

/**
 * A bearer credential for one template; only the SHA-256 of the sessionId is stored. A personal
 * session (staff or a hospital system made it for one patient) has no `public_embed_id`; a
 * visitor's session started from a public embed has one.
 */
export const formSessions = pgTable(
  "form_sessions",
  {
    id: id(),
    organizationId: organizationId(),
    templateIdentifier: text("template_identifier").notNull(),
    tokenHash: text("token_hash").notNull(),
    config: jsonb("config").$type<FormSessionConfig>().notNull().default({}),
    publicEmbedId: uuid("public_embed_id").references(() => publicEmbeds.id, { onDelete: "cascade" }),
    expiresAt: ts("expires_at").notNull(),
    createdAt: createdAt(),
  },
  (t) => [
    uniqueIndex("form_sessions_hash_uq").on(t.tokenHash),
    index("form_sessions_org_idx").on(t.organizationId, t.createdAt),
    // The console's personal links of a template, newest first (keyset pages).
    index("form_sessions_personal_idx")
      .on(t.organizationId, t.templateIdentifier, t.createdAt, t.id)
      .where(sql`${t.publicEmbedId} is null`),
    index("form_sessions_public_embed_idx")
      .on(t.publicEmbedId)
      .where(sql`${t.publicEmbedId} is not null`),
  ],
);

/** One draft per (organization, template, draftKey); values are merged with `||` in the database. */
export const drafts = pgTable(
  "drafts",
  {
    id: id(),
    organizationId: organizationId(),
    templateIdentifier: text("template_identifier").notNull(),
    draftKey: text("draft_key").notNull(),
    values: jsonb("values").$type<Record<string, unknown>>().notNull(),
    /** The language the patient last chose for this draft; null: not chosen yet. */
    language: text("language"),
    createdAt: createdAt(),
    updatedAt: ts("updated_at").notNull().defaultNow(),
  },
  (t) => [uniqueIndex("drafts_org_template_key_uq").on(t.organizationId, t.templateIdentifier, t.draftKey)],
);

/** A submitted form; keeps its own copy of the template so deleting the template keeps it readable. */
export const submissions = pgTable(
  "submissions",
  {
    id: id(),
    organizationId: organizationId(),
    templateIdentifier: text("template_identifier").notNull(),
    templateTitle: text("template_title").notNull(),
    templateSchema: jsonb("template_schema").$type<{ version: number; fields: unknown[] }>().notNull(),
    values: jsonb("values").$type<Record<string, unknown>>().notNull(),
    rnummer: text("rnummer"),
    phone: text("phone"),
    /**
     * True when the browser of an embed session that did not pin it (or a public embed's visitor)
     * named the rnummer: kept, but the service does not vouch for it (issue 32).
     */
    rnummerPatientReported: boolean("rnummer_patient_reported").notNull().default(false),
    /** The same for `phone`. */
    phonePatientReported: boolean("phone_patient_reported").notNull().default(false),
    actorType: text("actor_type").notNull(),
    actorId: text("actor_id"),
    formRequestId: uuid("form_request_id"),
    /** The language the patient answered in (the form content they read); null before issue 19. */
    language: text("language"),
    /** The template's default language and translations when it was submitted (with `template_schema`). */
    templateLanguage: text("template_language"),
    templateTranslations: jsonb("template_translations").$type<Record<string, unknown>>(),
    /**
     * The page's id of this submission (issue 35): a resend after a lost answer carries the same
     * one and is answered with this submission instead of making a second.
     */
    clientActionId: text("client_action_id"),
    createdAt: createdAt(),
    /**
     * Insertion order: breaks ties of `created_at` (rows of one transaction, or of one
     * millisecond where the clock has no finer grain) in creation order, not by a random id.
     */
    seq: bigint("seq", { mode: "number" }).generatedAlwaysAsIdentity().notNull(),
  },
  // The staff list and its exports page by one total order, the keyset (created_at, seq), under each filter.
  (t) => [
    index("submissions_org_created_idx").on(t.organizationId, t.createdAt, t.seq),
    index("submissions_org_template_idx").on(t.organizationId, t.templateIdentifier, t.createdAt, t.seq),
    index("submissions_org_rnummer_idx").on(t.organizationId, t.rnummer, t.createdAt, t.seq),
    // Only the submissions the form pages made carry one (F10 through the REST door does not).
    uniqueIndex("submissions_org_client_action_uq")
      .on(t.organizationId, t.clientActionId)
      .where(sql`${t.clientActionId} is not null`),
  ],
);

/** A file uploaded for a form; the bytes live in private storage under `storageKey`. */
export const formUploads = pgTable(
  "form_uploads",
  {
    id: id(),
    organizationId: organizationId(),
    templateIdentifier: text("template_identifier").notNull(),
    fieldKey: text("field_key"),
    storageKey: text("storage_key").notNull(),
    name: text("name").notNull(),
    size: integer("size").notNull(),
    type: text("type").notNull(),
    sha256: text("sha256").notNull(),
    /**
     * The browser credential that uploaded it (`session:<id>` or `portal:<formRequestId>`), whose
     * uploads together are capped; null for organization credentials.
     */
    uploaderKey: text("uploader_key"),
    /** Set when the orphan sweep claimed the upload for deletion (core/jobs/upload-sweeper.ts). */
    deletingSince: ts("deleting_since"),
    /** Set when the orphan sweep found a submission referencing the upload: it is kept for good. */
    keptAt: ts("kept_at"),
    createdAt: createdAt(),
  },
  (t) => [
    uniqueIndex("form_uploads_key_uq").on(t.storageKey),
    index("form_uploads_org_template_idx").on(t.organizationId, t.templateIdentifier),
    index("form_uploads_uploader_idx").on(t.uploaderKey),
    // The orphan sweep's candidates: uploads not yet found referenced, oldest first.
    index("form_uploads_sweep_idx")
      .on(t.createdAt)
      .where(sql`${t.keptAt} is null`),
  ],
);

export type WebhookDeliveryStatus = "pending" | "delivered" | "failed";

/**
 * One event for one URL. `body` is the exact raw JSON that is signed and sent on every attempt;
 * the row id is the Standard Webhooks `webhook-id`, stable across retries.
 */
export const webhookDeliveries = pgTable(
  "webhook_deliveries",
  {
    id: id(),
    organizationId: organizationId(),
    eventType: text("event_type").notNull(),
    templateIdentifier: text("template_identifier"),
    url: text("url").notNull(),
    body: text("body").notNull(),
    status: text("status").$type<WebhookDeliveryStatus>().notNull().default("pending"),
    attempts: integer("attempts").notNull().default(0),
    jobId: uuid("job_id"),
    createdAt: createdAt(),
    updatedAt: ts("updated_at").notNull().defaultNow(),
  },
  (t) => [index("webhook_deliveries_org_created_idx").on(t.organizationId, t.createdAt)],
);

/** The webhook log (F12): one row per delivery attempt. */
export const webhookAttempts = pgTable(
  "webhook_attempts",
  {
    id: id(),
    organizationId: organizationId(),
    deliveryId: uuid("delivery_id")
      .notNull()
      .references(() => webhookDeliveries.id, { onDelete: "cascade" }),
    eventType: text("event_type").notNull(),
    templateIdentifier: text("template_identifier"),
    webhookUrl: text("webhook_url").notNull(),
    attempt: integer("attempt").notNull(),
    delivered: boolean("delivered").notNull(),
    statusCode: integer("status_code"),
    errorMessage: text("error_message"),
    durationMs: integer("duration_ms").notNull(),
    createdAt: createdAt(),
  },
  (t) => [
    index("webhook_attempts_org_created_idx").on(t.organizationId, t.createdAt),
    index("webhook_attempts_org_event_idx").on(t.organizationId, t.eventType, t.createdAt),
    index("webhook_attempts_org_template_idx").on(t.organizationId, t.templateIdentifier, t.createdAt),
    index("webhook_attempts_delivery_idx").on(t.deliveryId),
  ],
);

/** `cancelled`: staff ended the request; its link no longer opens (expires_at is set to the cancel time). */
export type FormRequestStatus = "sent" | "opened" | "verified" | "submitted" | "locked" | "cancelled";

/** An SMS-initiated form process (F1). Link and access tokens are stored as SHA-256 only. */
export const formRequests = pgTable(
  "form_requests",
  {
    id: id(),
    organizationId: organizationId(),
    templateIdentifier: text("template_identifier").notNull(),
    rnummer: text("rnummer").notNull(),
    phone: text("phone").notNull(),
    smsFrom: text("sms_from"),
    emailTo: jsonb("email_to").$type<string[]>().notNull().default([]),
    emailSubject: text("email_subject"),
    /** The institution whose branding the portal shows; the organization's default when null. */
    institutionId: uuid("institution_id").references(() => institutions.id, { onDelete: "set null" }),
    /**
     * The patient's language: the form opens in it, and the SMS texts (link, OTP) are in it where
     * they exist in it (de, en; else the organization's `locale`). Null: the organization's `locale`.
     */
    locale: text("locale"),
    linkTokenHash: text("link_token_hash").notNull(),
    status: text("status").$type<FormRequestStatus>().notNull().default("sent"),
    smsMessageId: uuid("sms_message_id"),
    failedChecks: integer("failed_checks").notNull().default(0),
    identityVerifiedAt: ts("identity_verified_at"),
    /** The identification cookie of the browser that passed identification: only it may take the OTP step. */
    identityTokenHash: text("identity_token_hash"),
    accessTokenHash: text("access_token_hash"),
    accessExpiresAt: ts("access_expires_at"),
    submissionId: uuid("submission_id"),
    expiresAt: ts("expires_at").notNull(),
    createdAt: createdAt(),
    updatedAt: ts("updated_at").notNull().defaultNow(),
  },
  (t) => [
    uniqueIndex("form_requests_link_uq").on(t.linkTokenHash),
    uniqueIndex("form_requests_access_uq").on(t.accessTokenHash),
    index("form_requests_org_created_idx").on(t.organizationId, t.createdAt),
  ],
);

/** One-time passwords of the SMS portal; the code is stored as an HMAC only. */
export const otpChallenges = pgTable(
  "otp_challenges",
  {
    id: id(),
    organizationId: organizationId(),
    formRequestId: uuid("form_request_id")
      .notNull()
      .references(() => formRequests.id, { onDelete: "cascade" }),
    codeHash: text("code_hash").notNull(),
    failedAttempts: integer("failed_attempts").notNull().default(0),
    expiresAt: ts("expires_at").notNull(),
    endedAt: ts("ended_at"),
    createdAt: createdAt(),
  },
  (t) => [index("otp_challenges_request_idx").on(t.formRequestId, t.createdAt)],
);

export type MessageChannel = "sms" | "email";
export type MessageStatus = "queued" | "sent" | "failed";

/** Every SMS and e-mail the service sends; with the outbox providers this table is the outbox. */
export const messages = pgTable(
  "messages",
  {
    id: id(),
    organizationId: organizationId(),
    channel: text("channel").$type<MessageChannel>().notNull(),
    recipients: jsonb("recipients").$type<string[]>().notNull(),
    sender: text("sender"),
    subject: text("subject"),
    body: text("body").notNull(),
    purpose: text("purpose").notNull(),
    status: text("status").$type<MessageStatus>().notNull().default("queued"),
    provider: text("provider"),
    providerMessageId: text("provider_message_id"),
    attempts: integer("attempts").notNull().default(0),
    lastError: text("last_error"),
    /** The SMS form request a message belongs to (its link SMS, resent links, OTP codes): its delivery history. */
    formRequestId: uuid("form_request_id"),
    /**
     * The full body of a redacted message (a portal link, an OTP code), SecretBox-sealed, kept only
     * while the message sits in the outbox provider (never with a real gateway): an admin may reveal
     * it once (audited), to try the flow on an install without a gateway. Cleared by that reveal.
     */
    revealableBody: text("revealable_body"),
    /** When an admin revealed the body above (it is gone since). */
    revealedAt: ts("revealed_at"),
    createdAt: createdAt(),
    sentAt: ts("sent_at"),
  },
  (t) => [
    index("messages_org_created_idx").on(t.organizationId, t.createdAt),
    index("messages_org_form_request_idx").on(t.organizationId, t.formRequestId, t.createdAt),
  ],
);
