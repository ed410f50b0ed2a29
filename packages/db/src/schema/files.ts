import { boolean, customType, integer, jsonb, pgTable, text, timestamp } from "drizzle-orm/pg-core";

const bytea = customType<{ data: Buffer; driverData: Buffer | Uint8Array }>({
  dataType: () => "bytea",
  fromDriver: (value) => (Buffer.isBuffer(value) ? value : Buffer.from(value)),
});

/** File bytes when STORAGE=db (PostgreSQL holds everything; no shared disk needed). */
export const blobs = pgTable("blobs", {
  key: text("key").primaryKey(),
  bytes: bytea("bytes").notNull(),
  size: integer("size").notNull(),
  sha256: text("sha256").notNull(),
  createdAt: timestamp("created_at", { withTimezone: true, mode: "date" }).notNull().defaultNow(),
});

/**
 * Stored objects no row references, as the storage reconciliation found them (apps/api
 * core/jobs/storage-reconciliation.ts): the operators' report (`pnpm cli storage orphans`). An
 * orphan is deleted once it has been seen unreferenced for STORAGE_ORPHAN_GRACE_HOURS and is still
 * unreferenced when checked again at deletion; `deletable` false: no kind of record the service
 * knows stores objects under its prefix, so it is reported and never deleted.
 */
export const storageOrphans = pgTable("storage_orphans", {
  key: text("key").primaryKey(),
  firstSeenAt: timestamp("first_seen_at", { withTimezone: true, mode: "date" }).notNull(),
  lastSeenAt: timestamp("last_seen_at", { withTimezone: true, mode: "date" }).notNull(),
  deletable: boolean("deletable").notNull(),
  deletedAt: timestamp("deleted_at", { withTimezone: true, mode: "date" }),
});

/** The storage reconciliation's schedule and last run (one row, id `storage`). */
export const storageReconciliations = pgTable("storage_reconciliations", {
  id: text("id").primaryKey(),
  nextRunAt: timestamp("next_run_at", { withTimezone: true, mode: "date" }).notNull().defaultNow(),
  lastStartedAt: timestamp("last_started_at", { withTimezone: true, mode: "date" }),
  lastFinishedAt: timestamp("last_finished_at", { withTimezone: true, mode: "date" }),
  /** Counts of the last finished run (listed, referenced, orphans, new, deleted, kept). */
  lastResult: jsonb("last_result").$type<Record<string, number>>(),
  lastError: text("last_error"),
});
