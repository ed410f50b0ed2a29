// Bundles the API entry points into dist/ (bundle-options.ts says how).
// pdf-worker.js is the worker thread that reads and seals PDFs (src/core/pdf-worker/run.ts
// starts it from beside server.js and cli.js).
import { build } from "esbuild";
import { bundleOptions } from "./bundle-options";

await build({
  ...bundleOptions,
  entryPoints: { server: "src/server.ts", cli: "src/cli.ts", "pdf-worker": "src/core/pdf-worker/worker.ts" },
  outdir: "dist",
});
