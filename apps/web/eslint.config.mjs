import reactHooks from "eslint-plugin-react-hooks";
import root from "../../eslint.config.mjs";

// The repository's flat config plus the React hook rules for this app's components.
export default [
  ...root,
  {
    files: ["**/*.{ts,tsx}"],
    plugins: { "react-hooks": reactHooks },
    rules: {
      "react-hooks/rules-of-hooks": "error",
      "react-hooks/exhaustive-deps": "error",
    },
  },
  // The host page's embed script is plain browser JavaScript.
  {
    files: ["public/**/*.js"],
    languageOptions: {
      globals: { window: "readonly", document: "readonly", URL: "readonly", CustomEvent: "readonly" },
    },
  },
  // The service worker runs in its own global scope.
  {
    files: ["public/sw.js"],
    languageOptions: {
      globals: { self: "readonly", caches: "readonly", fetch: "readonly", URL: "readonly" },
    },
  },
  // The root config exempts apps/web/** by path; seen from here that path is ".".
  { rules: { "no-restricted-properties": "off" } },
];
