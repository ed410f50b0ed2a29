// OrgScope: the only way services reach tenant data (docs/architecture.md, "Tenancy").
import { and, eq, getTableColumns, is, sql, SQL } from "drizzle-orm";
import type { PgColumn, PgTable, PgUpdateSetSource, SelectedFields } from "drizzle-orm/pg-core";
import type { SelectResultField } from "drizzle-orm/query-builders/select.types";
import type { Db, Executor, Tx } from "./connect";
import { rowsOf, type ScopedQuery } from "./prepared";
import { organizations } from "./schema/index";

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
    // Through the wide PgTable drizzle forgets T's columns; TenantSelect<T> gives its rows back their type.
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
    values: PgUpdateSetSource<T> & { organizationId?: never },
    ...conditions: (SQL | undefined)[]
  ) {
    return (this.#db as Db)
      .update(table)
      .set(values)
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
  updateOrganization(values: PgUpdateSetSource<typeof organizations> & { id?: never }) {
    return (this.#db as Db).update(organizations).set(values).where(eq(organizations.id, this.organizationId));
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
   * `query` and `run`; this is for the few statements they cannot write. A hot path's statement
   * is built once instead (`scopedStatement`, run with `run`).
   */
  async execute<Row>(build: (organizationId: SQL) => SQL): Promise<Row[]> {
    const organizationId = sql`${this.organizationId}::uuid`;
    const statement = build(organizationId);
    if (!containsChunk(statement, organizationId))
      throw new Error("a statement of an OrgScope must filter by the organization it receives");
    return rowsOf<Row>(await this.#db.execute(statement));
  }

  /** Runs a tenant query or statement prepared once (`scopedQuery`, `scopedStatement`) for this scope's organization. */
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
    const result = await (this.#db as Db).transaction((tx) => work(new OrgScope(tx, this.organizationId, effects)));
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
interface DynamicSelect extends PromiseLike<unknown[]> {
  getSQL(): SQL;
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
    return this as TenantQuery<F, Nullable | T["_"]["name"]>;
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

  #build(): DynamicSelect {
    const ownedBy = (table: TenantTable) => eq(table.organizationId, this.organizationId);
    // Built in dynamic mode from parts: drizzle's join types grow with each join, which a loop
    // cannot follow, so the builder is held as the narrow DynamicSelect (row type: ProjectionRow).
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
    return query;
  }

  /** The statement as SQL, to embed it (e.g. `explain ${query}` in a test of its plan). */
  getSQL(): SQL {
    return this.#build().getSQL();
  }

  then<A = ProjectionRow<F, Nullable>[], B = never>(
    onFulfilled?: ((rows: ProjectionRow<F, Nullable>[]) => A | PromiseLike<A>) | null,
    onRejected?: ((reason: unknown) => B | PromiseLike<B>) | null,
  ): PromiseLike<A | B> {
    // The rows have the shape `fields` selects (ProjectionRow), which the dynamic builder does not track.
    const rows = this.#build() as PromiseLike<ProjectionRow<F, Nullable>[]>;
    return rows.then(onFulfilled, onRejected);
  }
}

/** Whether `chunk` (that very object) is part of `statement`, however deeply nested. */
function containsChunk(statement: SQL, chunk: SQL): boolean {
  return statement.queryChunks.some((part) => part === chunk || (is(part, SQL) && containsChunk(part, chunk)));
}

function isTransaction(db: Executor): boolean {
  return "rollback" in db && typeof (db as Tx).rollback === "function";
}
