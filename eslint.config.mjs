import js from "@eslint/js";
import tseslint from "typescript-eslint";

export default tseslint.config(
  { ignores: ["**/dist/**", "**/.next/**", "**/node_modules/**", "**/drizzle/**", "**/next-env.d.ts"] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    rules: {
      "@typescript-eslint/no-unused-vars": ["error", { argsIgnorePattern: "^_", varsIgnorePattern: "^_" }],
      "no-restricted-properties": [
        "error",
        { object: "process", property: "env", message: "Read configuration from src/env.ts." },
      ],
    },
  },
  {
    // Issue 22: tenant data only through OrgScope. The raw handle is for the credential lookups by
    // hash (core/credentials) and the job queue (core/jobs), which work across organizations.
    files: ["apps/api/src/core/**/*.ts"],
    ignores: [
      "apps/api/src/core/credentials/**",
      "apps/api/src/core/jobs/**",
      // Creating organizations (CLI, demo seed): the tenant does not exist yet, so no scope can hold it.
      "apps/api/src/core/provisioning/**",
      // Rate-limit counters are keyed across organizations (addresses, e-mails), like the job queue.
      "apps/api/src/core/rate-limit.ts",
      "apps/api/src/core/context.ts",
      "**/*.test.ts",
    ],
    rules: {
      "no-restricted-syntax": [
        "error",
        {
          selector: "MemberExpression[property.name=/^(db|database)$/][object.property.name=/^(services|scope)$/]",
          message: "Reach tenant data through ctx.scope (OrgScope); credential lookups live in core/credentials.",
        },
        {
          selector: "MemberExpression[property.name=/^(db|database)$/][object.name=/^(services|scope)$/]",
          message: "Reach tenant data through ctx.scope (OrgScope); credential lookups live in core/credentials.",
        },
        {
          selector: "ObjectPattern > Property[key.name=/^(db|database)$/]",
          message: "Reach tenant data through ctx.scope (OrgScope); credential lookups live in core/credentials.",
        },
        {
          selector: "MemberExpression[object.name='OrgScope'][property.name='unscoped']",
          message: "OrgScope.unscoped is for core/credentials and core/jobs only.",
        },
      ],
    },
  },
  {
    files: [
      "**/env.ts",
      "**/testing.ts",
      "**/testing/**",
      "**/*.config.*",
      "scripts/**",
      "e2e/**",
      "**/*.test.ts",
      "**/test/**",
      "**/bench/**",
      "apps/web/**",
    ],
    rules: { "no-restricted-properties": "off" },
  },
);
