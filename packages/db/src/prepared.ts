// Queries built once per database handle and then only run (the hot paths), and their tenant form.
import { sql, type Placeholder, type Query, type SQL } from "drizzle-orm";
import { PgDialect } from "drizzle-orm/pg-core";
import type { Db, Executor } from "./connect";

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

const dialect = new PgDialect();

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

/**
 * `scopedQuery` for a statement the builders cannot write (a data-modifying CTE, say): `build`
 * receives the organization as a uuid and must use it, and everything that varies between calls
 * is a `sql.placeholder(name)`. Its SQL text and parameter list are built once (checked then),
 * so a call only fills in the values and runs it, kept on the connection like every prepared
 * query; building the text on every call cost the hottest statement a tenth of its CPU.
 */
export function scopedStatement<Row>(name: string, build: (organizationId: SQL) => SQL): ScopedQuery<Row[]> {
  let query: Query | undefined;
  // scopedQuery checks the organization in the built parameters, as for a builder's query.
  return scopedQuery(name, (db, organizationId) => {
    const statement = (query ??= dialect.sqlToQuery(build(sql`${organizationId}::uuid`)));
    return {
      toSQL: () => statement,
      prepare: (kept) => {
        const prepared = db._.session.prepareQuery(statement, undefined, kept, false);
        return { execute: async (values) => rowsOf<Row>(await prepared.execute(values)) };
      },
    };
  });
}
