import { randomUUID } from "node:crypto";
import { sql } from "drizzle-orm";
import {
  bigint,
  boolean,
  index,
  integer,
  jsonb,
  pgSequence,
  pgTable,
  primaryKey,
  text,
  timestamp,
  uniqueIndex,
  uuid,
} from "drizzle-orm/pg-core";

const id = () =>
  uuid("id")
    .primaryKey()
    .$defaultFn(() => randomUUID());
const createdAt = () => timestamp("created_at", { withTimezone: true, mode: "date" }).notNull().defaultNow();
const organizationId = () =>
  uuid("organization_id")
    .notNull()
    .references(() => organizations.id, { onDelete: "cascade" });

export type SessionVerificationMethod = "none" | "hs256" | "jwks" | "introspection";

/** A tenant. Every other table with an `organization_id` belongs to exactly one of these. */
export const organizations = pgTable("organizations", {
  id: id(),
  name: text("name").notNull(),
  /** Default webhook URLs, used when a session config names none. */
  webhookUrls: jsonb("webhook_urls").$type<string[]>().notNull().default([]),
  /** Signing secret for webhooks, AES-GCM encrypted with the service key. */
  webhookSecretEnc: text("webhook_secret_enc"),
  otpEnabled: boolean("otp_enabled").notNull().default(false),
  sessionMethod: text("session_method").$type<SessionVerificationMethod>().notNull().default("none"),
  sessionJwtSecretEnc: text("session_jwt_secret_enc"),
  sessionJwksUrl: text("session_jwks_url"),
  sessionIntrospectionUrl: text("session_introspection_url"),
  requireSessionVerification: boolean("require_session_verification").notNull().default(false),
  /** A4: when set, a session token's `aud` must contain this value. */
  sessionAudience: text("session_audience"),
  /** A4: when set, a session token's `iss` must equal this value. */
  sessionIssuer: text("session_issuer"),
  /** A4: refuse session tokens without a `jti` (so every token is single-use). */
  sessionRequireJti: boolean("session_require_jti").notNull().default(false),
  /**
   * A4: accept session tokens (or introspection answers) that carry no `aud` / `iss` although an
   * audience / issuer is configured. Off: a configured check with the claim missing refuses.
   */
  sessionAcceptMissingAudIss: boolean("session_accept_missing_aud_iss").notNull().default(false),
  /** Language of what the clinic's outputs say (PDF, CSV, SMS texts): `de` or `en`. */
  locale: text("locale").$type<"de" | "en">().notNull().default("de"),
  /** IANA time zone in which dates and times are written for the clinic and its patients. */
  timeZone: text("time_zone").notNull().default("Europe/Berlin"),
  /** ISO 3166 country whose national phone numbers ("0170 …") staff and patients may type. */
  phoneCountry: text("phone_country").notNull().default("DE"),
  /** How long a signer may still download their signed copy through the signing link. */
  signedCopyDays: integer("signed_copy_days").notNull().default(30),
  /** Days after which a signer who has not signed is reminded once (SMS); 0 = no reminders. */
  signatureReminderDays: integer("signature_reminder_days").notNull().default(0),
  /** A staff session ends after this long without a request (docs/operations.md, "Staff sessions"). */
  staffSessionIdleMinutes: integer("staff_session_idle_minutes").notNull().default(60),
  /** A staff session ends this long after sign-in, however busy: one clinical shift. */
  staffSessionMaxHours: integer("staff_session_max_hours").notNull().default(12),
  /** Everyone who signs in with a password needs a second factor (TOTP or passkey). */
  requireSecondFactor: boolean("require_second_factor").notNull().default(false),
  /**
   * What a `form.submitted` webhook carries: the native body (default), the submission as a FHIR R4
   * QuestionnaireResponse instead (`fhir`), or the native body with it in `data.questionnaireResponse`.
   */
  webhookFormat: text("webhook_format").$type<"native" | "fhir" | "both">().notNull().default("native"),
  createdAt: createdAt(),
  updatedAt: timestamp("updated_at", { withTimezone: true, mode: "date" }).notNull().defaultNow(),
});

/** A clinic inside an organization, named by the caller's own `institution_id`. */
export const institutions = pgTable(
  "institutions",
  {
    id: id(),
    organizationId: organizationId(),
    externalId: text("external_id").notNull(),
    name: text("name"),
    createdAt: createdAt(),
  },
  (t) => [uniqueIndex("institutions_org_external_uq").on(t.organizationId, t.externalId)],
);

export const apiTokens = pgTable(
  "api_tokens",
  {
    id: id(),
    organizationId: organizationId(),
    name: text("name").notNull(),
    /** The first characters of the token, shown in lists so staff can tell tokens apart. */
    prefix: text("prefix").notNull(),
    /** SHA-256 (hex) of the whole token; the token itself is never stored. */
    tokenHash: text("token_hash").notNull(),
    createdByUserId: uuid("created_by_user_id"),
    createdAt: createdAt(),
    lastUsedAt: timestamp("last_used_at", { withTimezone: true, mode: "date" }),
    revokedAt: timestamp("revoked_at", { withTimezone: true, mode: "date" }),
  },
  (t) => [
    uniqueIndex("api_tokens_hash_uq").on(t.tokenHash),
    index("api_tokens_org_idx").on(t.organizationId, t.createdAt),
  ],
);

export const users = pgTable(
  "users",
  {
    id: id(),
    /** Stored lower-cased so logins are case-insensitive. */
    email: text("email").notNull(),
    name: text("name"),
    /**
     * The account's own password (memory-hard hash); null for an account its organization's
     * provider made (single sign-on): it has no password to sign in with or to confirm a change.
     */
    passwordHash: text("password_hash"),
    createdAt: createdAt(),
  },
  (t) => [uniqueIndex("users_email_uq").on(t.email)],
);

export type MembershipRole = "owner" | "admin" | "staff" | "viewer";

export const memberships = pgTable(
  "memberships",
  {
    userId: uuid("user_id")
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    organizationId: organizationId(),
    role: text("role").$type<MembershipRole>().notNull(),
    createdAt: createdAt(),
    /** Set while an admin has deactivated the member: sign-in and every session are refused. */
    deactivatedAt: timestamp("deactivated_at", { withTimezone: true, mode: "date" }),
  },
  (t) => [primaryKey({ columns: [t.userId, t.organizationId] }), index("memberships_org_idx").on(t.organizationId)],
);

export const staffSessions = pgTable(
  "staff_sessions",
  {
    id: id(),
    /** SHA-256 (hex) of the cookie value. */
    tokenHash: text("token_hash").notNull(),
    userId: uuid("user_id")
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    organizationId: organizationId(),
    ip: text("ip"),
    userAgent: text("user_agent"),
    createdAt: createdAt(),
    /** The absolute end (sign-in plus the organization's maximum); the idle end follows `lastSeenAt`. */
    expiresAt: timestamp("expires_at", { withTimezone: true, mode: "date" }).notNull(),
    /** The last request, written at most once a minute (STAFF_SESSION_TOUCH_SECONDS). */
    lastSeenAt: timestamp("last_seen_at", { withTimezone: true, mode: "date" }).notNull().defaultNow(),
  },
  (t) => [uniqueIndex("staff_sessions_hash_uq").on(t.tokenHash), index("staff_sessions_user_idx").on(t.userId)],
);

/**
 * An invitation to join an organization: a single-use link (its secret stored as SHA-256) that
 * expires; accepting it creates the account (or adds the membership) with `role`.
 */
export const staffInvites = pgTable(
  "staff_invites",
  {
    id: id(),
    organizationId: organizationId(),
    email: text("email").notNull(),
    role: text("role").$type<MembershipRole>().notNull(),
    tokenHash: text("token_hash").notNull(),
    invitedByUserId: uuid("invited_by_user_id").references(() => users.id, { onDelete: "set null" }),
    createdAt: createdAt(),
    expiresAt: timestamp("expires_at", { withTimezone: true, mode: "date" }).notNull(),
    acceptedAt: timestamp("accepted_at", { withTimezone: true, mode: "date" }),
    revokedAt: timestamp("revoked_at", { withTimezone: true, mode: "date" }),
  },
  (t) => [
    uniqueIndex("staff_invites_hash_uq").on(t.tokenHash),
    index("staff_invites_org_idx").on(t.organizationId, t.createdAt),
  ],
);

/**
 * Who acted, one word per concept: an API token, an embed session, the recipient of an SMS form
 * request, the patient signing a request, a staff member, the service itself.
 */
export type ActorType = "api_key" | "embed_session" | "sms_recipient" | "signer" | "user" | "system";

/**
 * What entries written before migration 0024 store for the embed session (`session`) and the SMS
 * recipient (`portal`). Audit entries are hash-chained over `actor_type`, so they are never
 * rewritten: `actor_kind` (a generated column) reads both spellings as today's `ActorType`.
 */
export type LegacyActorType = "session" | "portal";
export type StoredActorType = ActorType | LegacyActorType;

/** The SQL of `audit_log.actor_kind`: the stored actor type in today's words. */
const actorKindOf = (actorType: string) =>
  sql.raw(
    `case ${actorType} when 'session' then 'embed_session' when 'portal' then 'sms_recipient' else ${actorType} end`,
  );

/**
 * Numbers audit entries across all organizations. Drawn by `audit_log_next_seq()` (migration 0010),
 * which gives the transaction its xid first: the chainer's watermark relies on that order. CACHE 1
 * (the default) on purpose: cached values would be handed out after the chainer read `last_value`.
 */
export const auditLogSeq = pgSequence("audit_log_seq", { startWith: 1, increment: 1, cache: 1 });

/**
 * Append-only. An entry is inserted unchained (`chain_pos`, `prev_hash`, `hash` null) in the
 * transaction of the change it records; the background chainer (apps/api/src/jobs/audit-chainer.ts)
 * later links the organization's entries in `seq` order: `hash` covers the entry and `prev_hash`,
 * the hash of the entry at `chain_pos - 1`. docs/architecture.md ("The audit chain") has the design.
 */
export const auditLog = pgTable(
  "audit_log",
  {
    id: id(),
    organizationId: organizationId(),
    /** Increasing with time, unique; gaps are normal (other organizations, rolled-back writes). */
    seq: bigint("seq", { mode: "number" })
      .notNull()
      .default(sql`audit_log_next_seq()`),
    action: text("action").notNull(),
    templateIdentifier: text("template_identifier"),
    /** As written (hashed): entries before migration 0024 may carry a `LegacyActorType`. */
    actorType: text("actor_type").$type<StoredActorType>().notNull(),
    /** `actor_type` in today's words (legacy spellings mapped): what staff filter by and see. */
    actorKind: text("actor_kind").$type<ActorType>().notNull().generatedAlwaysAs(actorKindOf('"actor_type"')),
    actorId: text("actor_id"),
    metadata: jsonb("metadata").$type<Record<string, unknown>>().notNull().default({}),
    ip: text("ip"),
    userAgent: text("user_agent"),
    createdAt: createdAt(),
    /** 1, 2, 3 … within the organization's chain; null until the chainer links the entry. */
    chainPos: bigint("chain_pos", { mode: "number" }),
    prevHash: text("prev_hash"),
    hash: text("hash"),
    /**
     * The writing transaction's xid (`pg_current_xact_id()`), null for entries before migration
     * 0013. Not hashed: it only lets the chainer tell an entry of a transaction it chained past
     * (`audit_chain_gaps`) from one slipped in later.
     */
    xactId: bigint("xact_id", { mode: "number" }).default(sql`(pg_current_xact_id()::text)::bigint`),
    /**
     * A random secret of this entry (migration 0029, issue 17): entries that have one are hashed with
     * a commitment to their personal part (`metadata`, `ip`, `user_agent`) instead of the part
     * itself, HMAC-SHA-256 keyed with this salt. Null for entries written before 0029 (hashed with
     * their content, as before) and for erased entries. Written by `recordAudit` and
     * `auditInsertFrom` (apps/api/src/core/audit/audit.ts), never shown. docs/architecture.md ("Erasure and the audit chain").
     */
    personalSalt: text("personal_salt"),
    /** The commitment an erased entry keeps in place of its personal part and salt (what its hash covers). */
    personalCommitment: text("personal_commitment"),
    /** When a patient erasure removed this entry's personal part (not hashed). */
    erasedAt: timestamp("erased_at", { withTimezone: true, mode: "date" }),
    /** The erasure (its receipt's id) that removed it. */
    erasureId: uuid("erasure_id"),
  },
  (t) => [
    // F13 reads newest first by seq under each combination of its filters; each has its index.
    // Indexes here are ascending on purpose: scanned backwards they serve ORDER BY … DESC (which
    // means NULLS FIRST), whereas a DESC NULLS LAST index cannot, and the planner falls back to
    // filtering a larger index.
    uniqueIndex("audit_log_org_seq_uq").on(t.organizationId, t.seq),
    index("audit_log_org_action_seq_idx").on(t.organizationId, t.action, t.seq),
    index("audit_log_org_template_seq_idx").on(t.organizationId, t.templateIdentifier, t.seq),
    index("audit_log_org_action_template_seq_idx").on(t.organizationId, t.action, t.templateIdentifier, t.seq),
    // The staff audit list also filters by actor (in today's words, so old and new spellings meet).
    index("audit_log_org_actor_kind_seq_idx").on(t.organizationId, t.actorKind, t.seq),
    // A signature request's entries (its timeline, its metadata JSON's events), in chain order.
    index("audit_log_org_signature_seq_idx").on(t.organizationId, sql`(${t.metadata}->>'signatureId')`, t.seq),
    // The chain walk of `audit verify`.
    uniqueIndex("audit_log_org_chain_pos_uq").on(t.organizationId, t.chainPos),
    // The chainer's work list: only the few entries not yet chained are in it.
    index("audit_log_unchained_idx")
      .on(t.organizationId, t.seq)
      .where(sql`${t.chainPos} is null`),
  ],
);

/**
 * Where each organization's audit chain ends, written by the chainer in the transaction that
 * extends the chain. Verification compares it with the last chained entry, so deleting the newest
 * entries without also rewinding this row is detected.
 */
export const auditChainHeads = pgTable("audit_chain_heads", {
  organizationId: uuid("organization_id")
    .primaryKey()
    .references(() => organizations.id, { onDelete: "cascade" }),
  chainPos: bigint("chain_pos", { mode: "number" }).notNull(),
  seq: bigint("seq", { mode: "number" }).notNull(),
  hash: text("hash").notNull(),
  chainedAt: timestamp("chained_at", { withTimezone: true, mode: "date" }).notNull().defaultNow(),
});

/**
 * Transactions the chainer chained past while they were still open (after AUDIT_MAX_UNCHAINED_SECONDS):
 * their entries with a seq the chain already passed are appended to the chain when they commit
 * ("late" entries), and verify accepts a chained entry out of seq order only for an xid listed here.
 * docs/architecture.md ("The audit chain", bounded lag) has the design and its tamper argument.
 */
export const auditChainGaps = pgTable(
  "audit_chain_gaps",
  {
    organizationId: uuid("organization_id")
      .notNull()
      .references(() => organizations.id, { onDelete: "cascade" }),
    xactId: bigint("xact_id", { mode: "number" }).notNull(),
    /** The watermark the chainer chained up to while the transaction was open. */
    throughSeq: bigint("through_seq", { mode: "number" }).notNull(),
    recordedAt: timestamp("recorded_at", { withTimezone: true, mode: "date" }).notNull().defaultNow(),
  },
  (t) => [primaryKey({ columns: [t.organizationId, t.xactId] })],
);

export type TemplateStatus = "draft" | "active" | "archived";

export const templates = pgTable(
  "templates",
  {
    id: id(),
    organizationId: organizationId(),
    identifier: text("identifier").notNull(),
    title: text("title").notNull(),
    description: text("description"),
    status: text("status").$type<TemplateStatus>().notNull().default("draft"),
    schema: jsonb("schema").$type<{ version: number; fields: unknown[] }>().notNull(),
    /** The language of the template's own texts (a patient language, issue 19). */
    defaultLanguage: text("default_language").notNull().default("de"),
    /** Texts in other languages: {language: {title?, description?, fields: {key: {...}}}} (contracts form-languages). */
    translations: jsonb("translations").$type<Record<string, unknown>>().notNull().default({}),
    createdAt: createdAt(),
    updatedAt: timestamp("updated_at", { withTimezone: true, mode: "date" }).notNull().defaultNow(),
  },
  (t) => [
    uniqueIndex("templates_org_identifier_uq").on(t.organizationId, t.identifier),
    index("templates_org_updated_idx").on(t.organizationId, t.updatedAt),
  ],
);

/** Fixed-window counters for rate limits, shared by every API process. */
export const rateLimits = pgTable("rate_limits", {
  key: text("key").primaryKey(),
  count: integer("count").notNull(),
  resetAt: timestamp("reset_at", { withTimezone: true, mode: "date" }).notNull(),
});

/**
 * A staff account's authenticator app (TOTP, RFC 6238: SHA-1, 30 s, 6 digits). The secret is
 * sealed with the service key (SecretBox). `confirmedAt` null while set-up waits for the first
 * code; `lastUsedStep` is the newest time step accepted, so a code is never accepted twice.
 */
export const staffTotp = pgTable("staff_totp", {
  userId: uuid("user_id")
    .primaryKey()
    .references(() => users.id, { onDelete: "cascade" }),
  secretEnc: text("secret_enc").notNull(),
  confirmedAt: timestamp("confirmed_at", { withTimezone: true, mode: "date" }),
  lastUsedStep: bigint("last_used_step", { mode: "number" }),
  createdAt: createdAt(),
});

/** One-time recovery codes of a staff account: SHA-256 of each (high-entropy) code, never the code. */
export const staffRecoveryCodes = pgTable(
  "staff_recovery_codes",
  {
    id: id(),
    userId: uuid("user_id")
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    codeHash: text("code_hash").notNull(),
    usedAt: timestamp("used_at", { withTimezone: true, mode: "date" }),
    createdAt: createdAt(),
  },
  (t) => [uniqueIndex("staff_recovery_codes_user_hash_uq").on(t.userId, t.codeHash)],
);

/** A staff account's WebAuthn credential (passkey). */
export const staffPasskeys = pgTable(
  "staff_passkeys",
  {
    id: id(),
    userId: uuid("user_id")
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    name: text("name").notNull(),
    /** The credential id, base64url, as the authenticator names it. */
    credentialId: text("credential_id").notNull(),
    /** The COSE public key, base64url. */
    publicKey: text("public_key").notNull(),
    counter: bigint("counter", { mode: "number" }).notNull().default(0),
    transports: jsonb("transports").$type<string[]>().notNull().default([]),
    /** `singleDevice` or `multiDevice` (synced passkey). */
    deviceType: text("device_type").notNull(),
    backedUp: boolean("backed_up").notNull().default(false),
    createdAt: createdAt(),
    lastUsedAt: timestamp("last_used_at", { withTimezone: true, mode: "date" }),
  },
  (t) => [
    uniqueIndex("staff_passkeys_credential_uq").on(t.credentialId),
    index("staff_passkeys_user_idx").on(t.userId, t.createdAt),
  ],
);

export type WebauthnChallengePurpose = "register" | "authenticate" | "step_up";

/**
 * WebAuthn challenges handed out and not yet answered: single-use (deleted when answered),
 * short-lived, in the database so any API instance can check the answer. `userId` null for a
 * passwordless sign-in, where the authenticator names the account.
 */
export const webauthnChallenges = pgTable(
  "webauthn_challenges",
  {
    /** SHA-256 (hex) of the challenge (base64url). */
    challengeHash: text("challenge_hash").primaryKey(),
    purpose: text("purpose").$type<WebauthnChallengePurpose>().notNull(),
    userId: uuid("user_id").references(() => users.id, { onDelete: "cascade" }),
    expiresAt: timestamp("expires_at", { withTimezone: true, mode: "date" }).notNull(),
  },
  (t) => [index("webauthn_challenges_expires_idx").on(t.expiresAt)],
);

/** `second_factor`: the password was right, a factor must follow; `enroll`: one must be set up first. */
export type PendingSignInStep = "second_factor" | "enroll";

/**
 * A password step passed, the session not yet opened: the HTTP-only cookie's value hashed
 * (SHA-256). Short-lived, deleted when the session opens. Not a session: it opens nothing but
 * the second step.
 */
export const staffPendingSignIns = pgTable(
  "staff_pending_sign_ins",
  {
    tokenHash: text("token_hash").primaryKey(),
    userId: uuid("user_id")
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    organizationId: organizationId(),
    step: text("step").$type<PendingSignInStep>().notNull(),
    /**
     * Set when the password step proved the account for connecting a provider (`sso_link_requests`
     * by its hash): the second step then marks that link proven instead of opening a session.
     */
    ssoLinkHash: text("sso_link_hash"),
    expiresAt: timestamp("expires_at", { withTimezone: true, mode: "date" }).notNull(),
    createdAt: createdAt(),
  },
  (t) => [
    index("staff_pending_sign_ins_user_idx").on(t.userId),
    index("staff_pending_sign_ins_expires_idx").on(t.expiresAt),
  ],
);
