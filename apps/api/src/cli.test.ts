import { execFile } from "node:child_process";
import { randomBytes } from "node:crypto";
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestDb } from "@clinsign/db/testing";
import { runCli } from "./cli/run";
import type { Database } from "@clinsign/db";
import { S3Storage } from "./core/files/s3-storage";
import { FsStorage } from "./core/files/storage";
import { startTestS3 } from "./testing/s3-server";
import { readZip } from "./testing/zip";

const execute = promisify(execFile);
const dataDir = mkdtempSync(join(tmpdir(), "clinsign-cli-"));
const tsx = join(__dirname, "..", "node_modules", ".bin", "tsx");
let database: (Database & { url?: string }) | undefined;
let env: Record<string, string>;

beforeAll(async () => {
  env = {
    ...(process.env as Record<string, string>),
    DATA_DIR: dataDir,
    LOG_LEVEL: "silent",
    ENCRYPTION_KEY: randomBytes(32).toString("hex"),
  };
  if (process.env.DATABASE_URL) {
    // A database of its own, so the CLI's writes meet no other test.
    database = await createTestDb();
    env.DATABASE_URL = database.url!;
  } else delete env.DATABASE_URL;
});
afterAll(async () => {
  await database?.close();
  rmSync(dataDir, { recursive: true, force: true });
});

async function cli(...args: string[]): Promise<{ code: number; json: Record<string, unknown>; stderr: string }> {
  return cliWith({}, ...args);
}

/**
 * Runs a command in this process, as `pnpm cli` would in its own: configuration from the
 * environment, the database opened and closed again. Starting tsx for each of some forty
 * commands took minutes; the process entry itself is tried once below.
 */
async function cliWith(
  extraEnv: Record<string, string>,
  ...args: string[]
): Promise<{ code: number; json: Record<string, unknown>; stderr: string }> {
  let stdout = "";
  let stderr = "";
  const code = await runCli([...args, "--json"], {
    env: { ...env, ...extraEnv },
    stdout: { write: (text: string) => (stdout += text) },
    stderr: { write: (text: string) => (stderr += text) },
  });
  return { code, json: stdout ? JSON.parse(stdout) : {}, stderr };
}

describe("the pnpm cli process", () => {
  it("answers with JSON on stdout and the exit code: 2 for a usage mistake, 2 for bad configuration", async () => {
    type Exited = { code?: number; stdout: string; stderr: string };
    const failed = (error: unknown) => error as Exited;
    const usage: Exited = await execute(tsx, [join(__dirname, "cli.ts"), "token", "create", "--json"], { env }).catch(
      failed,
    );
    expect(usage.code).toBe(2);
    expect(JSON.parse(usage.stdout)).toMatchObject({ ok: false, error: expect.stringContaining("--org is required") });
    const misconfigured: Exited = await execute(tsx, [join(__dirname, "cli.ts"), "migrate", "--json"], {
      env: { ...env, SEAL_P12_TIMEOUT_SECONDS: "0" },
    }).catch(failed);
    expect(misconfigured.code).toBe(2);
    expect(misconfigured.stderr).toContain("SEAL_P12_TIMEOUT_SECONDS");
    expect(misconfigured.stderr).not.toContain("    at ");
  }, 60_000);
});

describe("pnpm cli", () => {
  it("bootstraps an organization, tokens, a user and settings, with --json output", async () => {
    const org = await cli("org", "create", "--name", "Klinikum CLI");
    expect(org.code).toBe(0);
    expect(org.json).toEqual({ orgId: expect.stringMatching(/^[0-9a-f-]{36}$/), token: expect.stringMatching(/^cs_/) });
    const orgId = org.json.orgId as string;

    const token = await cli("token", "create", "--org", orgId, "--name", "HIS");
    expect(token.json).toEqual({ id: expect.any(String), token: expect.stringMatching(/^cs_/) });
    expect(await cli("token", "revoke", "--org", orgId, "--id", token.json.id as string)).toMatchObject({
      code: 0,
      json: { ok: true },
    });

    expect(
      await cli(
        "user",
        "create",
        "--org",
        orgId,
        "--email",
        "chef@example.org",
        "--password",
        "long-password",
        "--role",
        "admin",
      ),
    ).toMatchObject({
      code: 0,
      json: { userId: expect.any(String) },
    });
    const duplicate = await cli(
      "user",
      "create",
      "--org",
      orgId,
      "--email",
      "chef@example.org",
      "--password",
      "long-password",
    );
    expect(duplicate).toMatchObject({ code: 1, json: { ok: false, error: "a user with this e-mail already exists" } });

    const configured = await cli(
      "org",
      "configure",
      "--org",
      orgId,
      "--webhook-url",
      "https://a.example.org/hook",
      "--webhook-url",
      "https://b.example.org/hook",
      "--webhook-secret",
      "0123456789abcdef0123",
      "--otp",
      "on",
      "--session-jwt-secret",
      "jwt-secret-of-enough-length",
      "--require-session-verification",
      "on",
      "--session-audience",
      "clinsign",
      "--session-issuer",
      "https://portal.example",
      "--require-jti",
      "on",
    );
    expect(configured).toMatchObject({ code: 0, json: { ok: true } });

    // org created + 2 tokens (create, revoke) + config change: every step left a verifiable trail.
    expect(await cli("audit", "verify", "--org", orgId)).toMatchObject({
      code: 0,
      json: {
        ok: true,
        entries: 4,
        brokenAt: null,
        problem: null,
        unchained: { count: 0, oldestAgeSeconds: null, maxAgeSeconds: 60 },
        warnings: [],
      },
    });
  }, 120_000);

  it("explains usage mistakes", async () => {
    expect(await cli("token", "create")).toMatchObject({
      code: 2,
      json: { ok: false, error: expect.stringContaining("--org is required") },
    });
    expect(await cli("org", "configure", "--org", "nope", "--otp", "on")).toMatchObject({
      code: 2,
      json: { error: expect.stringContaining("UUID") },
    });
    expect(await cli("frobnicate", "now")).toMatchObject({
      code: 2,
      json: { error: expect.stringContaining("unknown command") },
    });
  }, 60_000);

  it("refuses the embedded database while a server holds it, but works against PostgreSQL at any time", async () => {
    // The test runner's parent process stands in for a live server holding the data folder.
    writeFileSync(join(dataDir, "server.pid"), String(process.ppid));
    try {
      const res = await cli("org", "create", "--name", "While running");
      if (process.env.DATABASE_URL) {
        expect(res).toMatchObject({ code: 0, json: { orgId: expect.any(String) } });
      } else {
        expect(res.code).toBe(1);
        expect(res.json.error).toContain("is running on the embedded database");
      }
    } finally {
      rmSync(join(dataDir, "server.pid"));
    }
  }, 60_000);
});

describe("pnpm cli storage migrate", () => {
  it("copies every file fs → s3 → db under the same keys, and a second run skips them all", async () => {
    const s3 = await startTestS3(["cli-migrate"]);
    try {
      const fs = new FsStorage(dataDir);
      const files = [
        await fs.put("documents", Buffer.from("%PDF-1.7 one")),
        await fs.put("signed", Buffer.from("two")),
      ];
      const toS3 = await cliWith(s3.env, "storage", "migrate", "--from", "fs", "--to", "s3");
      expect(toS3).toMatchObject({ code: 0, json: { ok: true, total: 2, copied: 2, skipped: 0, bytes: 15 } });
      expect(toS3.stderr).toContain(`[2/2] copied `);
      const bucket = new S3Storage(s3.settings({ bucket: "cli-migrate" }));
      for (const file of files) expect(await bucket.stat(file.key)).toEqual({ size: file.size, sha256: file.sha256 });
      expect(await cliWith(s3.env, "storage", "migrate", "--from", "fs", "--to", "s3")).toMatchObject({
        json: { copied: 0, skipped: 2 },
      });
      expect(await cliWith(s3.env, "storage", "migrate", "--from", "s3", "--to", "db")).toMatchObject({
        code: 0,
        json: { total: 2, copied: 2 },
      });
      // The rows hold the same bytes: copying back finds nothing to do.
      expect(await cliWith(s3.env, "storage", "migrate", "--from", "db", "--to", "s3")).toMatchObject({
        json: { total: 2, copied: 0, skipped: 2 },
      });
      expect(await cliWith(s3.env, "storage", "migrate", "--from", "s3", "--to", "s3")).toMatchObject({
        code: 2,
        json: { error: expect.stringContaining("--from and --to must differ") },
      });
    } finally {
      await s3.close();
    }
  }, 120_000);
});

describe("pnpm cli storage reconcile / orphans", () => {
  it("reports an object no row references, with when it will be deleted, and deletes nothing yet", async () => {
    const orphan = await new FsStorage(dataDir).put("signatures", Buffer.from("a drawn signature nobody references"));
    const run = await cli("storage", "reconcile");
    expect(run).toMatchObject({ code: 0, json: { ok: true, deleted: 0 } });
    expect(run.json.orphans).toBeGreaterThanOrEqual(1);
    const report = await cli("storage", "orphans");
    expect(report).toMatchObject({ code: 0, json: { graceHours: 168, lastRun: { error: null } } });
    const listed = (report.json.orphans as { key: string; deletesAfter: string | null }[]).find(
      (o) => o.key === orphan.key,
    );
    expect(listed?.deletesAfter).toEqual(expect.any(String));
    expect(statSync(join(dataDir, "files", orphan.key)).size).toBeGreaterThan(0);
  }, 180_000);
});

describe("pnpm cli patients export", () => {
  it("writes the patient access export to --out (an empty manifest for a patient with nothing held)", async () => {
    const org = await cli("org", "create", "--name", "Klinikum Export");
    const orgId = org.json.orgId as string;
    const out = join(dataDir, "patient.zip");
    const done = await cli(
      "patients",
      "export",
      "--org",
      orgId,
      "--patient-id",
      "P-none",
      "--language",
      "uk",
      "--out",
      out,
    );
    expect(done).toMatchObject({ code: 0, json: { ok: true, out } });
    const entries = await readZip(readFileSync(out));
    expect(done.json.bytes).toBe(statSync(out).size);
    const manifest = JSON.parse(entries.get("manifest.json")!.toString("utf8"));
    expect(manifest).toMatchObject({
      organization: { id: orgId },
      selector: { patientId: "P-none" },
      language: "uk",
      records: [],
    });
    expect(entries.get("index.html")!.toString("utf8")).toContain('<html lang="uk" dir="ltr">');
    expect(existsSync(`${out}.partial`)).toBe(false);

    expect(await cli("patients", "export", "--org", orgId, "--out", out)).toMatchObject({
      code: 1,
      json: { error: expect.stringContaining("name at least one of patientId, rnummer, phone") },
    });
    expect(
      await cli("patients", "export", "--org", orgId, "--patient-id", "P-none", "--language", "fr", "--out", out),
    ).toMatchObject({ code: 1, json: { error: expect.stringContaining("must be one of de, en, tr, ar, ru, uk, pl") } });
    expect(await cli("patients", "export", "--org", orgId, "--rnummer", "R-1")).toMatchObject({
      code: 2,
      json: { error: expect.stringContaining("--out is required") },
    });
  }, 300_000);
});

describe("pnpm cli retention", () => {
  it("sets periods (days, years, keep), previews and runs the sweep, places and releases a legal hold", async () => {
    const org = await cli("org", "create", "--name", "Klinikum Aufbewahrung");
    const orgId = org.json.orgId as string;
    const set = await cli(
      "retention",
      "set",
      "--org",
      orgId,
      "--submissions",
      "10y",
      "--drafts",
      "keep",
      "--outbox",
      "60d",
    );
    expect(set.code).toBe(0);
    expect(set.json.policy).toMatchObject({
      submissions: { amount: 10, unit: "years" },
      drafts: null,
      outbox: { amount: 60, unit: "days" },
      sessions: { amount: 90, unit: "days" },
      signatureRequests: null,
    });
    const preview = await cli("retention", "preview", "--org", orgId);
    expect(preview.json.kinds).toContainEqual(expect.objectContaining({ kind: "outbox", records: 0, held: 0 }));
    const run = await cli("retention", "run", "--org", orgId);
    expect(run.json).toMatchObject({ ok: true, runs: [{ orgId, status: "done", deleted: { drafts: 0 } }] });
    const bad = await cli("retention", "set", "--org", orgId, "--drafts", "forever");
    expect(bad.code).toBe(2);
    expect(bad.json.error).toContain("--drafts must be a number of days or years");
    const hold = await cli("hold", "place", "--org", orgId, "--rnummer", "R-77", "--reason", "Court order 12/26");
    expect(hold.json).toMatchObject({
      rnummer: "R-77",
      patientId: null,
      reason: "Court order 12/26",
      releasedAt: null,
    });
    const released = await cli("hold", "release", "--org", orgId, "--id", hold.json.id as string);
    expect(released.json.releasedAt).not.toBeNull();
  }, 240_000);

  it("erases a patient: a dry run reports, a selector naming nobody is refused", async () => {
    const org = await cli("org", "create", "--name", "Klinikum Löschung");
    const orgId = org.json.orgId as string;
    const dry = await cli("patients", "erase", "--org", orgId, "--rnummer", "R-CLI-1", "--dry-run");
    expect(dry).toMatchObject({ code: 0, json: { status: "nothing_found", dryRun: true, erasureId: null } });
    const unconfirmed = await cli("patients", "erase", "--org", orgId, "--phone", "+4915112345679");
    expect(unconfirmed.code).toBe(1);
    expect(unconfirmed.json).toMatchObject({ ok: false });
    const erased = await cli(
      "patients",
      "erase",
      "--org",
      orgId,
      "--phone",
      "+4915112345679",
      "--confirm",
      "0151 12345679",
      "--reason",
      "Art. 17 request",
    );
    expect(erased).toMatchObject({ code: 0, json: { status: "nothing_found", dryRun: false } });
    const nobody = await cli("patients", "erase", "--org", orgId, "--dry-run");
    expect(nobody.code).toBe(1);
    expect(nobody.json).toMatchObject({ ok: false });
  }, 120_000);
});

describe("pnpm cli fhir-push", () => {
  it("sets the FHIR server with a credential read from a file, shows it without the credential, keeps what is not given", async () => {
    const org = await cli("org", "create", "--name", "Klinikum FHIR");
    const orgId = org.json.orgId as string;
    const secretFile = join(dataDir, "fhir-token");
    writeFileSync(secretFile, "fhir-bearer-token\n", { mode: 0o600 });
    const set = await cli(
      "fhir-push",
      "set",
      "--org",
      orgId,
      "--base-url",
      "https://fhir.klinikum.example/R4",
      "--auth",
      "bearer",
      "--secret-file",
      secretFile,
      "--rnummer-system",
      "urn:oid:1.2.276.0.76.4.8",
    );
    expect(set.code).toBe(0);
    expect(set.json).toMatchObject({ enabled: true, auth: "bearer", hasSecret: true });
    const off = await cli("fhir-push", "set", "--org", orgId, "--enabled", "off");
    expect(off.json).toMatchObject({
      enabled: false,
      baseUrl: "https://fhir.klinikum.example/R4",
      auth: "bearer",
      hasSecret: true,
      rnummerSystem: "urn:oid:1.2.276.0.76.4.8",
    });
    const shown = await cli("fhir-push", "show", "--org", orgId);
    expect(JSON.stringify(shown.json)).not.toContain("fhir-bearer-token");
    const refused = await cli("fhir-push", "set", "--org", orgId, "--base-url", "http://fhir.klinikum.example/R4");
    expect(refused.code).toBe(1);
    expect(await cli("fhir-push", "deliveries", "--org", orgId)).toMatchObject({
      code: 0,
      json: { items: [], hasMore: false },
    });
  }, 60_000);
});
