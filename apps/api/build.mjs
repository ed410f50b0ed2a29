// Bundles the API entry points into dist/. Workspace packages (TypeScript source) are inlined;
// third-party packages stay in node_modules, where their own files (wasm, workers) live.
// pdf-worker.js is the worker thread that reads and seals PDFs (src/core/pdf-worker/run.ts
// starts it from beside server.js and cli.js).
import { build } from "esbuild";

await build({
  entryPoints: { server: "src/server.ts", cli: "src/cli.ts", "pdf-worker": "src/core/pdf-worker/worker.ts" },
  outdir: "dist",
  bundle: true,
  platform: "node",
  format: "esm",
  target: "node20",
  sourcemap: true,
  logLevel: "warning",
  plugins: [
    {
      name: "external-node-modules",
      setup(b) {
        b.onResolve({ filter: /^[^./]/ }, (args) =>
          args.path.startsWith("@clinsign/") ? undefined : { path: args.path, external: true },
        );
      },
    },
  ],
});
