import { randomUUID } from "node:crypto";
import { index, jsonb, pgTable, text, timestamp, uuid } from "drizzle-orm/pg-core";
import { organizations } from "./core";

/**
 * One patient erasure (issue 17): its receipt. Holds counts, record ids, object keys and the staff's
 * reason, never the patient's values (the selector is not kept: the receipt must not identify whom
 * it erased). `pending_keys` are stored objects whose deletion has not succeeded yet; the erasure
 * job retries them until the list is empty, then sets `completed_at`.
 */
export const patientErasures = pgTable(
  "patient_erasures",
  {
    id: uuid("id")
      .primaryKey()
      .$defaultFn(() => randomUUID()),
    organizationId: uuid("organization_id")
      .notNull()
      .references(() => organizations.id, { onDelete: "cascade" }),
    actorType: text("actor_type").notNull(),
    actorId: text("actor_id"),
    /** Records deleted or blanked, per kind. */
    counts: jsonb("counts").$type<Record<string, number>>().notNull(),
    /** SHA-256 of each kind's sorted record ids: lets an auditor confirm a list without the receipt naming rows. */
    digests: jsonb("digests").$type<Record<string, string>>().notNull(),
    pendingKeys: jsonb("pending_keys").$type<string[]>().notNull().default([]),
    /**
     * Why staff erased (issue 31): their own words, required by every door since migration 0036
     * (null on older receipts). Shown with the receipt to those who may erase; never logged or
     * audited. The service refuses a reason that names the patient's identifiers.
     */
    reason: text("reason"),
    createdAt: timestamp("created_at", { withTimezone: true, mode: "date" }).notNull().defaultNow(),
    completedAt: timestamp("completed_at", { withTimezone: true, mode: "date" }),
  },
  (t) => [index("patient_erasures_org_created_idx").on(t.organizationId, t.createdAt)],
);
