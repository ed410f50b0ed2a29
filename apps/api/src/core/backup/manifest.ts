/**
 * A backup's manifest.json: what the backup holds (database, stored files, the data folder's
 * keys), each file with its size and SHA-256, and the facts a restore checks before it writes
 * anything (database kind, schema level, storage kind). Also the file helpers both directions
 * share: copying a stream to a file while hashing it, and hashing a file.
 */
import { createHash } from "node:crypto";
import { createReadStream, createWriteStream } from "node:fs";
import { mkdir, readFile, rename, rm, writeFile } from "node:fs/promises";
import { dirname, join, relative, resolve, sep } from "node:path";
import type { Readable } from "node:stream";
import { pipeline } from "node:stream/promises";
import { z } from "zod";
import apiPackage from "../../../package.json";
import { AppError } from "../errors";
import { measured } from "../files/stored-bytes";

export const MANIFEST_FILE = "manifest.json";
/** Bumped when a restore of an older build could not read the backup correctly. */
export const BACKUP_FORMAT_VERSION = 1;

/** Backups hold patient data: only the owner may read them. */
export const DIR_MODE = 0o700;
export const FILE_MODE = 0o600;

const sha256 = z.string().regex(/^[0-9a-f]{64}$/);

const backupFile = z.object({
  /** Relative to the backup folder, with `/`. */
  path: z.string().min(1),
  /** database: the dump or the PGlite data folder; storage: a stored file (`files/<key>`); key: a key of DATA_DIR. */
  role: z.enum(["database", "storage", "key"]),
  size: z.number().int().nonnegative(),
  sha256,
});
export type BackupFile = z.infer<typeof backupFile>;

const manifestSchema = z.object({
  format: z.literal("clinsign-backup"),
  formatVersion: z.number().int().positive(),
  /** When the backup started: the database is read first, so this is the moment it stands for. */
  createdAt: z.string(),
  clinsignVersion: z.string(),
  database: z.object({
    kind: z.enum(["postgres", "pglite"]),
    /** postgres: the pg_dump custom-format file; pglite: the folder holding the data directory's copy. */
    path: z.string(),
    /** PostgreSQL's version (server_version, or PGlite's PG_VERSION). */
    postgresVersion: z.string().nullable(),
    /** The drizzle migrations applied: how many, and the newest one's tag. */
    schema: z.object({ migrations: z.number().int().nonnegative(), latest: z.string().nullable() }),
    /** pglite: the data directory's folders, empty ones included (PostgreSQL needs them). */
    directories: z.array(z.string()).optional(),
  }),
  storage: z.object({
    kind: z.enum(["fs", "db", "s3"]),
    /** Stored files in the backup's `files/` folder (0 for db: they are rows of the dump). */
    files: z.number().int().nonnegative(),
    bytes: z.number().int().nonnegative(),
    note: z.string().optional(),
  }),
  keys: z.object({
    /** Where the key that encrypts stored secrets came from, and its id (a hash, not the key). */
    encryption: z.object({ source: z.enum(["data-dir", "environment"]), id: z.string() }),
    /** data-dir: the development signing certificate of DATA_DIR/signing is in `keys/signing/`. */
    signing: z.enum(["data-dir", "environment", "none"]),
  }),
  files: z.array(backupFile),
});
export type BackupManifest = z.infer<typeof manifestSchema>;

/** The running build's version, as the API package names it. */
export const clinsignVersion = (): string => apiPackage.version;

/** `path` inside `root`, or an error: a manifest may not point outside its backup. */
export function insideBackup(root: string, path: string): string {
  const full = resolve(root, path);
  if (!full.startsWith(resolve(root) + sep)) throw tampered(path, "its path leaves the backup folder");
  return full;
}

export const relativePath = (root: string, full: string) => relative(root, full).split(sep).join("/");

export function tampered(path: string, why: string): AppError {
  return new AppError("invalid_request", `backup refused: ${path} ${why}; the backup is damaged or was changed`, {
    file: path,
  });
}

/** Streams `source` into a new file (mode 0600, written aside and renamed), answering its size and SHA-256. */
export async function writeHashed(source: Readable | AsyncIterable<Buffer>, path: string) {
  await mkdir(dirname(path), { recursive: true, mode: DIR_MODE });
  const { chunks, result } = measured(source as AsyncIterable<Buffer>);
  const partial = `${path}.partial`;
  try {
    await pipeline(chunks, createWriteStream(partial, { mode: FILE_MODE }));
    await rename(partial, path);
  } catch (error) {
    await rm(partial, { force: true });
    throw error;
  }
  return result;
}

export async function hashFile(path: string): Promise<{ size: number; sha256: string }> {
  const { chunks, result } = measured(createReadStream(path) as AsyncIterable<Buffer>);
  for await (const _ of chunks);
  return result;
}

/**
 * The file's bytes as they stream, checked against the manifest on the way: the last chunk is
 * only passed on once the size and SHA-256 match, so a consumer never takes a changed file whole.
 */
export async function* verifiedStream(root: string, file: BackupFile): AsyncIterable<Buffer> {
  const hash = createHash("sha256");
  let size = 0;
  let held: Buffer | null = null;
  try {
    for await (const chunk of createReadStream(insideBackup(root, file.path)) as AsyncIterable<Buffer>) {
      hash.update(chunk);
      size += chunk.length;
      if (size > file.size) throw tampered(file.path, `is larger than the manifest says (${file.size} bytes)`);
      if (held) yield held;
      held = chunk;
    }
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") throw tampered(file.path, "is missing");
    throw error;
  }
  if (size !== file.size || hash.digest("hex") !== file.sha256)
    throw tampered(file.path, "does not match its SHA-256 in the manifest");
  if (held) yield held;
}

/** Checks every file of the manifest against its size and SHA-256, before anything is restored. */
export async function verifyBackupFiles(root: string, manifest: BackupManifest): Promise<void> {
  for (const file of manifest.files) for await (const _ of verifiedStream(root, file));
}

export async function writeManifest(root: string, manifest: BackupManifest): Promise<string> {
  const text = JSON.stringify(manifest, null, 2) + "\n";
  await writeFile(join(root, MANIFEST_FILE), text, { mode: FILE_MODE });
  return createHash("sha256").update(text).digest("hex");
}

/** The backup's manifest, or a clear error for a missing folder, a missing or unreadable manifest. */
export async function readManifest(root: string): Promise<BackupManifest> {
  let text: string;
  try {
    text = await readFile(join(root, MANIFEST_FILE), "utf8");
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === "ENOENT" || code === "ENOTDIR")
      throw new AppError("not_found", `no backup in ${root}: ${MANIFEST_FILE} is missing (or the folder is)`);
    throw error;
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw tampered(MANIFEST_FILE, "is not JSON");
  }
  const manifest = manifestSchema.safeParse(parsed);
  if (!manifest.success) throw tampered(MANIFEST_FILE, "is not a ClinSign backup manifest");
  if (manifest.data.formatVersion > BACKUP_FORMAT_VERSION)
    throw new AppError(
      "invalid_request",
      `the backup's format (${manifest.data.formatVersion}) is newer than this build reads (${BACKUP_FORMAT_VERSION}); ` +
        `restore it with ClinSign ${manifest.data.clinsignVersion} or later`,
    );
  for (const file of manifest.data.files) insideBackup(root, file.path);
  return manifest.data;
}
