#!/usr/bin/env node
// `pnpm start`: builds what changed (turbo's cache makes an unchanged tree a no-op), then runs
// the API (which migrates, and on an empty database seeds the demo organization) and the web
// app side by side. `--api-only` runs the API alone, for workers, scale-out and benchmarks.
// Ctrl-C (or SIGTERM) stops both.
import { spawn, spawnSync } from "node:child_process";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { childEnv } from "./start-env.mjs";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const apiOnly = process.argv.includes("--api-only");
const env = childEnv(process.env, { apiOnly, root });
const host = env.API_HOST || "127.0.0.1";

const turbo = join(root, "node_modules", ".bin", "turbo");
const filters = apiOnly ? ["--filter=@clinsign/api"] : ["--filter=@clinsign/api", "--filter=@clinsign/web"];
console.log(`Building ${apiOnly ? "the API" : "the API and the web app"} (cached when nothing changed)…`);
const built = spawnSync(turbo, ["run", "build", ...filters, "--output-logs=errors-only"], {
  cwd: root,
  env,
  stdio: "inherit",
});
if (built.status !== 0) {
  console.error("The build failed; see the output above.");
  process.exit(built.status ?? 1);
}

const children = [];
let stopping = false;

function run(name, command, args, cwd, extraEnv = {}) {
  const child = spawn(command, args, { cwd, env: { ...env, ...extraEnv }, stdio: "inherit" });
  children.push(child);
  child.on("exit", (code, signal) => {
    if (stopping) return;
    console.error(`${name} stopped (${signal ?? `exit ${code}`}); stopping the rest.`);
    stop(code ?? 1);
  });
  return child;
}

function stop(code = 0) {
  if (stopping) return;
  stopping = true;
  for (const child of children) if (child.exitCode === null) child.kill("SIGTERM");
  const deadline = setTimeout(() => {
    for (const child of children) if (child.exitCode === null) child.kill("SIGKILL");
  }, 10_000);
  Promise.all(children.map((child) => (child.exitCode !== null ? null : new Promise((r) => child.on("exit", r))))).then(
    () => {
      clearTimeout(deadline);
      process.exit(code);
    },
  );
}

process.on("SIGINT", () => stop(0));
process.on("SIGTERM", () => stop(0));

const apiArgs = ["--enable-source-maps", "dist/server.js", ...(apiOnly ? [] : ["--seed-demo"])];
run("API", process.execPath, apiArgs, join(root, "apps", "api"));
if (!apiOnly) {
  // apps/web/server.mjs: Next's handler behind a server that tells the API which client it saw.
  run("Web", process.execPath, ["server.mjs"], join(root, "apps", "web"), {
    WEB_HOST: host,
    WEB_PORT: env.WEB_PORT || "3000",
  });
}
