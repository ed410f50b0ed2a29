// The one drizzle entry point of the repository: operators and schema come from here.
import * as schema from "./schema/index";

export * from "drizzle-orm";
export * from "./schema/index";
export { schema };
export type { PgColumn, SelectedFields } from "drizzle-orm/pg-core";
export * from "./connect";
export * from "./prepared";
export * from "./scope";
