import { randomUUID } from "node:crypto";
import { boolean, index, integer, pgTable, text, timestamp, uniqueIndex, uuid } from "drizzle-orm/pg-core";
import { organizations } from "./core";

// FHIR push (issue 34, apps/api/src/core/fhir-push): each organization's FHIR server, and one
// delivery per completed signature request or submission.

const at = (name: string) => timestamp(name, { withTimezone: true, mode: "date" });

/** How the service authenticates to the organization's FHIR server. */
export type FhirPushAuth = "none" | "bearer" | "client_credentials" | "smart_backend";

/**
 * An organization's FHIR server. `secret_enc` is sealed with the service's SecretBox: the bearer
 * token, the OAuth2 client secret, or the private key (PKCS#8 PEM) of SMART backend services,
 * depending on `auth`; it is never shown again once saved.
 */
export const fhirPushTargets = pgTable("fhir_push_targets", {
  organizationId: uuid("organization_id")
    .primaryKey()
    .references(() => organizations.id, { onDelete: "cascade" }),
  enabled: boolean("enabled").notNull().default(false),
  baseUrl: text("base_url").notNull(),
  auth: text("auth").$type<FhirPushAuth>().notNull().default("none"),
  secretEnc: text("secret_enc"),
  clientId: text("client_id"),
  tokenUrl: text("token_url"),
  scope: text("scope"),
  /** The organization's identifier system for A1's `patient_id` (e.g. its patient number URI). */
  patientIdSystem: text("patient_id_system"),
  /** The organization's identifier system for F1/F10's `rnummer` (e.g. its case number URI). */
  rnummerSystem: text("rnummer_system"),
  createdAt: at("created_at").notNull().defaultNow(),
  updatedAt: at("updated_at").notNull().defaultNow(),
});

export type FhirDeliverySource = "signature_request" | "submission";
export type FhirDeliveryStatus = "pending" | "delivered" | "failed";

/**
 * One transaction Bundle for one completed signature request or submission: one row per source
 * (the unique index), so an event seen twice queues one delivery. `bundle` is the exact JSON sent,
 * built on the first attempt and kept, so every retry and a resend carry the same conditional
 * creates (`ifNoneExist`) and the server keeps each resource once.
 */
export const fhirDeliveries = pgTable(
  "fhir_deliveries",
  {
    id: uuid("id")
      .primaryKey()
      .$defaultFn(() => randomUUID()),
    organizationId: uuid("organization_id")
      .notNull()
      .references(() => organizations.id, { onDelete: "cascade" }),
    sourceKind: text("source_kind").$type<FhirDeliverySource>().notNull(),
    sourceId: uuid("source_id").notNull(),
    bundle: text("bundle"),
    status: text("status").$type<FhirDeliveryStatus>().notNull().default("pending"),
    attempts: integer("attempts").notNull().default(0),
    lastStatusCode: integer("last_status_code"),
    /** What went wrong last: the OperationOutcome's issues or the network error, as staff read it. */
    lastError: text("last_error"),
    lastAttemptAt: at("last_attempt_at"),
    deliveredAt: at("delivered_at"),
    jobId: uuid("job_id"),
    createdAt: at("created_at").notNull().defaultNow(),
  },
  (t) => [
    uniqueIndex("fhir_deliveries_source_uq").on(t.organizationId, t.sourceKind, t.sourceId),
    index("fhir_deliveries_org_created_idx").on(t.organizationId, t.createdAt),
  ],
);
