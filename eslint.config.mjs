import js from "@eslint/js";
import tseslint from "typescript-eslint";
import clinsign from "./scripts/eslint/service-shape.mjs";

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
    // Names (docs/architecture.md "Names: one word per concept"): "portal" meant four things (the
    // SMS recipient, the signer, the patient pages, the signing page), and a bare "session" four
    // more (staff session, embed session, signing pass, host session); a name says which. Wire
    // values stay as the object keys that map them (properties are not checked), and React's
    // createPortal keeps its name.
    files: ["apps/*/src/**/*.{ts,tsx}", "packages/*/src/**/*.{ts,tsx}", "e2e/tests/**/*.ts"],
    rules: {
      "id-match": [
        "error",
        "^(?!(?:[Ss]essions?|SESSIONS?)$)(?![\\s\\S]*(?:[Pp]ortal|PORTAL))[\\s\\S]*$|^createPortal$",
        { properties: false },
      ],
    },
  },
  {
    // The bench's scenarios keep their command-line names (portal-speed, portal-weight).
    files: ["apps/api/bench/**/*.ts"],
    rules: { "id-match": ["error", "^(?!(?:[Ss]essions?|SESSIONS?)$)[\\s\\S]*$", { properties: false }] },
  },
  {
    // Issue 22: tenant data only through OrgScope. The raw handle is for the credential lookups by
    // hash (core/credentials) and the job queue (core/jobs), which work across organizations.
    files: ["apps/api/src/core/**/*.ts"],
    ignores: [
      "apps/api/src/core/credentials/**",
      // The identity wing's store: the one handle on what is cross-tenant by nature (staff accounts,
      // factors, staff sessions, invitations, single sign-on identities); fenced below.
      "apps/api/src/core/identity/store/**",
      "apps/api/src/core/jobs/**",
      // Creating organizations (CLI, demo seed): the tenant does not exist yet, so no scope can hold it.
      "apps/api/src/core/provisioning/**",
      // Rate-limit counters are keyed across organizations (addresses, e-mails), like the job queue.
      "apps/api/src/core/rate-limit.ts",
      // Metrics read counts and ages across organizations (the queue, the audit chain); no row leaves.
      "apps/api/src/core/metrics/**",
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
        {
          selector: "MemberExpression[object.name='IdentityStore'][property.name='handle']",
          message: "IdentityStore.handle is for core/identity/store only: add a named query there.",
        },
      ],
    },
  },
  {
    // Issue 33: tenant domains take (ctx, input). The other wings keep their own handles: credential
    // lookups (core/credentials), jobs and sweeps across organizations (core/jobs), creating
    // organizations (core/provisioning), the identity wing (core/identity), public steps before an
    // organization is known (core/public), and the context and rate limits themselves.
    files: ["apps/api/src/core/**/*.ts"],
    ignores: [
      "apps/api/src/core/{credentials,jobs,provisioning,identity,public,metrics}/**",
      "apps/api/src/core/context.ts",
      "apps/api/src/core/rate-limit.ts",
      "**/*.test.ts",
    ],
    plugins: { clinsign },
    rules: { "clinsign/service-shape": "error" },
  },
  {
    // Issue 30: the identity wing. Only its store's query modules read the store's raw handle, and
    // tenant domains reach accounts, factors and staff sessions only through the wing's services,
    // never its store (a tenant service that read accounts across organizations is the bug class
    // the wing exists to end).
    // (Inside core/ the same selector is part of the tenant rule above: one rule, one list.)
    files: ["apps/api/src/*.ts", "apps/api/src/{trpc,rest,http,jobs}/**/*.ts"],
    ignores: ["**/*.test.ts"],
    rules: {
      "no-restricted-syntax": [
        "error",
        {
          selector: "MemberExpression[object.name='IdentityStore'][property.name='handle']",
          message: "IdentityStore.handle is for core/identity/store only: add a named query there.",
        },
      ],
    },
  },
  {
    files: ["apps/api/src/core/**/*.ts"],
    ignores: ["apps/api/src/core/identity/**", "apps/api/src/core/provisioning/**", "**/*.test.ts"],
    rules: {
      "no-restricted-imports": [
        "error",
        {
          patterns: [
            {
              group: ["**/identity/store/*"],
              message: "Tenant domains use the identity wing's services, not its store.",
            },
          ],
        },
      ],
    },
  },
  {
    // The FHIR mapping library (core/fhir-mapping/README.md) is as context-free: a template in,
    // a resource and its issues out; core/fhir reads the rows and serves the results.
    files: ["apps/api/src/core/fhir-mapping/**/*.ts"],
    ignores: ["**/*.test.ts"],
    rules: {
      "no-restricted-imports": [
        "error",
        {
          paths: [{ name: "@clinsign/db", message: "core/fhir-mapping is context-free: no database." }],
          patterns: [
            {
              group: ["**/context", "**/fhir/*", "**/signatures/*", "**/identity/**", "**/jobs/**"],
              message: "core/fhir-mapping is context-free: the tenant domains call it, never the other way.",
            },
          ],
        },
      ],
    },
  },
  {
    // The PDF sealing library (core/pdf-seal/README.md) knows no organization and no database:
    // it is handed bytes, an identity and settings, and answers bytes and facts.
    files: ["apps/api/src/core/pdf-seal/**/*.ts"],
    ignores: ["**/*.test.ts"],
    rules: {
      "no-restricted-imports": [
        "error",
        {
          paths: [{ name: "@clinsign/db", message: "core/pdf-seal is context-free: no database." }],
          patterns: [
            {
              group: ["**/context", "**/signatures/*", "**/identity/**", "**/jobs/**"],
              message: "core/pdf-seal is context-free: the tenant domains call it, never the other way.",
            },
          ],
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
