// Opening the database: embedded PGlite (a data folder, or memory in tests) or PostgreSQL
// (DATABASE_URL), its migrations, and whether it is ready.
import { spawn } from "node:child_process";
import { existsSync, mkdirSync, readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { pathToFileURL } from "node:url";
import { PGlite, type PGliteOptions } from "@electric-sql/pglite";
import { type ExtractTablesWithRelations, sql } from "drizzle-orm";
import type { PgDatabase, PgQueryResultHKT, PgTransaction } from "drizzle-orm/pg-core";
import { drizzle as drizzlePglite } from "drizzle-orm/pglite";
import { migrate as migratePglite } from "drizzle-orm/pglite/migrator";
import { drizzle as drizzlePostgres } from "drizzle-orm/postgres-js";
import { migrate as migratePostgres } from "drizzle-orm/postgres-js/migrator";
import postgres from "postgres";
import * as schema from "./schema/index";

export type Schema = typeof schema;
export type Db = PgDatabase<PgQueryResultHKT, Schema>;
export type Tx = PgTransaction<PgQueryResultHKT, Schema, ExtractTablesWithRelations<Schema>>;
/** Either the root handle or an open transaction; services accept both and never reopen one. */
export type Executor = Db | Tx;

export type DbKind = "pglite" | "postgres";

export interface Database {
  db: Db;
  kind: DbKind;
  /** Connections this process may open: the pool's size (PGlite: its one connection). */
  poolSize: number;
  /** Applies pending migrations; safe to call on every start. */
  migrate(): Promise<void>;
  /** True when the database answers and every migration of this build is applied. */
  ready(): Promise<{ reachable: boolean; migrationsCurrent: boolean }>;
  close(): Promise<void>;
}

export interface CreateDbOptions {
  /** PostgreSQL connection string; when absent the embedded PGlite is used. */
  databaseUrl?: string;
  /** Folder for PGlite's files; `undefined` keeps PGlite in memory (tests). */
  dataDir?: string;
  /** An in-memory PGlite starts from this data directory image (`dumpDataDir`), not from initdb: tests. */
  pgliteImage?: Blob;
  /** Connection pool size for PostgreSQL. */
  maxConnections?: number;
  /**
   * PostgreSQL: keep the hot paths' statements prepared on each connection (default). Off for a
   * transaction-pooling proxy that cannot follow named statements across connections (PgBouncer
   * before 1.21, or without `max_prepared_statements`).
   */
  preparedStatements?: boolean;
}

export const migrationsFolder = join(
  dirname(createRequire(import.meta.url).resolve("@clinsign/db/package.json")),
  "drizzle",
);

/**
 * PGlite runs PostgreSQL in single-user mode inside this process, so its server settings are
 * our memory. initdb sizes shared_buffers for a server (128 MB) and WASM memory never shrinks
 * once touched; a clinic's database is small and its files stay in the OS page cache anyway,
 * so 16 MB of buffers costs little. One backend needs no room for 100 connections' lock and
 * process tables either.
 */
export const pgliteOptions: PGliteOptions = {
  startParams: [
    ...PGlite.defaultStartParams,
    "-c",
    "shared_buffers=16MB",
    "-c",
    "max_connections=10",
    "-c",
    "wal_buffers=1MB",
  ],
};

/**
 * Creates PGlite's cluster in `dataDir` when it has none yet, in a short-lived child process.
 * PGlite's initdb runs two further PostgreSQL instances (initdb and a bootstrap backend) whose
 * WASM memories and compiled code stay in the process until a major GC that an idle server may
 * never run: ~370 MiB of RSS on every first start. In a child they are gone when it exits.
 */
export async function initPgliteDataDir(dataDir: string): Promise<void> {
  if (existsSync(join(dataDir, "PG_VERSION"))) return;
  mkdirSync(dataDir, { recursive: true });
  const pgliteUrl = pathToFileURL(createRequire(import.meta.url).resolve("@electric-sql/pglite")).href;
  const script = [
    "const [url, dir, options] = process.argv.slice(1);",
    "const { PGlite } = await import(url);",
    "const pg = await PGlite.create(dir, JSON.parse(options));",
    "await pg.close();",
  ].join("\n");
  await new Promise<void>((resolve, reject) => {
    const child = spawn(
      process.execPath,
      ["--input-type=module", "-e", script, pgliteUrl, dataDir, JSON.stringify(pgliteOptions)],
      {
        stdio: ["ignore", "ignore", "pipe"],
        // Nothing inherited: the parent's NODE_OPTIONS (a tsx loader, an inspector port) are not for this child.
        env: {} as NodeJS.ProcessEnv,
      },
    );
    let stderr = "";
    child.stderr.on("data", (chunk: Buffer) => {
      if (stderr.length < 8192) stderr += chunk.toString("utf8");
    });
    child.once("error", reject);
    child.once("exit", (code, signal) => {
      if (code === 0) resolve();
      else
        reject(
          new Error(`PGlite initdb in ${dataDir} failed (${signal ?? `exit ${code}`}): ${stderr.trim().slice(-2000)}`),
        );
    });
  });
}

/** As `createDb`, but a new PGlite data directory is initialised out of process first (see initPgliteDataDir). */
export async function openDb(options: CreateDbOptions = {}): Promise<Database> {
  if (!options.databaseUrl && options.dataDir) await initPgliteDataDir(options.dataDir);
  return createDb(options);
}

/** The migrations this build ships, oldest first (drizzle's journal: each one's tag and the time drizzle records it by). */
export function migrationJournal(): { tag: string; when: number }[] {
  const journal = JSON.parse(readFileSync(join(migrationsFolder, "meta", "_journal.json"), "utf8")) as {
    entries: { tag: string; when: number }[];
  };
  return journal.entries;
}

export function createDb(options: CreateDbOptions = {}): Database {
  if (options.databaseUrl) {
    const poolSize = options.maxConnections ?? 10;
    const client = postgres(options.databaseUrl, {
      max: poolSize,
      // Only the statements built once (`preparedQuery`, `scopedQuery`, `scopedStatement`)
      // are kept on the server, a bounded set: drizzle sends its ad-hoc queries unnamed. A kept
      // statement is parsed and planned once per connection and then runs in one round trip; an
      // unnamed one with parameters costs two (describe, then bind) and a parse and plan each time.
      prepare: options.preparedStatements ?? true,
      onnotice: () => {},
    });
    const db = drizzlePostgres({ client, schema });
    return finish(
      db,
      "postgres",
      poolSize,
      () => migratePostgres(db, { migrationsFolder }),
      () => client.end({ timeout: 5 }),
    );
  }
  if (options.dataDir) mkdirSync(options.dataDir, { recursive: true });
  const client = new PGlite({ ...pgliteOptions, dataDir: options.dataDir, loadDataDir: options.pgliteImage });
  const db = drizzlePglite({ client, schema });
  return finish(
    db,
    "pglite",
    1,
    () => migratePglite(db, { migrationsFolder }),
    () => client.close(),
  );
}

function finish(
  db: Db,
  kind: DbKind,
  poolSize: number,
  runMigrations: () => Promise<void>,
  close: () => Promise<void>,
): Database {
  return {
    db,
    kind,
    poolSize,
    migrate: runMigrations,
    async ready() {
      try {
        const result = await db.execute(sql`select count(*)::int as n from drizzle.__drizzle_migrations`);
        const applied = Number(firstRow(result)?.n ?? 0);
        return { reachable: true, migrationsCurrent: applied >= migrationJournal().length };
      } catch {
        try {
          await db.execute(sql`select 1`);
          return { reachable: true, migrationsCurrent: false };
        } catch {
          return { reachable: false, migrationsCurrent: false };
        }
      }
    },
    close,
  };
}

/** Rows of `db.execute`, which PGlite returns as `{rows}` and postgres.js as an array. */

/** The first row of a raw `execute`: postgres.js answers with the rows, PGlite with `{ rows }`. */
function firstRow(result: unknown): Record<string, unknown> | undefined {
  const rows = Array.isArray(result)
    ? result
    : result !== null && typeof result === "object" && "rows" in result && Array.isArray(result.rows)
      ? result.rows
      : [];
  const [first] = rows;
  return first !== null && typeof first === "object" ? first : undefined;
}
