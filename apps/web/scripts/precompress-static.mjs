// After `next build`: brotli copies of the static assets, which server.mjs serves (src/lib/precompressed.mjs).
import { dirname, join } from "node:path";
import process from "node:process";
import { fileURLToPath } from "node:url";
import { precompress } from "../src/lib/precompressed.mjs";

const dir = join(dirname(fileURLToPath(import.meta.url)), "..", ".next", "static");
const count = await precompress(dir);
process.stdout.write(`precompressed ${count} static files with brotli\n`);
