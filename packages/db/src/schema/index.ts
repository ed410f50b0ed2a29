// Each domain keeps its tables in its own file; drizzle-kit reads them all through this one.
export * from "./core";
export * from "./jobs";
export * from "./files";
export * from "./forms";
export * from "./signatures";
export * from "./sso";
export * from "./retention";
export * from "./patients";
export * from "./fhir-push";
