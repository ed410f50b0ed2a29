import { randomUUID } from "node:crypto";
import { sql } from "drizzle-orm";
import { check, index, jsonb, pgTable, text, timestamp, uuid } from "drizzle-orm/pg-core";
import { organizations, users } from "./core";

// Data retention (apps/api/src/core/retention): legal holds, retention policies, the sweep's state.

const at = (name: string) => timestamp(name, { withTimezone: true, mode: "date" });

/**
 * A legal hold: while `released_at` is null, no record of the patient it names is deleted, by the
 * retention sweep or by an erasure. It names the patient by any of the identifiers records keep
 * (area A's `patient_id`, the case number `rnummer`, an E.164 `phone`); a record is held when any
 * of them equals the record's own. Released holds stay as the record of what was held and why.
 */
export const legalHolds = pgTable(
  "legal_holds",
  {
    id: uuid("id")
      .primaryKey()
      .$defaultFn(() => randomUUID()),
    organizationId: uuid("organization_id")
      .notNull()
      .references(() => organizations.id, { onDelete: "cascade" }),
    patientId: text("patient_id"),
    rnummer: text("rnummer"),
    phone: text("phone"),
    reason: text("reason").notNull(),
    createdByUserId: uuid("created_by_user_id").references(() => users.id, { onDelete: "set null" }),
    createdAt: at("created_at").notNull().defaultNow(),
    releasedAt: at("released_at"),
    releasedByUserId: uuid("released_by_user_id").references(() => users.id, { onDelete: "set null" }),
    /**
     * When the patient's erasure blanked this released hold's identifiers and reason (issue 32): the
     * hold's id and dates stay, as a record that a hold existed, naming no one.
     */
    erasedAt: at("erased_at"),
  },
  (t) => [
    check(
      "legal_holds_selector_ck",
      sql`${t.patientId} is not null or ${t.rnummer} is not null or ${t.phone} is not null or ${t.erasedAt} is not null`,
    ),
    // The staff list, newest first (keyset pages).
    index("legal_holds_org_created_idx").on(t.organizationId, t.createdAt, t.id),
    // "Is this record held?": one probe per identifier among the few active holds.
    index("legal_holds_active_patient_idx")
      .on(t.organizationId, t.patientId)
      .where(sql`${t.releasedAt} is null and ${t.patientId} is not null`),
    index("legal_holds_active_rnummer_idx")
      .on(t.organizationId, t.rnummer)
      .where(sql`${t.releasedAt} is null and ${t.rnummer} is not null`),
    index("legal_holds_active_phone_idx")
      .on(t.organizationId, t.phone)
      .where(sql`${t.releasedAt} is null and ${t.phone} is not null`),
  ],
);

/** A retention period as stored (packages/contracts `RetentionPeriod`); null keeps the records. */
export type StoredRetentionPeriod = { amount: number; unit: "days" | "years" } | null;

/**
 * The periods an organization set, by kind (`drafts`, `submissions`, …). A kind missing here follows
 * the default (packages/contracts `RETENTION_DEFAULTS`); a kind set to null is kept for good.
 */
export const retentionPolicies = pgTable("retention_policies", {
  organizationId: uuid("organization_id")
    .primaryKey()
    .references(() => organizations.id, { onDelete: "cascade" }),
  periods: jsonb("periods").$type<Record<string, StoredRetentionPeriod>>().notNull().default({}),
  updatedAt: at("updated_at").notNull().defaultNow(),
  updatedByUserId: uuid("updated_by_user_id").references(() => users.id, { onDelete: "set null" }),
});

/**
 * The retention sweep of one organization: when it runs next, who holds it now (a lease, so two
 * processes never sweep one organization at once: taken when `lease_until` has passed, renewed by
 * every batch in its own transaction), and what the current or last run deleted. Counts grow in
 * the transaction of each batch, so after a crash they say exactly what was committed.
 */
export const retentionSweeps = pgTable("retention_sweeps", {
  organizationId: uuid("organization_id")
    .primaryKey()
    .references(() => organizations.id, { onDelete: "cascade" }),
  nextRunAt: at("next_run_at").notNull().defaultNow(),
  leaseOwner: text("lease_owner"),
  leaseUntil: at("lease_until"),
  runStartedAt: at("run_started_at"),
  runFinishedAt: at("run_finished_at"),
  runDeleted: jsonb("run_deleted").$type<Record<string, number>>().notNull().default({}),
  lastError: text("last_error"),
});
