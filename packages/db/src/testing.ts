import { createHash, randomBytes } from "node:crypto";
import { existsSync, readdirSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { PGlite } from "@electric-sql/pglite";
import { drizzle } from "drizzle-orm/pglite";
import { migrate } from "drizzle-orm/pglite/migrator";
import postgres from "postgres";
import { createDb, type Database, migrationsFolder, pgliteOptions } from "./index";

/**
 * A fresh, migrated database for one test file: in-memory PGlite by default, or a new
 * PostgreSQL database on the server of `DATABASE_URL` (dropped again on close).
 *
 * Migrating costs 3–5 s of CPU per database, and a test run makes about ninety, so both engines
 * migrate once per set of migrations and copy the result: PGlite starts from a data directory
 * image kept in the temporary folder, PostgreSQL creates each database from a template.
 */
export async function createTestDb(
  /** `pgliteDataDir`: PGlite keeps its files there instead of in memory (the backup tests copy them). */
  options: { pgliteDataDir?: string } = {},
): Promise<Database & { url?: string }> {
  const serverUrl = process.env.DATABASE_URL;
  if (!serverUrl) return createDb({ pgliteImage: await migratedPgliteImage(), dataDir: options.pgliteDataDir });
  const name = `clinsign_test_${randomBytes(6).toString("hex")}`;
  const admin = postgres(serverUrl, { max: 1, onnotice: () => {} });
  try {
    await admin.unsafe(`create database ${name} template ${await migratedTemplate(admin, serverUrl)}`);
  } finally {
    await admin.end();
  }
  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
  const database = createDb({ databaseUrl: url.toString(), maxConnections: 20 });
  return {
    ...database,
    url: url.toString(),
    async close() {
      await database.close();
      const cleanup = postgres(serverUrl, { max: 1, onnotice: () => {} });
      await cleanup.unsafe(`drop database if exists ${name} with (force)`);
      await cleanup.end();
    },
  };
}

/**
 * Names the migrations' content and the PGlite release, so that a changed or added migration, or
 * another PGlite's data format, never meets an old copy.
 */
function migrationsFingerprint(): string {
  fingerprint ??= hashMigrations();
  return fingerprint;
}
let fingerprint: string | undefined;

function hashMigrations(): string {
  const hash = createHash("sha256");
  // pnpm's path of PGlite's entry names its release (node_modules/.pnpm/@electric-sql+pglite@x.y.z/…).
  const entry = createRequire(import.meta.url).resolve("@electric-sql/pglite");
  hash.update(/@electric-sql\+pglite@[^/\\]+/.exec(entry)?.[0] ?? entry).update("\0");
  const files = readdirSync(migrationsFolder, { recursive: true, encoding: "utf8" }).sort();
  for (const file of files) {
    const path = join(migrationsFolder, file);
    if (!file.endsWith(".sql") && !file.endsWith(".json")) continue;
    hash.update(file).update("\0").update(readFileSync(path)).update("\0");
  }
  return hash.digest("hex").slice(0, 16);
}

let pgliteImage: Promise<Blob> | undefined;

/** The migrated PGlite data directory, built by the first test process that needs it and shared through a file. */
function migratedPgliteImage(): Promise<Blob> {
  pgliteImage ??= (async () => {
    const file = join(tmpdir(), `clinsign-test-pglite-${migrationsFingerprint()}.tar`);
    if (existsSync(file)) return new Blob([readFileSync(file)]);
    const client = new PGlite(pgliteOptions);
    await migrate(drizzle({ client }), { migrationsFolder });
    const image = await client.dumpDataDir("none");
    await client.close();
    // Written aside and renamed, so that a process starting meanwhile never reads half a file.
    const partial = `${file}.${process.pid}.${randomBytes(4).toString("hex")}`;
    writeFileSync(partial, Buffer.from(await image.arrayBuffer()));
    renameSync(partial, file);
    return image;
  })();
  return pgliteImage;
}

/**
 * A migrated template database on the server, created under an advisory lock by the first test
 * process that needs it. PostgreSQL copies a template only while nobody is connected to it.
 */
async function migratedTemplate(admin: postgres.Sql, serverUrl: string): Promise<string> {
  const template = `clinsign_template_${migrationsFingerprint()}`;
  await admin`select pg_advisory_lock(hashtext(${template}))`;
  try {
    const [existing] = await admin`select 1 from pg_database where datname = ${template}`;
    if (existing) return template;
    const building = `${template}_building`;
    await admin.unsafe(`drop database if exists ${building} with (force)`);
    await admin.unsafe(`create database ${building}`);
    const url = new URL(serverUrl);
    url.pathname = `/${building}`;
    const database = createDb({ databaseUrl: url.toString(), maxConnections: 1 });
    try {
      await database.migrate();
    } finally {
      await database.close();
    }
    await admin.unsafe(`alter database ${building} rename to ${template}`);
    return template;
  } finally {
    await admin`select pg_advisory_unlock(hashtext(${template}))`;
  }
}
