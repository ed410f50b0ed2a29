import "./zod-config";
export * from "./auth";
export * from "./common";
export * from "./errors";
export * from "./organizations";
export * from "./templates";
export * from "./tokens";
export * from "./forms";
export * from "./signatures";
