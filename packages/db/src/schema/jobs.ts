import { randomUUID } from "node:crypto";
import { index, integer, jsonb, pgTable, text, timestamp, uuid } from "drizzle-orm/pg-core";
import { organizations } from "./core";

export type JobStatus = "pending" | "running" | "done" | "failed";

/**
 * Durable background work (webhook deliveries, SMS, e-mail, sealing retries). Workers take due
 * rows with `FOR UPDATE SKIP LOCKED`, so any number of API processes can share the table.
 */
export const jobs = pgTable(
  "jobs",
  {
    id: uuid("id")
      .primaryKey()
      .$defaultFn(() => randomUUID()),
    organizationId: uuid("organization_id").references(() => organizations.id, { onDelete: "cascade" }),
    kind: text("kind").notNull(),
    payload: jsonb("payload").$type<Record<string, unknown>>().notNull(),
    status: text("status").$type<JobStatus>().notNull().default("pending"),
    attempts: integer("attempts").notNull().default(0),
    maxAttempts: integer("max_attempts").notNull(),
    runAt: timestamp("run_at", { withTimezone: true, mode: "date" }).notNull().defaultNow(),
    lockedUntil: timestamp("locked_until", { withTimezone: true, mode: "date" }),
    lastError: text("last_error"),
    createdAt: timestamp("created_at", { withTimezone: true, mode: "date" }).notNull().defaultNow(),
    updatedAt: timestamp("updated_at", { withTimezone: true, mode: "date" }).notNull().defaultNow(),
  },
  (t) => [
    index("jobs_due_idx").on(t.status, t.runAt),
    index("jobs_org_kind_idx").on(t.organizationId, t.kind, t.createdAt),
  ],
);
