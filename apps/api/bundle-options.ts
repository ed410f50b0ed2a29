// How the API's entry points are bundled: by build.ts for dist/, and by the test setup
// (src/testing/global-setup.ts) for the PDF worker. Workspace packages (TypeScript source) are
// inlined; third-party packages stay in node_modules, where their own files (wasm, workers) live.

import type { BuildOptions } from "esbuild";

export const bundleOptions: BuildOptions = {
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
};
