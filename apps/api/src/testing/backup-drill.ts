/**
 * The restore drill's pieces (core/backup/backup.test.ts): an installation to back up (its data
 * folder, and its database: PGlite files in that folder, or a PostgreSQL test database), an empty
 * one to restore into, the CLI run in this process, and the records the drill makes through the
 * real doors and checks again on the restored copy.
 */
import { randomBytes } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import postgres from "postgres";
import type { FormField } from "@clinsign/contracts";
import { createDb, type Database } from "@clinsign/db";
import { createTestDb } from "@clinsign/db/testing";
import { runCli } from "../cli/run";
import { activeTemplate, creds, newSession } from "./forms";
import type { TestApi, TestOrg } from "./harness";
import { signAndSeal, type FileServer } from "./signature-fixtures";

/** With PostgreSQL an ENCRYPTION_KEY is required; with PGlite the drill uses DATA_DIR's own key. */
const serverUrl = process.env.DATABASE_URL;
const sharedKey = randomBytes(32).toString("hex");

export interface Installation {
  dataDir: string;
  /** What the CLI and the API read: DATA_DIR, DATABASE_URL, ENCRYPTION_KEY and the storage's settings. */
  env: Record<string, string>;
  /** Opens its database (the source's stays open from creation until `closeDatabase`). */
  open(): Database;
  remove(): Promise<void>;
}

function baseEnv(dataDir: string, storage: Record<string, string>, databaseUrl?: string): Record<string, string> {
  return {
    DATA_DIR: dataDir,
    LOG_LEVEL: "silent",
    ...(serverUrl ? { ENCRYPTION_KEY: sharedKey, DATABASE_URL: databaseUrl! } : { ENCRYPTION_KEY: "" }),
    ...storage,
  };
}

/** A migrated installation to populate: its database is open (`database`) for the API to use. */
export async function sourceInstallation(storage: Record<string, string>) {
  const dataDir = mkdtempSync(join(tmpdir(), "clinsign-backup-src-"));
  const database = await createTestDb({ pgliteDataDir: join(dataDir, "pglite") });
  return {
    dataDir,
    database,
    env: baseEnv(dataDir, storage, database.url),
    /**
     * After the API stopped: PGlite's database is closed, as the backup copies its closed data
     * directory; PostgreSQL's stays up (pg_dump reads a consistent snapshot of a running one).
     */
    async stop() {
      if (!database.url) await database.close();
    },
    async remove() {
      await database.close().catch(() => {});
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/** An empty installation: a new data folder and, with PostgreSQL, a new empty database. */
export async function emptyInstallation(storage: Record<string, string>): Promise<Installation> {
  const dataDir = mkdtempSync(join(tmpdir(), "clinsign-backup-dst-"));
  let url: string | undefined;
  const name = `clinsign_restore_${randomBytes(6).toString("hex")}`;
  if (serverUrl) {
    const admin = postgres(serverUrl, { max: 1, onnotice: () => {} });
    await admin.unsafe(`create database ${name}`);
    await admin.end();
    const target = new URL(serverUrl);
    target.pathname = `/${name}`;
    url = target.toString();
  }
  return {
    dataDir,
    env: baseEnv(dataDir, storage, url),
    open: () => (url ? createDb({ databaseUrl: url }) : createDb({ dataDir: join(dataDir, "pglite") })),
    async remove() {
      rmSync(dataDir, { recursive: true, force: true });
      if (!url) return;
      const admin = postgres(serverUrl!, { max: 1, onnotice: () => {} });
      await admin.unsafe(`drop database if exists ${name} with (force)`);
      await admin.end();
    },
  };
}

/** Runs `pnpm cli …` in this process with the installation's environment; JSON answer, exit code, stderr. */
export async function cliIn(env: Record<string, string>, ...args: string[]) {
  let stdout = "";
  let stderr = "";
  const code = await runCli([...args, "--json"], {
    env,
    stdout: { write: (text: string) => (stdout += text) },
    stderr: { write: (text: string) => (stderr += text) },
  });
  return { code, json: (stdout ? JSON.parse(stdout) : {}) as Record<string, unknown>, stderr };
}

const FIELDS: FormField[] = [
  { id: "1", type: "text", key: "note", label: "Notiz" },
  { id: "2", type: "file", key: "scan", label: "Befund", accept: "application/pdf", maxSizeMb: 1 },
];

/** What the drill made, to be found again on the restored copy. */
export interface DrillRecords {
  sealed: { id: string; pdf: Buffer };
  submission: { id: string; upload: { path: string; url: string }; bytes: Buffer };
  draft: { templateIdentifier: string; draftKey: string; values: Record<string, unknown> };
}

async function post(api: TestApi, path: string, body: unknown) {
  const res = await api.request("POST", path, { body });
  if (res.status !== 200) throw new Error(`${path}: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body;
}

/** A sealed signature, a submission with an attachment and a draft, all through the API (each writes audit entries). */
export async function populate(api: TestApi, files: FileServer, org: TestOrg): Promise<DrillRecords> {
  const sealed = await signAndSeal(api, files, org, "P-backup-1");
  const template = await activeTemplate(org, FIELDS, "Anamnese Backup");
  const submitting = await newSession(api, org, template.identifier, { draftKey: "dk-submitted" });
  const form = new FormData();
  form.append("sessionId", submitting);
  const bytes = Buffer.from(`%PDF-1.4\n${randomBytes(2048).toString("base64")}\n`);
  form.append("file", new Blob([new Uint8Array(bytes)], { type: "application/pdf" }), "befund.pdf");
  const uploaded = await fetch(`${api.baseUrl}/api/embed/uploads`, { method: "POST", body: form });
  if (uploaded.status !== 200) throw new Error(`upload: ${uploaded.status}`);
  const scan = ((await uploaded.json()) as { files: { path: string; url: string }[] }).files;
  const submitted = await post(api, "/api/embed/submit", {
    sessionId: submitting,
    values: { note: "Wundkontrolle", scan },
  });
  const draftKey = "dk-draft";
  const values = { note: "noch offen" };
  await post(api, "/api/embed/drafts", { ...creds(org), templateIdentifier: template.identifier, draftKey, values });
  return {
    sealed: { id: sealed.id, pdf: sealed.pdf },
    submission: { id: submitted.submissionId as string, upload: scan[0]!, bytes },
    draft: { templateIdentifier: template.identifier, draftKey, values },
  };
}
