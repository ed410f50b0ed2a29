import { sql } from "drizzle-orm";
import { boolean, index, jsonb, pgTable, primaryKey, text, timestamp, uniqueIndex, uuid } from "drizzle-orm/pg-core";
import { organizations, users, type MembershipRole } from "./core";

/** One claim value (a group or an app role at the provider) and the role it grants. */
export interface SsoRoleMapping {
  value: string;
  role: MembershipRole;
}

/**
 * An organization's OpenID Connect provider (single sign-on for staff). The client secret is
 * AES-GCM sealed with the service key and never read back to the console.
 */
export const organizationSso = pgTable("organization_sso", {
  organizationId: uuid("organization_id")
    .primaryKey()
    .references(() => organizations.id, { onDelete: "cascade" }),
  enabled: boolean("enabled").notNull().default(false),
  /** Shown on the login page: "Sign in with <displayName>". */
  displayName: text("display_name").notNull(),
  /** Exactly as the provider's discovery document names itself (`issuer`). */
  issuer: text("issuer").notNull(),
  clientId: text("client_id").notNull(),
  clientSecretEnc: text("client_secret_enc").notNull(),
  /** The ID token claim carrying groups or roles, e.g. `groups` or `roles`. */
  roleClaim: text("role_claim").notNull(),
  roleMapping: jsonb("role_mapping").$type<SsoRoleMapping[]>().notNull().default([]),
  /** Passwords are refused for the organization's members, except the break-glass owner's. */
  ssoOnly: boolean("sso_only").notNull().default(false),
  breakGlassUserId: uuid("break_glass_user_id").references(() => users.id, { onDelete: "set null" }),
  updatedAt: timestamp("updated_at", { withTimezone: true, mode: "date" }).notNull().defaultNow(),
});

/**
 * E-mail domains an organization claims for single sign-on. A claim counts only once proven by a
 * DNS TXT record carrying `verificationToken` (`verifiedAt` set): then the login page routes the
 * domain's addresses to the organization's provider and the provider may make accounts of that
 * domain. Several organizations may claim a domain; at most one can have proven it.
 */
export const ssoDomains = pgTable(
  "sso_domains",
  {
    organizationId: uuid("organization_id")
      .notNull()
      .references(() => organizations.id, { onDelete: "cascade" }),
    /** Lower-case, without `@`. */
    domain: text("domain").notNull(),
    /** The random value the TXT record must carry (not a secret: it is published in DNS). */
    verificationToken: text("verification_token").notNull(),
    verifiedAt: timestamp("verified_at", { withTimezone: true, mode: "date" }),
    createdAt: timestamp("created_at", { withTimezone: true, mode: "date" }).notNull().defaultNow(),
  },
  (t) => [
    primaryKey({ columns: [t.organizationId, t.domain] }),
    uniqueIndex("sso_domains_verified_uq")
      .on(t.domain)
      .where(sql`${t.verifiedAt} is not null`),
  ],
);

/**
 * Who a provider says signed in, keyed as OpenID Connect keys it: the organization whose provider
 * it is, the issuer and the subject (`sub`). The one link from a provider's login to a ClinSign
 * account: never an e-mail address, which another organization's provider can assert too.
 */
export const ssoIdentities = pgTable(
  "sso_identities",
  {
    organizationId: uuid("organization_id")
      .notNull()
      .references(() => organizations.id, { onDelete: "cascade" }),
    issuer: text("issuer").notNull(),
    subject: text("subject").notNull(),
    userId: uuid("user_id")
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    /** The address the provider asserted when the link was made (for the console; not a key). */
    email: text("email").notNull(),
    createdAt: timestamp("created_at", { withTimezone: true, mode: "date" }).notNull().defaultNow(),
    lastSignInAt: timestamp("last_sign_in_at", { withTimezone: true, mode: "date" }),
  },
  (t) => [
    primaryKey({ columns: [t.organizationId, t.issuer, t.subject] }),
    index("sso_identities_user_idx").on(t.userId),
  ],
);

/**
 * A provider's login that named the address of an existing account not linked to it: held (by
 * the hash of an HTTP-only cookie of the browser that came back from the provider) until that
 * account proves itself in the same browser and the person confirms. `provenAt` is set once the
 * account's password and own second factor passed.
 */
export const ssoLinkRequests = pgTable(
  "sso_link_requests",
  {
    tokenHash: text("token_hash").primaryKey(),
    organizationId: uuid("organization_id")
      .notNull()
      .references(() => organizations.id, { onDelete: "cascade" }),
    issuer: text("issuer").notNull(),
    subject: text("subject").notNull(),
    userId: uuid("user_id")
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    email: text("email").notNull(),
    role: text("role").$type<MembershipRole>().notNull(),
    provenAt: timestamp("proven_at", { withTimezone: true, mode: "date" }),
    createdAt: timestamp("created_at", { withTimezone: true, mode: "date" }).notNull().defaultNow(),
    expiresAt: timestamp("expires_at", { withTimezone: true, mode: "date" }).notNull(),
  },
  (t) => [index("sso_link_requests_expires_idx").on(t.expiresAt)],
);

/**
 * A sign-in started at the provider and not yet come back: found by the hash of `state`, bound to
 * the browser by the hash of an HTTP-only cookie, deleted when the callback uses it (single use).
 */
export const ssoSignInAttempts = pgTable(
  "sso_sign_in_attempts",
  {
    stateHash: text("state_hash").primaryKey(),
    organizationId: uuid("organization_id")
      .notNull()
      .references(() => organizations.id, { onDelete: "cascade" }),
    browserHash: text("browser_hash").notNull(),
    nonce: text("nonce").notNull(),
    /** The PKCE code verifier, sealed. */
    codeVerifierEnc: text("code_verifier_enc").notNull(),
    createdAt: timestamp("created_at", { withTimezone: true, mode: "date" }).notNull().defaultNow(),
    expiresAt: timestamp("expires_at", { withTimezone: true, mode: "date" }).notNull(),
  },
  (t) => [index("sso_sign_in_attempts_expires_idx").on(t.expiresAt)],
);
