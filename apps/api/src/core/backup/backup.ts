/**
 * `pnpm cli backup <dir>`: the database (pg_dump, or a copy of the closed PGlite data directory),
 * every stored file of the configured backend, the keys DATA_DIR holds, and manifest.json with
 * the size and SHA-256 of each. The database is taken first and the files after it, so every file
 * a row of the dump names is there (a file written meanwhile is an orphan in the backup, harmless).
 */
import { join } from "node:path";
import { chmod, mkdir, readdir, rm } from "node:fs/promises";
import { createDb, type Database } from "@clinsign/db";
import type { Config } from "../../env";
import { AppError } from "../errors";
import { storageBackend } from "../files/storage";
import {
  copyPgliteDir,
  dumpPostgres,
  lockEmbeddedDatabase,
  openPgliteDir,
  postgresVersionOf,
  schemaLevelOf,
} from "./database";
import { backupKeys } from "./keys";
import {
  BACKUP_FORMAT_VERSION,
  clinsignVersion,
  DIR_MODE,
  writeHashed,
  writeManifest,
  type BackupFile,
  type BackupManifest,
} from "./manifest";

export type BackupConfig = Pick<
  Config,
  "databaseUrl" | "dataDir" | "storage" | "s3" | "encryptionKey" | "previousEncryptionKeys" | "signingP12"
>;

export interface BackupSummary {
  ok: true;
  dir: string;
  database: BackupManifest["database"]["kind"];
  storage: BackupManifest["storage"];
  files: number;
  bytes: number;
  /** Keep it apart from the backup: it proves later that the manifest itself is unchanged. */
  manifestSha256: string;
}

/** Progress lines (no keys' contents, no patient data: paths and counts). */
export type Progress = (line: string) => void;

export async function createBackup(config: BackupConfig, dir: string, progress: Progress = () => {}) {
  await prepareFolder(dir);
  // The moment the backup stands for: the database is read first.
  const createdAt = new Date().toISOString();
  // PGlite allows one process per data folder; holding the lock keeps a server from starting meanwhile.
  const unlock = lockEmbeddedDatabase(config, "taking a backup");
  try {
    const database = await backupDatabase(config, dir, progress);
    const storage = await backupFiles(config, dir, progress);
    const keys = await backupKeys(config, dir);
    const files = [...database.files, ...storage.files, ...keys.files];
    const manifest: BackupManifest = {
      format: "clinsign-backup",
      formatVersion: BACKUP_FORMAT_VERSION,
      createdAt,
      clinsignVersion: clinsignVersion(),
      database: database.manifest,
      storage: storage.manifest,
      keys: keys.keys,
      files,
    };
    const manifestSha256 = await writeManifest(dir, manifest);
    const bytes = files.reduce((sum, f) => sum + f.size, 0);
    return {
      ok: true,
      dir,
      database: database.manifest.kind,
      storage: storage.manifest,
      files: files.length,
      bytes,
      manifestSha256,
    } satisfies BackupSummary;
  } catch (error) {
    // A half backup without its manifest could be mistaken for one; nothing of it is kept.
    await rm(dir, { recursive: true, force: true });
    throw error;
  } finally {
    unlock();
  }
}

/** The backup folder: new, or empty; created for its owner only. */
async function prepareFolder(dir: string): Promise<void> {
  let entries: string[] = [];
  try {
    entries = await readdir(dir);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === "ENOTDIR") throw new AppError("conflict", `${dir} is a file, not a folder`);
    if (code !== "ENOENT") throw error;
  }
  if (entries.length > 0) throw new AppError("conflict", `${dir} is not empty: back up into a new or empty folder`);
  await mkdir(dir, { recursive: true, mode: DIR_MODE });
  await chmod(dir, DIR_MODE); // a folder that existed keeps its mode otherwise
}

async function backupDatabase(config: BackupConfig, dir: string, progress: Progress) {
  await mkdir(join(dir, "database"), { mode: DIR_MODE });
  if (config.databaseUrl) {
    const { schema, version } = await withDatabase(createDb({ databaseUrl: config.databaseUrl, maxConnections: 1 }));
    progress("database: pg_dump (custom format)");
    const path = "database/postgres.dump";
    const dumped = await dumpPostgres(config.databaseUrl, join(dir, path));
    progress(`database: ${dumped.size} bytes`);
    const file: BackupFile = { path, role: "database", ...dumped };
    return { manifest: { kind: "postgres" as const, path, postgresVersion: version, schema }, files: [file] };
  }
  const pgliteDir = join(config.dataDir, "pglite");
  // Opened and closed again: a closed data directory is consistent, and its copy is too.
  const { schema, version } = await withDatabase(openPgliteDir(pgliteDir));
  progress("database: copying the PGlite data directory");
  const path = "database/pglite";
  const copied = await copyPgliteDir(pgliteDir, join(dir, path), dir);
  progress(`database: ${copied.files.length} files`);
  return {
    manifest: { kind: "pglite" as const, path, postgresVersion: version, schema, directories: copied.directories },
    files: copied.files,
  };
}

async function withDatabase(database: Database) {
  try {
    return { schema: await schemaLevelOf(database), version: await postgresVersionOf(database) };
  } finally {
    await database.close();
  }
}

/** Stored files, one at a time, as `files/<key>`; with STORAGE=db they are rows of the dump already. */
async function backupFiles(config: BackupConfig, dir: string, progress: Progress) {
  if (config.storage === "db")
    return {
      manifest: {
        kind: "db" as const,
        files: 0,
        bytes: 0,
        note: "STORAGE=db: the stored files are rows of the blobs table, inside the database backup",
      },
      files: [],
    };
  const storage = storageBackend({ kind: config.storage, dataDir: config.dataDir, s3: config.s3 });
  const keys: string[] = [];
  for await (const key of storage.list()) keys.push(key);
  keys.sort();
  const files: BackupFile[] = [];
  for (const [index, key] of keys.entries()) {
    const stream = await storage.getStream(key);
    if (!stream) continue; // deleted since it was listed: no row of the dump names it
    const path = `files/${key}`;
    files.push({ path, role: "storage", ...(await writeHashed(stream.body, join(dir, path))) });
    if ((index + 1) % 100 === 0 || index + 1 === keys.length) progress(`files: ${index + 1}/${keys.length}`);
  }
  const bytes = files.reduce((sum, f) => sum + f.size, 0);
  return { manifest: { kind: config.storage, files: files.length, bytes }, files };
}
