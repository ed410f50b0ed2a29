/**
 * Runs once before the API's test files. Bundles the PDF worker as the build does, so that the
 * tests' workers start from one JavaScript file, as in production: from TypeScript source every
 * worker thread compiled pdf-lib's and the tasks' modules through tsx again, about 4 s per PDF
 * task instead of 1.3 s, and most of what the sealing and page-image tests waited for.
 */
import { mkdirSync, rmSync } from "node:fs";
import { join } from "node:path";
import { build } from "esbuild";
import { bundleOptions } from "../../bundle-options";
import { PDF_WORKER_BUNDLE_VARIABLE } from "../core/pdf-worker/run";

export default async function setup(): Promise<() => void> {
  const apiRoot = join(import.meta.dirname, "..", "..");
  // Inside the package, so that the bundle finds pdf-lib and the fonts in its node_modules.
  const outdir = join(apiRoot, "node_modules", ".cache", "clinsign-test", String(process.pid));
  mkdirSync(outdir, { recursive: true });
  await build({
    ...bundleOptions,
    entryPoints: { "pdf-worker": join(apiRoot, "src", "core", "pdf-worker", "worker.ts") },
    outdir,
  });
  process.env[PDF_WORKER_BUNDLE_VARIABLE] = join(outdir, "pdf-worker.js");
  return () => rmSync(outdir, { recursive: true, force: true });
}
