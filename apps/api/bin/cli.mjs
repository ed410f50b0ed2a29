#!/usr/bin/env node
// `pnpm cli …`: the API's administration CLI. A bin rather than a root script, so pnpm prints no
// banner and `--json` output is the only thing on stdout. It uses the same default data folder
// as `pnpm start` (./.data at the repository root), so both see the same database.
import { spawnSync } from "node:child_process";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const root = join(dirname(fileURLToPath(import.meta.url)), "..", "..", "..");
const env = { ...process.env, DATA_DIR: resolve(process.env.DATA_DIR || join(root, ".data")) };
const tsx = join(root, "apps", "api", "node_modules", ".bin", "tsx");
const result = spawnSync(tsx, [join(root, "apps", "api", "src", "cli.ts"), ...process.argv.slice(2)], {
  env,
  stdio: "inherit",
});
process.exit(result.status ?? 1);
