import { customType, integer, pgTable, text, timestamp } from "drizzle-orm/pg-core";

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
