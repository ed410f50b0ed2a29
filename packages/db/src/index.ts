import { spawn } from "node:child_process";
import { existsSync, mkdirSync, readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { pathToFileURL } from "node:url";
import { PGlite, type PGliteOptions } from "@electric-sql/pglite";
import { and, eq, getTableColumns, is, sql, SQL, type Placeholder } from "drizzle-orm";
import type {
  PgColumn,
  PgDatabase,
  PgQueryResultHKT,
  PgTable,
  PgTransaction,
  PgUpdateSetSource,
  SelectedFields,
} from "drizzle-orm/pg-core";
import type { SelectResultField } from "drizzle-orm/query-builders/select.types";
import { drizzle as drizzlePglite } from "drizzle-orm/pglite";
import { migrate as migratePglite } from "drizzle-orm/pglite/migrator";
import { drizzle as drizzlePostgres } from "drizzle-orm/postgres-js";
import { migrate as migratePostgres } from "drizzle-orm/postgres-js/migrator";
import postgres from "postgres";
import * as schema from "./schema/index";
import { organizations } from "./schema/index";

// The one drizzle entry point of the repository: operators and schema come from here.
export * from "drizzle-orm";
export * from "./schema/index";
export { schema };

export type { PgColumn, SelectedFields } from "drizzle-orm/pg-core";
export type Schema = typeof schema;
export type Db = PgDatabase<PgQueryResultHKT, Schema>;
export type Tx = PgTransaction<PgQueryResultHKT, Schema>;
/** Either the root handle or an open transaction; services accept both and never reopen one. */
export type Executor = Db | Tx;

export type DbKind = "pglite" | "postgres";

export interface Database {
  db: Db;
  kind: DbKind;
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
  /** Connection pool size for PostgreSQL. */
  maxConnections?: number;
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

function migrationCount(): number {
  const journal = JSON.parse(readFileSync(join(migrationsFolder, "meta", "_journal.json"), "utf8")) as {
    entries: unknown[];
  };
  return journal.entries.length;
}

export function createDb(options: CreateDbOptions = {}): Database {
  if (options.databaseUrl) {
    const client = postgres(options.databaseUrl, {
      max: options.maxConnections ?? 10,
      // Statements stay unnamed, as drizzle sends its ad-hoc queries: `preparedQuery` uses
      // drizzle's prepare() to build the SQL once, not to keep server-side statements, which
      // transaction-pooling proxies (PgBouncer) cannot follow across connections.
      prepare: false,
      onnotice: () => {},
    });
    const db = drizzlePostgres({ client, schema }) as unknown as Db;
    return finish(
      db,
      "postgres",
      () => migratePostgres(db as never, { migrationsFolder }),
      () => client.end({ timeout: 5 }),
    );
  }
  if (options.dataDir) mkdirSync(options.dataDir, { recursive: true });
  const client = new PGlite(options.dataDir, pgliteOptions);
  const db = drizzlePglite({ client, schema }) as unknown as Db;
  return finish(
    db,
    "pglite",
    () => migratePglite(db as never, { migrationsFolder }),
    () => client.close(),
  );
}

function finish(db: Db, kind: DbKind, runMigrations: () => Promise<void>, close: () => Promise<void>): Database {
  return {
    db,
    kind,
    migrate: runMigrations,
    async ready() {
      try {
        const rows = await db.execute<{ n: number }>(sql`select count(*)::int as n from drizzle.__drizzle_migrations`);
        const applied = Number(
          (rows as unknown as { n: number }[])[0]?.n ?? (rows as { rows?: { n: number }[] }).rows?.[0]?.n ?? 0,
        );
        return { reachable: true, migrationsCurrent: applied >= migrationCount() };
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
export function rowsOf<T>(result: unknown): T[] {
  return Array.isArray(result) ? (result as T[]) : ((result as { rows: T[] }).rows ?? []);
}

/** What drizzle's `.prepare(name)` returns, reduced to what callers use. */
export interface PreparedStatement<R> {
  execute(values?: Record<string, unknown>): Promise<R>;
}

/** A drizzle query builder that can be prepared (select, insert, update, delete). */
export interface Preparable<R> {
  toSQL(): { params: unknown[] };
  prepare(name: string): PreparedStatement<R>;
}

/**
 * A query for the hot paths that drizzle builds once per database handle and then only runs:
 * building a select (entity checks, SQL string, parameter list) costs more CPU than mapping its
 * rows. Whatever varies between calls is a `sql.placeholder(name)`, given to `execute`. A
 * placeholder's value is sent as it is, without the column's own encoding: use them for text,
 * uuids and numbers.
 */
export function preparedQuery<R>(
  name: string,
  build: (db: Db) => Preparable<R>,
): (db: Executor) => PreparedStatement<R> {
  const byHandle = new WeakMap<Executor, PreparedStatement<R>>();
  return (db) => {
    let prepared = byHandle.get(db);
    if (!prepared) {
      prepared = build(db as Db).prepare(name);
      byHandle.set(db, prepared);
    }
    return prepared;
  };
}

/** The organization a `scopedQuery` runs for; `OrgScope.run` fills it in. */
const ORGANIZATION_ID: Placeholder<"organizationId"> = sql.placeholder("organizationId");

declare const scopedQueryBrand: unique symbol;
/** A tenant query prepared once per handle; only `OrgScope.run` executes it. */
export type ScopedQuery<R> = ((db: Executor) => PreparedStatement<R>) & { readonly [scopedQueryBrand]: true };

/**
 * `preparedQuery` for tenant data: `build` receives the organization's placeholder and must
 * filter by it (checked when the query is first built), and only `OrgScope.run`, which fills it
 * with the scope's own organization, runs the result.
 */
export function scopedQuery<R>(
  name: string,
  build: (db: Db, organizationId: Placeholder<"organizationId">) => Preparable<R>,
): ScopedQuery<R> {
  return preparedQuery(name, (db) => {
    const query = build(db, ORGANIZATION_ID);
    if (!query.toSQL().params.includes(ORGANIZATION_ID)) {
      throw new Error(`scoped query ${name} does not filter by the organization`);
    }
    return query;
  }) as ScopedQuery<R>;
}

/** A table whose rows belong to one organization. */
export type TenantTable = PgTable & { organizationId: PgColumn };

function isTenantTable(table: PgTable): table is TenantTable {
  return "organizationId" in getTableColumns(table);
}

/** Work to run once the outermost transaction has committed (never if it rolls back). */
export type AfterCommit = () => Promise<void> | void;

/**
 * The only way services reach tenant data: every read, change and insert made through a scope
 * carries its organization id, so a query cannot forget it. The raw handle is private; the one
 * way around it is `OrgScope.unscoped`, which lint allows only in core/credentials and the job
 * queue.
 */
export class OrgScope {
  readonly #db: Executor;
  /** Effects of the open transaction, run by the scope that opened it; absent outside one. */
  readonly #afterCommit: AfterCommit[] | undefined;

  constructor(
    db: Executor,
    readonly organizationId: string,
    afterCommit?: AfterCommit[],
  ) {
    this.#db = db;
    this.#afterCommit = afterCommit;
  }

  /**
   * The raw handle under a scope, for the modules that work across organizations on purpose:
   * credential lookups by hash (core/credentials) and the job queue. Lint keeps it there.
   */
  static unscoped(scope: OrgScope): Executor {
    return scope.#db;
  }

  /** The where-clause "belongs to this organization, and all `conditions` hold". */
  owns(table: TenantTable, ...conditions: (SQL | undefined)[]): SQL {
    return and(eq(table.organizationId, this.organizationId), ...conditions) as SQL;
  }

  /** Whole rows of one tenant table. */
  select<T extends TenantTable>(table: T, ...conditions: (SQL | undefined)[]) {
    return (this.#db as Db)
      .select()
      .from(table as PgTable)
      .where(this.owns(table, ...conditions))
      .$dynamic() as unknown as TenantSelect<T>;
  }

  /**
   * A projection: `fields` (columns or SQL) of `table` and of tables joined to it. Every tenant
   * table in it, the first and each joined one, is filtered by this organization.
   */
  query<F extends SelectedFields>(fields: F) {
    return {
      from: <T extends TenantTable>(table: T) => new TenantQuery<F>(this.#db, this.organizationId, fields, table),
    };
  }

  insert<T extends TenantTable>(
    table: T,
    values: Omit<T["$inferInsert"], "organizationId"> | Omit<T["$inferInsert"], "organizationId">[],
  ) {
    const rows = (Array.isArray(values) ? values : [values]).map(
      (row) => ({ ...row, organizationId: this.organizationId }) as T["$inferInsert"],
    );
    return (this.#db as Db).insert(table).values(rows);
  }

  /** `values` may set a column to an SQL expression (e.g. a jsonb merge) as drizzle's `set` does. */
  update<T extends TenantTable>(
    table: T,
    values: Omit<PgUpdateSetSource<T>, "organizationId">,
    ...conditions: (SQL | undefined)[]
  ) {
    return (this.#db as Db)
      .update(table)
      .set(values as never)
      .where(this.owns(table, ...conditions));
  }

  delete<T extends TenantTable>(table: T, ...conditions: (SQL | undefined)[]) {
    return (this.#db as Db).delete(table).where(this.owns(table, ...conditions));
  }

  /** The organization's own row (the organizations table is keyed by the id a scope carries). */
  async organization(): Promise<typeof organizations.$inferSelect> {
    const [row] = await (this.#db as Db).select().from(organizations).where(eq(organizations.id, this.organizationId));
    if (!row) throw new Error(`organization ${this.organizationId} does not exist`);
    return row;
  }

  /** Changes the organization's own row. */
  updateOrganization(values: Omit<PgUpdateSetSource<typeof organizations>, "id">) {
    return (this.#db as Db)
      .update(organizations)
      .set(values as never)
      .where(eq(organizations.id, this.organizationId));
  }

  /**
   * Holds a transaction-scoped advisory lock on `key` within this organization until the
   * transaction ends (call inside `transaction`).
   */
  async lock(key: string): Promise<void> {
    await this.#db.execute(sql`select pg_advisory_xact_lock(hashtextextended(${`${this.organizationId}:${key}`}, 0))`);
  }

  /**
   * One statement drizzle's builders cannot express (a CTE that merges, checks and audits in one
   * round trip; a lateral join over a jsonb column). `build` receives this organization's id as a
   * parameter and must filter by it, which is checked before the statement runs. Prefer `select`,
   * `query` and `run`; this is for the few statements they cannot write.
   */
  async execute<Row>(build: (organizationId: SQL) => SQL): Promise<Row[]> {
    const organizationId = sql`${this.organizationId}::uuid`;
    const statement = build(organizationId);
    if (!containsChunk(statement, organizationId))
      throw new Error("a statement of an OrgScope must filter by the organization it receives");
    return rowsOf<Row>(await this.#db.execute(statement));
  }

  /** Runs a tenant query prepared once (`scopedQuery`) for this scope's organization. */
  run<R>(query: ScopedQuery<R>, values: Record<string, unknown> = {}): Promise<R> {
    return query(this.#db).execute({ ...values, organizationId: this.organizationId });
  }

  /**
   * Runs `work` in one transaction (or inside the current one) with a scope bound to it. The
   * outermost transaction runs the effects registered with `afterCommit` once it has committed,
   * in order; they do not run when it rolls back.
   */
  async transaction<R>(work: (scope: OrgScope) => Promise<R>): Promise<R> {
    if (isTransaction(this.#db)) return work(this);
    const effects: AfterCommit[] = [];
    const result = await (this.#db as Db).transaction((tx) =>
      work(new OrgScope(tx as Tx, this.organizationId, effects)),
    );
    for (const effect of effects) await effect();
    return result;
  }

  /**
   * `effect` runs after the outermost transaction commits; outside a transaction (the change is
   * already committed) it runs now. Errors are the effect's own to handle: the change stands.
   */
  async afterCommit(effect: AfterCommit): Promise<void> {
    if (this.#afterCommit) this.#afterCommit.push(effect);
    else await effect();
  }
}

/** A select on a tenant table, already filtered by organization, awaiting order and limit. */
export interface TenantSelect<T extends TenantTable> extends PromiseLike<T["$inferSelect"][]> {
  orderBy(...columns: (PgColumn | SQL)[]): TenantSelect<T>;
  limit(n: number): TenantSelect<T>;
  offset(n: number): TenantSelect<T>;
  for(strength: "update"): TenantSelect<T>;
}

/** The row of a projection; columns of left-joined tables (named in `Nullable`) may be null. */
export type ProjectionRow<F extends SelectedFields, Nullable extends string = never> = {
  [K in keyof F]: F[K] extends PgColumn
    ? F[K]["_"]["tableName"] extends Nullable
      ? SelectResultField<F[K]> | null
      : SelectResultField<F[K]>
    : SelectResultField<F[K]>;
};

/** The dynamic select `TenantQuery` assembles, reduced to the calls it makes. */
interface DynamicSelect {
  leftJoin(table: PgTable, on: SQL): DynamicSelect;
  innerJoin(table: PgTable, on: SQL): DynamicSelect;
  where(condition: SQL | undefined): DynamicSelect;
  groupBy(...columns: (PgColumn | SQL)[]): DynamicSelect;
  orderBy(...columns: (PgColumn | SQL)[]): DynamicSelect;
  limit(n: number): DynamicSelect;
  for(strength: "update"): DynamicSelect;
}

interface Join {
  table: PgTable;
  on: SQL | undefined;
  left: boolean;
}

/**
 * `OrgScope.query(fields).from(table)`: a projection over tenant tables that cannot leave the
 * organization. Joined tenant tables get the organization in their join condition; tables that
 * belong to no organization (users, organizations) are reached only through a row that does.
 */
export class TenantQuery<F extends SelectedFields, Nullable extends string = never> implements PromiseLike<
  ProjectionRow<F, Nullable>[]
> {
  readonly #joins: Join[] = [];
  readonly #where: (SQL | undefined)[] = [];
  #groupBy: (PgColumn | SQL)[] = [];
  #orderBy: (PgColumn | SQL)[] = [];
  #limit: number | undefined;
  #lock = false;

  constructor(
    private readonly db: Executor,
    private readonly organizationId: string,
    private readonly fields: F,
    private readonly table: TenantTable,
  ) {}

  innerJoin(table: PgTable, on: SQL | undefined): this {
    this.#joins.push({ table, on, left: false });
    return this;
  }

  leftJoin<T extends PgTable>(table: T, on: SQL | undefined): TenantQuery<F, Nullable | T["_"]["name"]> {
    this.#joins.push({ table, on, left: true });
    return this as unknown as TenantQuery<F, Nullable | T["_"]["name"]>;
  }

  /** Conditions besides the organization's (undefined ones are left out); may be called again. */
  where(...conditions: (SQL | undefined)[]): this {
    this.#where.push(...conditions);
    return this;
  }

  groupBy(...columns: (PgColumn | SQL)[]): this {
    this.#groupBy = columns;
    return this;
  }

  orderBy(...columns: (PgColumn | SQL)[]): this {
    this.#orderBy = columns;
    return this;
  }

  limit(n: number): this {
    this.#limit = n;
    return this;
  }

  for(_strength: "update"): this {
    this.#lock = true;
    return this;
  }

  /** The same query with more fields (the keyset page adds its cursor key this way). */
  with<E extends SelectedFields>(extra: E): TenantQuery<F & E, Nullable> {
    const copy = new TenantQuery<F & E, Nullable>(
      this.db,
      this.organizationId,
      { ...this.fields, ...extra },
      this.table,
    );
    copy.#joins.push(...this.#joins);
    copy.#where.push(...this.#where);
    copy.#groupBy = this.#groupBy;
    copy.#orderBy = this.#orderBy;
    copy.#limit = this.#limit;
    copy.#lock = this.#lock;
    return copy;
  }

  #build(): PromiseLike<ProjectionRow<F, Nullable>[]> {
    const ownedBy = (table: TenantTable) => eq(table.organizationId, this.organizationId);
    // Built in dynamic mode from parts; the row type is ProjectionRow, declared above.
    let query = (this.db as Db)
      .select(this.fields)
      .from(this.table as PgTable)
      .$dynamic() as unknown as DynamicSelect;
    for (const join of this.#joins) {
      const on = (isTenantTable(join.table) ? and(join.on, ownedBy(join.table)) : join.on) as SQL;
      query = join.left ? query.leftJoin(join.table, on) : query.innerJoin(join.table, on);
    }
    query = query.where(and(ownedBy(this.table), ...this.#where));
    if (this.#groupBy.length) query = query.groupBy(...this.#groupBy);
    if (this.#orderBy.length) query = query.orderBy(...this.#orderBy);
    if (this.#limit !== undefined) query = query.limit(this.#limit);
    if (this.#lock) query = query.for("update");
    return query as unknown as PromiseLike<ProjectionRow<F, Nullable>[]>;
  }

  /** The statement as SQL, to embed it (e.g. `explain ${query}` in a test of its plan). */
  getSQL(): SQL {
    return (this.#build() as unknown as { getSQL(): SQL }).getSQL();
  }

  then<A = ProjectionRow<F, Nullable>[], B = never>(
    onFulfilled?: ((rows: ProjectionRow<F, Nullable>[]) => A | PromiseLike<A>) | null,
    onRejected?: ((reason: unknown) => B | PromiseLike<B>) | null,
  ): PromiseLike<A | B> {
    return this.#build().then(onFulfilled, onRejected);
  }
}

/** Whether `chunk` (that very object) is part of `statement`, however deeply nested. */
function containsChunk(statement: SQL, chunk: SQL): boolean {
  return statement.queryChunks.some((part) => part === chunk || (is(part, SQL) && containsChunk(part, chunk)));
}

function isTransaction(db: Executor): boolean {
  return "rollback" in db && typeof (db as Tx).rollback === "function";
}
