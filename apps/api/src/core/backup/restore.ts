/**
 * `pnpm cli restore <dir>`: a backup of `backup.ts` into an empty database and empty file storage.
 * Everything that can refuse does so before anything is written: the manifest, the database kind,
 * the schema level, the keys, empty targets, and every file's size and SHA-256. Files are checked
 * again while they are restored, so a file changed in between is refused too.
 */
import { join } from "node:path";
import { createDb, type Database } from "@clinsign/db";
import { AppError } from "../errors";
import type { FileStorage } from "../files/file-storage";
import { storageBackend } from "../files/storage";
import type { BackupConfig, Progress } from "./backup";
import {
  buildSchemaLevel,
  isDatabaseEmpty,
  isFolderEmpty,
  lockEmbeddedDatabase,
  restorePgliteDir,
  restorePostgres,
  schemaLevelOf,
} from "./database";
import { checkKeys, restoreKeys } from "./keys";
import {
  insideBackup,
  readManifest,
  tampered,
  verifiedStream,
  verifyBackupFiles,
  type BackupManifest,
} from "./manifest";

export interface RestoreSummary {
  ok: true;
  database: BackupManifest["database"]["kind"];
  schema: BackupManifest["database"]["schema"];
  storage: BackupConfig["storage"];
  files: number;
  bytes: number;
  createdAt: string;
}

export async function restoreBackup(config: BackupConfig, dir: string, progress: Progress = () => {}) {
  const manifest = await readManifest(dir);
  await checkCompatible(config, manifest);
  const unlock = lockEmbeddedDatabase(config, "restoring");
  try {
    await checkKeys(config, manifest);
    await checkTargetsEmpty(config);
    progress(`verifying ${manifest.files.length} files against the manifest`);
    await verifyBackupFiles(dir, manifest);
    return await restoreVerified(config, dir, manifest, progress);
  } finally {
    unlock();
  }
}

/** The backup fits this installation: the same database kind, a schema this build knows, a storage it can take. */
async function checkCompatible(config: BackupConfig, manifest: BackupManifest): Promise<void> {
  const { kind, schema } = manifest.database;
  if (kind === "postgres" && !config.databaseUrl)
    throw new AppError(
      "invalid_request",
      "this backup holds a PostgreSQL database (pg_dump): set DATABASE_URL to an empty PostgreSQL database to restore it",
    );
  if (kind === "pglite" && config.databaseUrl)
    throw new AppError(
      "invalid_request",
      "this backup holds an embedded (PGlite) database: unset DATABASE_URL to restore it into DATA_DIR",
    );
  const known = buildSchemaLevel();
  if (schema.migrations > known.migrations)
    throw new AppError(
      "invalid_request",
      `the backup's schema (${schema.migrations} migrations, ${schema.latest}) is newer than this build's ` +
        `(${known.migrations}, ${known.latest}): restore it with ClinSign ${manifest.clinsignVersion} or later`,
    );
  // The files of a STORAGE=db backup are rows of its database: they can only come back as rows.
  if (manifest.storage.kind === "db" && config.storage !== "db")
    throw new AppError(
      "invalid_request",
      "this backup's files are inside its database (STORAGE=db): restore with STORAGE=db, then move them " +
        "with `pnpm cli storage migrate --from db --to " +
        config.storage +
        "`",
    );
}

async function checkTargetsEmpty(config: BackupConfig): Promise<void> {
  if (config.databaseUrl) {
    const empty = await withTarget(config, isDatabaseEmpty);
    if (!empty)
      throw new AppError(
        "conflict",
        "the database of DATABASE_URL is not empty: restore into a new, empty database (createdb)",
      );
  } else if (!(await isFolderEmpty(join(config.dataDir, "pglite"))))
    throw new AppError(
      "conflict",
      `${join(config.dataDir, "pglite")} is not empty (it holds a database): restore into a new DATA_DIR (or move it away)`,
    );
  if (config.storage === "db") return; // rows of the database just found empty
  for await (const _ of targetStorage(config).list())
    throw new AppError(
      "conflict",
      config.storage === "s3"
        ? `the bucket ${config.s3?.bucket} is not empty: restore into an empty bucket`
        : `${join(config.dataDir, "files")} is not empty: restore into a new DATA_DIR (or move it away)`,
    );
}

async function restoreVerified(config: BackupConfig, dir: string, manifest: BackupManifest, progress: Progress) {
  const saved = manifest.database;
  const dbFiles = manifest.files.filter((f) => f.role === "database");
  progress(`database: restoring (${saved.kind})`);
  // pg_restore writes all or nothing; from then on (and for PGlite from its first file) a failure leaves a part.
  let partly = saved.kind === "pglite";
  try {
    if (saved.kind === "postgres") {
      const [dump] = dbFiles;
      if (!dump) throw tampered(saved.path, "is not in the manifest");
      // Checked once more just before pg_restore reads it.
      for await (const _ of verifiedStream(dir, dump));
      await restorePostgres(config.databaseUrl!, insideBackup(dir, dump.path));
      partly = true;
    } else await restorePgliteDir(dir, saved.path, saved.directories ?? [], dbFiles, join(config.dataDir, "pglite"));
    // PGlite's files were each checked against the manifest, so its schema is the backup's; opening
    // it again (seconds) is only needed to write STORAGE=db rows.
    const restored =
      config.databaseUrl || config.storage === "db"
        ? await withTarget(config, async (db) => ({
            schema: await schemaLevelOf(db),
            files: await restoreFiles(config, dir, manifest, progress, db),
          }))
        : { schema: saved.schema, files: await restoreFiles(config, dir, manifest, progress) };
    if (restored.schema.migrations !== saved.schema.migrations)
      throw new AppError("internal_error", "the restored database's schema level differs from the manifest's");
    await restoreKeys(config, dir, manifest);
    progress("done");
    return {
      ok: true,
      database: saved.kind,
      schema: restored.schema,
      storage: config.storage,
      ...restored.files,
      createdAt: manifest.createdAt,
    } satisfies RestoreSummary;
  } catch (error) {
    if (!partly || !(error instanceof AppError)) throw error;
    throw new AppError(
      error.code,
      `${error.message} (the target is partly restored: empty the database and the storage before trying again)`,
      error.details,
    );
  }
}

/** Every stored file of the backup into the configured storage, under its own key, checked while it streams. */
async function restoreFiles(
  config: BackupConfig,
  dir: string,
  manifest: BackupManifest,
  progress: Progress,
  database?: Database,
): Promise<{ files: number; bytes: number }> {
  const storage = targetStorage(config, database);
  const stored = manifest.files.filter((f) => f.role === "storage");
  let bytes = 0;
  for (const [index, file] of stored.entries()) {
    const key = file.path.slice("files/".length);
    const written = await storage.putAs(key, verifiedStream(dir, file));
    if (written.size !== file.size || written.sha256 !== file.sha256)
      throw tampered(file.path, "was not stored as the manifest says");
    bytes += written.size;
    if ((index + 1) % 100 === 0 || index + 1 === stored.length) progress(`files: ${index + 1}/${stored.length}`);
  }
  return { files: stored.length, bytes };
}

function targetStorage(config: BackupConfig, database?: Database): FileStorage {
  return storageBackend({ kind: config.storage, dataDir: config.dataDir, s3: config.s3 }, database?.db);
}

/** Opens the target database for one step and closes it again. */
async function withTarget<T>(config: BackupConfig, use: (database: Database) => Promise<T>): Promise<T> {
  const database = config.databaseUrl
    ? createDb({ databaseUrl: config.databaseUrl, maxConnections: 1 })
    : createDb({ dataDir: join(config.dataDir, "pglite") });
  try {
    return await use(database);
  } finally {
    await database.close();
  }
}
