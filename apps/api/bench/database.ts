import { randomBytes } from "node:crypto";
import postgres from "postgres";

/** The machine's own PostgreSQL, used for the bare baseline when our stack runs on PGlite. */
export const LOCAL_POSTGRES_URL = "postgres://postgres@127.0.0.1:5432/test";

/** Every bench database's name starts with this; the CPU probe also finds our PostgreSQL backends by it. */
export const BENCH_DATABASE_PREFIX = "clinsign_bench_";

export interface BenchDatabase {
  /** Connection string of the fresh database. */
  url: string;
  name: string;
  /** e.g. "15.20", for the report. */
  serverVersion: string;
  drop(): Promise<void>;
}

/** The URL with its database name replaced; credentials, host and parameters stay. */
function withDatabase(serverUrl: string, name: string): string {
  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
  return url.toString();
}

/** Hides a password, for messages. */
export function redactUrl(serverUrl: string): string {
  const url = new URL(serverUrl);
  if (url.password) url.password = "***";
  return url.toString();
}

/**
 * Creates `clinsign_bench_<random>` on the server of `serverUrl`, so a run never touches existing
 * data and always starts from an empty schema that our server then migrates and seeds.
 */
export async function createBenchDatabase(serverUrl: string): Promise<BenchDatabase> {
  const name = `${BENCH_DATABASE_PREFIX}${randomBytes(4).toString("hex")}`;
  const admin = postgres(serverUrl, { max: 1, onnotice: () => {}, connect_timeout: 5 });
  let serverVersion: string;
  try {
    const [row] = await admin<{ server_version: string }[]>`show server_version`;
    serverVersion = row?.server_version.split(" ")[0] ?? "unknown";
    await admin.unsafe(`create database "${name}"`);
  } finally {
    await admin.end({ timeout: 5 });
  }
  return {
    url: withDatabase(serverUrl, name),
    name,
    serverVersion,
    async drop() {
      const sql = postgres(serverUrl, { max: 1, onnotice: () => {}, connect_timeout: 5 });
      try {
        // FORCE: a child killed mid-run may leave a backend behind for a moment.
        await sql.unsafe(`drop database if exists "${name}" with (force)`);
      } finally {
        await sql.end({ timeout: 5 });
      }
    },
  };
}
