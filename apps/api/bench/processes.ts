import { randomBytes } from "node:crypto";
import { execFile, spawn, type ChildProcess } from "node:child_process";
import { createServer } from "node:net";
import { dirname, join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";

/** Output kept per child; the servers log at `warn`, so this only fills up if something is wrong. */
const MAX_OUTPUT_CHARS = 1024 * 1024;
const STOP_GRACE_MS = 10_000;

/** Every child still running, so an error or Ctrl-C can end exactly these pids and no others. */
const running = new Set<ChildProcess>();

export interface ServerProcess {
  name: string;
  pid: number;
  /** `http://127.0.0.1:<port>`; load only ever goes to loopback. */
  baseUrl: string;
  /** stdout and stderr so far, interleaved. */
  output(): string;
  exited(): boolean;
  /** SIGTERM, then SIGKILL if the child has not exited after a grace period. */
  stop(): Promise<void>;
}

/** A port the kernel just handed out; the tiny race until the child binds it is acceptable here. */
export async function freePort(): Promise<number> {
  return new Promise((resolvePort, reject) => {
    const probe = createServer();
    probe.once("error", reject);
    probe.listen(0, "127.0.0.1", () => {
      const address = probe.address();
      probe.close(() =>
        typeof address === "object" && address ? resolvePort(address.port) : reject(new Error("no port")),
      );
    });
  });
}

function waitForExit(child: ChildProcess, ms: number): Promise<boolean> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve(true);
  return new Promise((done) => {
    const timer = setTimeout(() => done(false), ms);
    child.once("exit", () => {
      clearTimeout(timer);
      done(true);
    });
  });
}

/** Runs `node <nodeArgs> <script> <args>` in `cwd`; the child's pid is the server itself, whose /proc we read. */
function startNodeServer(options: {
  name: string;
  nodeArgs: string[];
  script: string;
  args?: string[];
  cwd: string;
  env: NodeJS.ProcessEnv;
  port: number;
}): ServerProcess {
  const child = spawn(process.execPath, [...options.nodeArgs, options.script, ...(options.args ?? [])], {
    cwd: options.cwd,
    env: options.env,
    stdio: ["ignore", "pipe", "pipe"],
  });
  if (child.pid === undefined) throw new Error(`could not start ${options.name}`);
  running.add(child);
  child.once("exit", () => running.delete(child));

  // Both pipes must be drained at all times: Node writes to a pipe synchronously, so a full one would stall the server.
  let output = "";
  const collect = (chunk: Buffer) => {
    if (output.length < MAX_OUTPUT_CHARS) output += chunk.toString("utf8");
  };
  child.stdout!.on("data", collect);
  child.stderr!.on("data", collect);

  const exited = () => child.exitCode !== null || child.signalCode !== null;
  return {
    name: options.name,
    pid: child.pid,
    baseUrl: `http://127.0.0.1:${options.port}`,
    output: () => output,
    exited,
    async stop() {
      if (exited()) return;
      child.kill("SIGTERM");
      if (!(await waitForExit(child, STOP_GRACE_MS))) {
        child.kill("SIGKILL");
        await waitForExit(child, STOP_GRACE_MS);
      }
    },
  };
}

/**
 * Runs a TypeScript file under `node --import tsx` rather than `npx tsx`: the child's pid is then
 * the server itself. For bench helpers (the bare baseline); the API runs from its bundle.
 */
export function startTsServer(options: {
  name: string;
  script: string;
  args?: string[];
  cwd: string;
  env: NodeJS.ProcessEnv;
  port: number;
  /** More node flags, as for startApiServer. */
  nodeArgs?: string[];
}): ServerProcess {
  return startNodeServer({ ...options, nodeArgs: ["--import", "tsx", ...(options.nodeArgs ?? [])] });
}

/** apps/api, whose dist/ the bench runs. */
export const API_DIR = join(dirname(fileURLToPath(import.meta.url)), "..");

let bundleBuilt: Promise<void> | undefined;

/**
 * Builds apps/api/dist (`tsx build.ts`, as `pnpm build` does) once per bench run, so the bundle
 * measured is always the working tree's code: esbuild takes well under a second, a stale bundle
 * would measure the wrong code.
 */
export function buildApiBundle(): Promise<void> {
  bundleBuilt ??= promisify(execFile)(join(API_DIR, "node_modules", ".bin", "tsx"), ["build.ts"], {
    cwd: API_DIR,
    timeout: 120_000,
  }).then(() => undefined);
  return bundleBuilt;
}

/**
 * The API as `pnpm start` runs it: `node --enable-source-maps dist/server.js`, built first by
 * `buildApiBundle`. Measuring the bundle rather than the sources under tsx is what a deployment
 * runs (no loader hooks, one module instead of hundreds).
 */
export async function startApiServer(options: {
  name: string;
  args?: string[];
  env: NodeJS.ProcessEnv;
  port: number;
  /** More node flags, e.g. `--cpu-prof` to profile the API under a scenario's load. */
  nodeArgs?: string[];
}): Promise<ServerProcess> {
  await buildApiBundle();
  return startNodeServer({
    ...options,
    nodeArgs: ["--enable-source-maps", ...(options.nodeArgs ?? [])],
    script: "dist/server.js",
    cwd: API_DIR,
  });
}

/** Last resort on process exit: only our own children, by pid. */
export function killRunningChildren(): void {
  for (const child of running) child.kill("SIGKILL");
}

export function describeFailure(server: ServerProcess, message: string): Error {
  const tail = server.output().slice(-2000).trimEnd();
  return new Error(`${server.name}: ${message}${tail ? `\n--- last output of ${server.name} ---\n${tail}` : ""}`);
}

/** Polls `path` until it answers 200; fails fast if the child dies (bad config, port taken …). */
export async function waitUntilReady(server: ServerProcess, path: string, timeoutMs = 120_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (server.exited()) throw describeFailure(server, "exited before it became ready");
    try {
      const response = await fetch(server.baseUrl + path, { signal: AbortSignal.timeout(2000) });
      await response.arrayBuffer();
      if (response.ok) return;
    } catch {
      // Not listening yet.
    }
    await sleep(250);
  }
  throw describeFailure(server, `not ready after ${timeoutMs / 1000} s`);
}

/** Waits until the child's output matches `pattern` (output arrives on a pipe, possibly after /readyz answers). */
export async function waitForOutput(
  server: ServerProcess,
  pattern: RegExp,
  timeoutMs = 10_000,
): Promise<RegExpMatchArray> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const match = server.output().match(pattern);
    if (match) return match;
    if (server.exited() || Date.now() > deadline) throw describeFailure(server, `never printed ${pattern}`);
    await sleep(50);
  }
}

const BENCH_ENCRYPTION_KEY = randomBytes(32).toString("hex");

/**
 * The API's environment: a fresh DATA_DIR every time (PGlite files, or on PostgreSQL just the
 * development certificate, with one ENCRYPTION_KEY for the whole run), quiet logs, nothing inherited that
 * would change what is measured (TLS, a proxy, another database). `allowHosts` are the loopback
 * servers (PDF files, webhook receiver) the API may call.
 */
export function apiEnv(
  port: number,
  dataDir: string,
  databaseUrl: string | undefined,
  allowHosts: string[] = [],
): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    NODE_ENV: "development",
    DATA_DIR: dataDir,
    API_HOST: "127.0.0.1",
    API_PORT: String(port),
    LOG_LEVEL: "warn",
    ALLOW_INSECURE_HTTP: "true",
  };
  for (const key of [
    "DATABASE_URL",
    "TLS_CERT_FILE",
    "TLS_KEY_FILE",
    "TRUST_PROXY",
    "PUBLIC_API_URL",
    "OUTBOUND_ALLOW_HOSTS",
  ])
    delete env[key];
  if (databaseUrl) {
    env.DATABASE_URL = databaseUrl;
    // Required with DATABASE_URL; every process of one benchmark run shares it.
    env.ENCRYPTION_KEY ??= BENCH_ENCRYPTION_KEY;
  }
  if (allowHosts.length > 0) env.OUTBOUND_ALLOW_HOSTS = allowHosts.join(",");
  return env;
}
