import { boolean, index, jsonb, pgTable, text, timestamp, uuid } from "drizzle-orm/pg-core";
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
 * E-mail domains whose users sign in with an organization's provider. A domain belongs to at most
 * one organization, so the login page can find the provider from a typed address.
 */
export const ssoDomains = pgTable(
  "sso_domains",
  {
    /** Lower-case, without `@`. */
    domain: text("domain").primaryKey(),
    organizationId: uuid("organization_id")
      .notNull()
      .references(() => organizations.id, { onDelete: "cascade" }),
  },
  (t) => [index("sso_domains_org_idx").on(t.organizationId)],
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
