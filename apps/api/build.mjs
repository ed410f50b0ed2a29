// Bundles the API entry points into dist/. Workspace packages (TypeScript source) are inlined;
// third-party packages stay in node_modules, where their own files (wasm, workers) live.
import { build } from "esbuild";

await build({
  entryPoints: { server: "src/server.ts", cli: "src/cli.ts" },
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
