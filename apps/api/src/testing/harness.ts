import { randomBytes } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Writable } from "node:stream";
import pino from "pino";
import type { Database } from "@clinsign/db";
import { createTestDb } from "@clinsign/db/testing";
import { systemContext, type OrgContext, type Services } from "../core/context";
import { createOrganization } from "../core/provisioning/organizations";
import { createApiToken } from "../core/tokens/tokens";
import { loadConfig } from "../env";
import { createServer } from "../http/server";
import { createLogger, createServices } from "../services";
import { jsonRequests, trpcClient, type TestRequest } from "./http-client";

export type { TestResponse } from "./http-client";
import { createStaffUser } from "../core/identity/store/accounts";

export interface TestApi {
  services: Services;
  baseUrl: string;
  dataDir: string;
  /** A new organization with an API token and an owner account. */
  createOrg(name?: string): Promise<TestOrg>;
  /** JSON request; returns status, parsed body and headers. */
  request: TestRequest;
  /** A tRPC client acting with the given Authorization bearer token or session cookie. */
  trpc(credentials: { bearer?: string; cookie?: string; sessionId?: string }): ReturnType<typeof trpcClient>;
  close(): Promise<void>;
}

export interface TestOrg {
  orgId: string;
  token: string;
  ownerEmail: string;
  ownerPassword: string;
  ctx: OrgContext;
}

/**
 * Starts the real HTTP server on a fresh database (PGlite in memory, or a new PostgreSQL
 * database when DATABASE_URL is set) on a random loopback port. A `database` or `dataDir` given
 * stays the caller's: close() leaves them (the backup tests read them after the server stopped).
 */
export async function startTestApi(
  env: Record<string, string> = {},
  options: { logSink?: Writable; database?: Database; dataDir?: string } = {},
): Promise<TestApi> {
  const dataDir = options.dataDir ?? mkdtempSync(join(tmpdir(), "clinsign-test-"));
  const config = loadConfig({
    NODE_ENV: "test",
    DATA_DIR: dataDir,
    LOG_LEVEL: "silent",
    ALLOW_INSECURE_HTTP: "true",
    ENCRYPTION_KEY: randomBytes(32).toString("hex"),
    // Drawing page images costs seconds per document in the PDF worker: only the tests of that
    // feature turn it on (core/signatures/page-images.test.ts), so every other test's job runs stay quick.
    PAGE_IMAGES: "false",
    ...env,
  });
  const database = options.database ?? (await createTestDb());
  // The production logger (serializers, redaction); silent unless a test reads what it writes.
  const log = options.logSink ? createLogger({ logLevel: "info" }, options.logSink) : pino({ level: "silent" });
  const services = await createServices(config, log, database);
  const server = createServer(services);
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  const scheme = config.tls ? "https" : "http";
  const baseUrl = `${scheme}://127.0.0.1:${port}`;
  let orgCount = 0;

  return {
    services,
    baseUrl,
    dataDir,
    async createOrg(name = `Clinic ${++orgCount}`) {
      const org = await createOrganization(services, { name });
      const ctx = systemContext(services, org.id);
      const token = await createApiToken(ctx, { name: "test token" });
      const ownerEmail = `owner-${randomBytes(4).toString("hex")}@example.org`;
      const ownerPassword = "correct horse battery";
      await createStaffUser(services, {
        organizationId: org.id,
        email: ownerEmail,
        password: ownerPassword,
        role: "owner",
      });
      return { orgId: org.id, token: token.token, ownerEmail, ownerPassword, ctx };
    },
    request: jsonRequests(baseUrl),
    trpc: (credentials) => trpcClient(baseUrl, credentials),
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      if (!options.database) await database.close();
      if (!options.dataDir) rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/** A stream that collects what a logger writes, one entry per line. */
export function logSink(): { sink: Writable; lines: string[] } {
  const lines: string[] = [];
  const sink = new Writable({
    write(chunk, _encoding, done) {
      lines.push(String(chunk));
      done();
    },
  });
  return { sink, lines };
}

/** Logs in through tRPC and returns the session cookie pair (`name=value`). */
export async function logInCookie(api: TestApi, email: string, password: string): Promise<string> {
  const response = await fetch(`${api.baseUrl}/trpc/auth.login`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ email, password }),
  });
  if (response.status !== 200) throw new Error(`login failed: ${response.status} ${await response.text()}`);
  const cookie = response.headers.getSetCookie()[0]!;
  return cookie.split(";")[0]!;
}
