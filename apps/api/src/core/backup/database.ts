/**
 * The database half of a backup: PostgreSQL through its own tools (pg_dump's custom format,
 * pg_restore), PGlite as a copy of its data directory taken while no process has it open.
 * Also what a restore checks first: the schema level, and that the target database is empty.
 */
import { spawn } from "node:child_process";
import { createReadStream, existsSync } from "node:fs";
import { chmod, mkdir, mkdtemp, open, readdir, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createDb, migrationJournal, rowsOf, sql, type Database } from "@clinsign/db";
import { lockDataDir } from "../../data-dir-lock";
import { AppError } from "../errors";
import {
  DIR_MODE,
  FILE_MODE,
  hashFile,
  insideBackup,
  relativePath,
  verifiedStream,
  writeHashed,
  type BackupFile,
} from "./manifest";

export type SchemaLevel = { migrations: number; latest: string | null };

export function buildSchemaLevel(): SchemaLevel {
  const entries = migrationJournal();
  return { migrations: entries.length, latest: entries.at(-1)?.tag ?? null };
}

/**
 * Runs a first query on a database the CLI just opened: an unreachable one, or one without
 * ClinSign's tables, is a clear error naming PostgreSQL's reason (never the URL or its password).
 */
export async function firstQuery<T>(what: string, query: () => Promise<T>): Promise<T> {
  try {
    return await query();
  } catch (error) {
    const cause = ((error as { cause?: unknown }).cause ?? error) as { code?: string; message?: string };
    if (cause.code === "42P01")
      throw new AppError("not_found", `${what} holds no ClinSign schema (no migrations applied)`);
    throw new AppError("service_unavailable", `${what} could not be read: ${cause.message ?? "unknown error"}`);
  }
}

/** The migrations applied to `database` (drizzle records each one's journal time). */
export async function schemaLevelOf(database: Database): Promise<SchemaLevel> {
  const rows = rowsOf<{ created_at: string | number }>(
    await firstQuery("the database", () =>
      database.db.execute(sql`select created_at from drizzle.__drizzle_migrations order by created_at`),
    ),
  );
  const newest = rows.at(-1);
  const tag = newest ? migrationJournal().find((e) => e.when === Number(newest.created_at))?.tag : undefined;
  return { migrations: rows.length, latest: tag ?? null };
}

export async function postgresVersionOf(database: Database): Promise<string | null> {
  const [row] = rowsOf<{ server_version: string }>(await database.db.execute(sql`show server_version`));
  return row?.server_version ?? null;
}

/** True when the database holds no table, sequence or view outside PostgreSQL's own schemas. */
export async function isDatabaseEmpty(database: Database): Promise<boolean> {
  const [row] = rowsOf<{ n: number }>(
    await firstQuery("the target database", () =>
      database.db.execute(sql`select count(*)::int as n from pg_class c
      join pg_namespace s on s.oid = c.relnamespace
      where s.nspname <> 'information_schema' and s.nspname not like 'pg\_%'`),
    ),
  );
  return Number(row?.n ?? 0) === 0;
}

/** Opens the PGlite of `dataDir` (DATA_DIR/pglite) without creating one where there is none. */
export function openPgliteDir(dir: string): Database {
  if (!existsSync(join(dir, "PG_VERSION")))
    throw new AppError("not_found", `no embedded database in ${dir} (is DATABASE_URL missing?)`);
  return createDb({ dataDir: dir });
}

// ---- PostgreSQL: pg_dump and pg_restore ----

/**
 * The connection for the PostgreSQL tools without the password on their command line (where
 * every local user could read it): the password goes to a passfile of our own, mode 0600.
 */
async function withToolConnection<T>(databaseUrl: string, use: (uri: string) => Promise<T>): Promise<T> {
  const url = new URL(databaseUrl);
  const password = decodeURIComponent(url.password);
  url.password = "";
  if (!password) return use(url.toString());
  const dir = await mkdtemp(join(tmpdir(), "clinsign-pgpass-"));
  try {
    const passfile = join(dir, "pgpass");
    await writeFile(passfile, `*:*:*:*:${password.replace(/[\\:]/g, (c) => `\\${c}`)}\n`, { mode: FILE_MODE });
    url.searchParams.set("passfile", passfile);
    return await use(url.toString());
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/**
 * Runs a PostgreSQL client tool. A missing tool and a failure are clear errors; what the tool
 * printed is reduced to its error lines, without the statements or data lines it may quote.
 */
function runTool(tool: string, args: string[]): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(tool, args, { stdio: ["ignore", "ignore", "pipe"] });
    let stderr = "";
    child.stderr.on("data", (chunk: Buffer) => {
      if (stderr.length < 16_384) stderr += chunk.toString("utf8");
    });
    child.once("error", (error: NodeJS.ErrnoException) =>
      reject(
        error.code === "ENOENT"
          ? new AppError(
              "service_unavailable",
              `${tool} was not found: install the PostgreSQL client tools (the server's major version or newer) and put them on PATH`,
            )
          : error,
      ),
    );
    child.once("close", (code) => {
      if (code === 0) return resolve();
      const lines = stderr
        .split("\n")
        .filter((line) => /^\S+: (error|fatal|detail|hint)/i.test(line))
        .map((line) => line.replace(/(Command was|CONTEXT):.*$/i, "").slice(0, 300));
      reject(new AppError("internal_error", `${tool} failed (exit ${code}): ${lines.join(" ") || "no message"}`));
    });
  });
}

/** `pg_dump --format=custom` of the database into `path` (mode 0600). */
export async function dumpPostgres(databaseUrl: string, path: string): Promise<{ size: number; sha256: string }> {
  // Created first with its mode: pg_dump keeps the mode of a file it overwrites.
  await (await open(path, "wx", FILE_MODE)).close();
  await withToolConnection(databaseUrl, (uri) =>
    runTool("pg_dump", ["--format=custom", "--no-password", `--file=${path}`, `--dbname=${uri}`]),
  );
  await chmod(path, FILE_MODE);
  return hashFile(path);
}

/**
 * Restores a custom-format dump into an empty database in one transaction (all or nothing). The
 * objects become the restoring user's (`--no-owner`): the service's role on the target, which
 * need not be called what it was on the source.
 */
export async function restorePostgres(databaseUrl: string, path: string): Promise<void> {
  await withToolConnection(databaseUrl, (uri) =>
    runTool("pg_restore", [
      "--no-password",
      "--no-owner",
      "--no-privileges",
      "--exit-on-error",
      "--single-transaction",
      `--dbname=${uri}`,
      path,
    ]),
  );
}

// ---- PGlite: its data directory, copied while closed ----

/** Copies the closed data directory `from` into `to`: every file hashed, every folder listed (empty ones too). */
export async function copyPgliteDir(
  from: string,
  to: string,
  backupRoot: string,
): Promise<{ files: BackupFile[]; directories: string[] }> {
  const entries = await readdir(from, { recursive: true, withFileTypes: true });
  const files: BackupFile[] = [];
  const directories: string[] = [];
  for (const entry of entries) {
    const source = join(entry.parentPath, entry.name);
    const target = join(to, relativePath(from, source));
    if (entry.isDirectory()) {
      directories.push(relativePath(from, source));
      await mkdir(target, { recursive: true, mode: DIR_MODE });
    } else if (entry.isFile()) {
      const written = await writeHashed(createReadStream(source), target);
      files.push({ path: relativePath(backupRoot, target), role: "database", ...written });
    }
  }
  return { files, directories: directories.sort() };
}

/** Writes the backup's PGlite data directory into the empty `to`, checking every file on the way. */
export async function restorePgliteDir(
  backupRoot: string,
  pgliteDir: string,
  directories: string[],
  files: BackupFile[],
  to: string,
): Promise<void> {
  await mkdir(to, { recursive: true, mode: DIR_MODE });
  for (const directory of directories) await mkdir(insideBackup(to, directory), { recursive: true, mode: DIR_MODE });
  const base = insideBackup(backupRoot, pgliteDir);
  for (const file of files) {
    const target = insideBackup(to, relativePath(base, insideBackup(backupRoot, file.path)));
    await writeHashed(verifiedStream(backupRoot, file), target);
  }
}

/** True when `dir` does not exist or holds nothing. */
export async function isFolderEmpty(dir: string): Promise<boolean> {
  try {
    return (await readdir(dir)).length === 0;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return true;
    throw error;
  }
}

/**
 * Holds DATA_DIR's lock while `what` runs on the embedded database (PGlite allows one process):
 * a running server is a clear error, and none can start meanwhile. Nothing to hold with PostgreSQL.
 * Answers the release.
 */
export function lockEmbeddedDatabase(config: { databaseUrl?: string; dataDir: string }, what: string): () => void {
  if (config.databaseUrl) return () => {};
  try {
    return lockDataDir(config.dataDir);
  } catch (error) {
    throw new AppError("conflict", `${error instanceof Error ? error.message : String(error)}; stop it before ${what}`);
  }
}
