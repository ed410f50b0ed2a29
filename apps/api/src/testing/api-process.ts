import { spawn, type ChildProcess } from "node:child_process";
import { randomBytes } from "node:crypto";
import { createServer } from "node:net";
import { join } from "node:path";
import { expect } from "vitest";
import type { Database } from "@clinsign/db";
import { createTestDb } from "@clinsign/db/testing";
import { runCli } from "../cli/run";
import { jsonRequests, trpcClient } from "./http-client";

/**
 * The API as its own operating-system process, for tests that kill it (SIGKILL leaves no chance
 * to clean up) and start another on the same database: what survives is only what was committed.
 */

export async function freePort(): Promise<number> {
  const probe = createServer();
  await new Promise<void>((resolve) => probe.listen(0, "127.0.0.1", resolve));
  const address = probe.address();
  await new Promise((resolve) => probe.close(resolve));
  if (!address || typeof address === "string") throw new Error("no port");
  return address.port;
}

/** Starts `src/server.ts` as its own process and waits until it answers /readyz. */
export async function startApiProcess(
  env: Record<string, string>,
  port: number,
  /** Receives what the process writes to stdout (its log lines), when a test reads them. */
  onOutput?: (text: string) => void,
): Promise<ChildProcess> {
  // One process (node with tsx as a loader, not the tsx wrapper), so SIGKILL really kills the server.
  const child = spawn(process.execPath, ["--import", "tsx", join(__dirname, "..", "server.ts")], {
    cwd: join(__dirname, "..", ".."),
    env: { ...env, API_PORT: String(port) },
    stdio: ["ignore", onOutput ? "pipe" : "ignore", "ignore"],
  });
  child.stdout?.setEncoding("utf8").on("data", (text: string) => onOutput?.(text));
  for (let i = 0; i < 150; i++) {
    const ready = await fetch(`http://127.0.0.1:${port}/readyz`)
      .then((r) => r.ok)
      .catch(() => false);
    if (ready) return child;
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  child.kill("SIGKILL");
  throw new Error("the API did not become ready");
}

/** Kills the process without a chance to clean up, and waits until it is gone. */
export async function killApiProcess(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((resolve) => child.once("exit", resolve));
  child.kill("SIGKILL");
  await exited;
}

export async function waitFor(check: () => boolean | Promise<boolean>, ms: number): Promise<void> {
  const deadline = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error("timed out");
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

/**
 * The CLI in this process with the API's environment, its `--json` answer parsed (cli.test.ts
 * tries its own process). It closes the database before a server opens it.
 */
export async function cliJson(env: Record<string, string>, ...args: string[]): Promise<Record<string, string>> {
  let stdout = "";
  const io = { env, stdout: { write: (text: string) => (stdout += text) }, stderr: { write: () => true } };
  expect(await runCli([...args, "--json"], io)).toBe(0);
  return JSON.parse(stdout) as Record<string, string>;
}

/** JSON requests and tRPC calls to an API process on `port` (loopback, plain HTTP). */
export function processApi(port: number) {
  const baseUrl = `http://127.0.0.1:${port}`;
  return {
    baseUrl,
    request: jsonRequests(baseUrl),
    trpc: (credentials: { bearer?: string; cookie?: string; sessionId?: string }) => trpcClient(baseUrl, credentials),
  };
}

/** Sends `signal` and waits for the process to end: its exit code, and how long that took. */
export async function signalApiProcess(
  child: ChildProcess,
  signal: NodeJS.Signals,
): Promise<{ code: number | null; ms: number }> {
  const started = Date.now();
  const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));
  child.kill(signal);
  return { code: await exited, ms: Date.now() - started };
}

/**
 * The environment API processes of one test share: `dataDir`, quiet logs, one encryption key, and
 * a database of their own — a new PostgreSQL database when DATABASE_URL is set (close it after), else
 * PGlite in `dataDir`. `extra` adds or overrides variables.
 */
export async function processEnvironment(
  dataDir: string,
  extra: Record<string, string> = {},
): Promise<{ env: Record<string, string>; database: (Database & { url?: string }) | undefined }> {
  const env: Record<string, string> = {
    ...(process.env as Record<string, string>),
    DATA_DIR: dataDir,
    LOG_LEVEL: "silent",
    ENCRYPTION_KEY: randomBytes(32).toString("hex"),
    ...extra,
  };
  if (!process.env.DATABASE_URL) {
    delete env.DATABASE_URL;
    return { env, database: undefined };
  }
  const database = await createTestDb();
  env.DATABASE_URL = database.url!;
  return { env, database };
}
