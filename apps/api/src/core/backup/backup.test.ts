/**
 * The restore drill: an installation populated through the real API (a sealed signature, a
 * submission with an attachment, a draft, their audit entries) is backed up with `pnpm cli
 * backup`, restored with `pnpm cli restore` into an empty database and empty storage, and served
 * again; everything must be there and verify. On PGlite and on PostgreSQL (DATABASE_URL), with
 * files on disk and in a bucket.
 */
import { readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  cliIn,
  emptyInstallation,
  populate,
  sourceInstallation,
  type DrillRecords,
  type Installation,
} from "../../testing/backup-drill";
import { startTestApi, type TestApi, type TestOrg } from "../../testing/harness";
import { startTestS3, type TestS3 } from "../../testing/s3-server";
import { bearer, startFileServer, type FileServer } from "../../testing/signature-fixtures";
import { verifyOrganizationChain } from "../audit/audit-log";
import { systemContext } from "../context";
import { publicContext } from "../identity/public-context";
import { verifySealedPdf } from "../public/verify-sealed-pdf";
import { findSubmission } from "../submissions/submission-reads";
import { isDatabaseEmpty, isFolderEmpty } from "./database";
import type { BackupManifest } from "./manifest";

const postgresRun = Boolean(process.env.DATABASE_URL);
let files: FileServer;
let s3: TestS3;
const cleanup: (() => Promise<void>)[] = [];

beforeAll(async () => {
  files = await startFileServer();
  s3 = await startTestS3(["backup-source", "backup-target", "backup-other"]);
});
afterAll(async () => {
  for (const step of cleanup.reverse()) await step().catch(() => {});
  await files.close();
  await s3.close();
});

const apiEnv = (env: Record<string, string>) => ({
  ...env,
  OUTBOUND_ALLOW_HOSTS: files.hostPort,
  PUBLIC_WEB_URL: "https://portal.test",
  PUBLIC_API_URL: "https://api.test",
});

/** Populates a new installation through the API, stops it and backs it up into `<its folder>-backup`. */
async function backedUpInstallation(storage: Record<string, string>) {
  const source = await sourceInstallation(storage);
  cleanup.push(source.remove);
  const api = await startTestApi(apiEnv(source.env), { database: source.database, dataDir: source.dataDir });
  const org = await api.createOrg("Klinik Nord");
  const records = await populate(api, files, org);
  await api.close();
  await source.stop();
  const dir = `${source.dataDir}-backup`;
  cleanup.push(async () => rmSync(dir, { recursive: true, force: true }));
  const backup = await cliIn(source.env, "backup", dir);
  expect(backup.stderr).not.toMatch(/ {4}at /);
  expect(backup, JSON.stringify(backup.json)).toMatchObject({ code: 0, json: { ok: true } });
  return { source, dir, org, records, manifest: JSON.parse(readFileSync(join(dir, "manifest.json"), "utf8")) };
}

async function restoredInto(target: Installation, dir: string) {
  const restore = await cliIn(target.env, "restore", dir);
  expect(restore, JSON.stringify(restore.json)).toMatchObject({ code: 0, json: { ok: true } });
  return startTestApi(apiEnv(target.env), { database: target.open(), dataDir: target.dataDir });
}

/** Everything the drill made is on the restored copy, byte for byte, and verifies. */
async function expectRestored(api: TestApi, org: TestOrg, records: DrillRecords) {
  const ctx = systemContext(api.services, org.orgId);
  expect(await verifyOrganizationChain(ctx)).toMatchObject({ ok: true });
  const signed = await fetch(`${api.baseUrl}/signature-requests/${records.sealed.id}/signed.pdf`, {
    headers: bearer(org),
  });
  expect(signed.status).toBe(200);
  const pdf = Buffer.from(await signed.arrayBuffer());
  expect(pdf.equals(records.sealed.pdf)).toBe(true);
  const anyone = publicContext(api.services, { requestId: "backup-test", ip: null, userAgent: null });
  expect(await verifySealedPdf(anyone, { pdf })).toMatchObject({
    status: "sealed",
    intact: true,
    sealedByThisService: true,
  });

  const submission = await findSubmission(ctx, records.submission.id);
  expect(submission.values).toMatchObject({ note: "Wundkontrolle", scan: [{ path: records.submission.upload.path }] });
  const url = new URL(records.submission.upload.url);
  const attachment = await fetch(`${api.baseUrl}${url.pathname}${url.search}`);
  expect(attachment.status).toBe(200);
  expect(Buffer.from(await attachment.arrayBuffer()).equals(records.submission.bytes)).toBe(true);

  const { templateIdentifier, draftKey, values } = records.draft;
  const query = new URLSearchParams({ token: org.token, orgId: org.orgId, templateIdentifier, draftKey });
  const draft = await api.request("GET", `/api/embed/drafts?${query}`);
  expect(draft.status).toBe(200);
  expect(draft.body.draft.values).toEqual(values);
}

/** Starts the API on the restored copy in `target`, checks it against `records`, and stops it. */
async function expectRestoredInto(target: Installation, dir: string, org: TestOrg, records: DrillRecords) {
  const api = await restoredInto(target, dir);
  try {
    await expectRestored(api, org, records);
  } finally {
    await api.close();
    await api.services.database.close();
  }
}

describe("backup and restore", () => {
  it("restores files on disk into an empty database and data folder, and refuses what it must", async () => {
    const { dir, org, records, manifest, source } = await backedUpInstallation({ STORAGE: "fs" });
    const m = manifest as BackupManifest;
    expect(m).toMatchObject({
      format: "clinsign-backup",
      database: { kind: postgresRun ? "postgres" : "pglite", schema: { migrations: expect.any(Number) } },
      storage: { kind: "fs", files: expect.any(Number) },
      keys: { encryption: { source: postgresRun ? "environment" : "data-dir" }, signing: "data-dir" },
    });
    // The sealed PDF, its metadata, the signature image, the document and the attachment at least.
    expect(m.storage.files).toBeGreaterThanOrEqual(5);
    expect(m.files.every((f) => /^[0-9a-f]{64}$/.test(f.sha256))).toBe(true);
    expect(statSync(dir).mode & 0o777).toBe(0o700);
    expect(statSync(join(dir, "manifest.json")).mode & 0o777).toBe(0o600);
    expect(statSync(join(dir, m.files[0]!.path)).mode & 0o777).toBe(0o600);

    const target = await emptyInstallation({ STORAGE: "fs" });
    cleanup.push(target.remove);
    await expectRestoredInto(target, dir, org, records);

    // A target that is no longer empty, a folder that is no backup, a backup for the other engine.
    const again = await cliIn(target.env, "restore", dir);
    expect(again).toMatchObject({ code: 1, json: { ok: false, error: expect.stringContaining("not empty") } });
    const missing = await cliIn(target.env, "restore", join(dir, "nope"));
    expect(missing).toMatchObject({ code: 1, json: { ok: false, error: expect.stringContaining("no backup in") } });
    const otherKind = postgresRun
      ? { ...target.env, DATABASE_URL: "", ENCRYPTION_KEY: "" }
      : { ...target.env, DATABASE_URL: "postgres://nobody@127.0.0.1:1/none", ENCRYPTION_KEY: "ab".repeat(32) };
    const wrongKind = await cliIn(otherKind, "restore", dir);
    expect(wrongKind.json.error).toMatch(postgresRun ? /PostgreSQL database/ : /embedded \(PGlite\) database/);
    expect(wrongKind.code).toBe(1);
    const notEmpty = await cliIn(source.env, "backup", dir);
    expect(notEmpty.json.error).toMatch(/is not empty/);
    expect(await cliIn(source.env, "backup")).toMatchObject({ code: 2 });

    // One changed byte in a stored file: refused before anything is written, naming the file.
    const stored = m.files.find((f) => f.role === "storage")!;
    const bytes = readFileSync(join(dir, stored.path));
    bytes[bytes.length - 1]! ^= 1;
    writeFileSync(join(dir, stored.path), bytes);
    const fresh = await emptyInstallation({ STORAGE: "fs" });
    cleanup.push(fresh.remove);
    const tampered = await cliIn(fresh.env, "restore", dir);
    expect(tampered.code).toBe(1);
    expect(tampered.json.error).toContain(stored.path);
    expect(tampered.json.error).toContain("SHA-256");
    expect(tampered.stderr).not.toMatch(/ {4}at /);
    expect(await isFolderEmpty(join(fresh.dataDir, "files"))).toBe(true);
    const freshDatabase = postgresRun ? fresh.open() : null;
    if (freshDatabase) expect(await isDatabaseEmpty(freshDatabase).finally(() => freshDatabase.close())).toBe(true);
    else expect(await isFolderEmpty(join(fresh.dataDir, "pglite"))).toBe(true);
  }, 120_000);

  // STORAGE=db is the PostgreSQL deployment's choice (docs/operations.md, Scale-out); on PGlite the
  // case would add a third data-directory round trip (seconds) and prove nothing the others do not.
  it.runIf(postgresRun)(
    "restores STORAGE=db, whose files are rows of the database backup, and only into STORAGE=db",
    async () => {
      const { dir, org, records, manifest } = await backedUpInstallation({ STORAGE: "db" });
      const m = manifest as BackupManifest;
      expect(m.storage).toMatchObject({ kind: "db", files: 0, note: expect.stringContaining("blobs") });
      expect(m.files.some((f) => f.role === "storage")).toBe(false);
      const onDisk = await emptyInstallation({ STORAGE: "fs" });
      cleanup.push(onDisk.remove);
      expect((await cliIn(onDisk.env, "restore", dir)).json.error).toMatch(/restore with STORAGE=db/);
      const target = await emptyInstallation({ STORAGE: "db" });
      cleanup.push(target.remove);
      await expectRestoredInto(target, dir, org, records);
    },
    120_000,
  );

  it("restores a bucket's files into an empty bucket", async () => {
    const bucket = (name: string) => ({ ...s3.env, S3_BUCKET: name });
    const { dir, org, records, manifest } = await backedUpInstallation(bucket("backup-source"));
    expect((manifest as BackupManifest).storage).toMatchObject({ kind: "s3" });
    const target = await emptyInstallation(bucket("backup-target"));
    cleanup.push(target.remove);
    await expectRestoredInto(target, dir, org, records);
    // The source bucket still holds its files: restoring into it is refused.
    const into = await emptyInstallation(bucket("backup-source"));
    cleanup.push(into.remove);
    const refused = await cliIn(into.env, "restore", dir);
    expect(refused.json.error).toMatch(/bucket backup-source is not empty/);
  }, 120_000);
});
