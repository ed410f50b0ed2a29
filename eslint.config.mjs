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
