import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { defineConfig } from "@playwright/test";
import {
  ADMIN_EMAIL,
  ADMIN_PASSWORD,
  API_PORT,
  DNS_PORT,
  FILE_SERVER_PORT,
  IDP_PORT,
  SMS_GATEWAY_PORT,
  SMTP_PORT,
  WEB_PORT,
  WEBHOOK_RECEIVER_PORT,
} from "./tests/support";

// One fresh data folder per run, removed when the run ends (E2E_KEEP_DATA=1 keeps it). The
// config is also loaded by the worker processes: they inherit the variable, so only the
// process that created the folder removes it, after Playwright has stopped the servers.
if (!process.env.CLINSIGN_E2E_DATA_DIR) {
  const dataDir = mkdtempSync(join(tmpdir(), "clinsign-e2e-"));
  process.env.CLINSIGN_E2E_DATA_DIR = dataDir;
  if (!process.env.E2E_KEEP_DATA) process.on("exit", () => rmSync(dataDir, { recursive: true, force: true }));
}

/**
 * Debian's chromium-headless-shell, the headless build Playwright's own browsers run as: the same
 * engine without the full browser around it, a quarter less CPU over the suite than the full one
 * in headless mode (docs/performance.md, "The Playwright suite's browser"). The full browser where
 * the shell is not installed; E2E_CHROMIUM names another.
 */
const chromium =
  process.env.E2E_CHROMIUM ??
  (existsSync("/usr/bin/chromium-headless-shell") ? "/usr/bin/chromium-headless-shell" : "/usr/bin/chromium");

export default defineConfig({
  testDir: "./tests",
  globalSetup: "./tests/global-setup.ts",
  workers: 1,
  fullyParallel: false,
  forbidOnly: Boolean(process.env.CI),
  retries: 0,
  timeout: 60_000,
  expect: { timeout: 10_000 },
  reporter: process.env.CI ? [["list"], ["html", { open: "never" }]] : "list",
  use: {
    baseURL: `http://localhost:${WEB_PORT}`,
    locale: "en-GB",
    // A failed test's trace keeps each action's DOM snapshot, not the screencast: recording its frames
    // was a fifth of the suite's time on 2 cores (docs/performance.md, "CI time on a slow machine"),
    // and the failure's own screenshot stays.
    trace: { mode: "retain-on-failure", screenshots: false },
    screenshot: "only-on-failure",
    launchOptions: {
      executablePath: chromium,
      args: [
        "--no-sandbox",
        "--disable-gpu",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
        "--no-first-run",
      ],
    },
  },
  webServer: {
    // The whole service, as an operator starts it: build if needed, migrate, run. The organizations
    // are made first (provision.ts: the demo one as the server's seed makes it, and a second one),
    // while the embedded database is still free for another process.
    command: "node ../apps/api/node_modules/tsx/dist/cli.mjs provision.ts && node ../scripts/start.mjs",
    url: `http://localhost:${WEB_PORT}/login`,
    timeout: 300_000,
    reuseExistingServer: Boolean(process.env.E2E_REUSE_SERVER),
    stdout: "pipe",
    stderr: "pipe",
    env: {
      DATA_DIR: process.env.CLINSIGN_E2E_DATA_DIR,
      API_PORT: String(API_PORT),
      WEB_PORT: String(WEB_PORT),
      PUBLIC_WEB_URL: `http://localhost:${WEB_PORT}`,
      ALLOW_INSECURE_HTTP: "true",
      // sso.spec.ts and identity-trust.spec.ts publish the TXT records that prove SSO domains here.
      DNS_RESOLVERS: `127.0.0.1:${DNS_PORT}`,
      OUTBOUND_ALLOW_HOSTS: `127.0.0.1:${FILE_SERVER_PORT},127.0.0.1:${WEBHOOK_RECEIVER_PORT},127.0.0.1:${IDP_PORT}`,
      // forms-sms.spec.ts runs this SMTP server; when it is not running, mails just wait for retry.
      SMTP_URL: `smtp://127.0.0.1:${SMTP_PORT}`,
      // SMS go to a Twilio-compatible gateway the SMS tests run (forms-support.ts startSmsGateway);
      // the staff outbox shows OTP codes and portal links redacted.
      SMS_PROVIDER: "twilio",
      TWILIO_API_URL: `http://127.0.0.1:${SMS_GATEWAY_PORT}`,
      TWILIO_ACCOUNT_SID: "ACe2e",
      TWILIO_AUTH_TOKEN: "e2e-gateway-token",
      TWILIO_FROM: "+15005550006",
      SEED_ADMIN_EMAIL: ADMIN_EMAIL,
      SEED_ADMIN_PASSWORD: ADMIN_PASSWORD,
      NEXT_TELEMETRY_DISABLED: "1",
    },
  },
});
