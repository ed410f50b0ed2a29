import { PgPreparedQuery } from "drizzle-orm/pg-core";
import { statementName } from "../../log-errors";
import { inSpan, SpanKind } from "./tracing";

/**
 * A span per SQL statement, named by its kind and table (`db insert into drafts`), never its text
 * or values. drizzle runs every statement of both drivers (PostgreSQL, PGlite) through one method
 * of its prepared query, `queryWithCache`; it is wrapped here, and only when tracing is on. Should
 * a drizzle release rename it, statements go untraced and nothing else changes (the spans test
 * says so).
 */
export function traceDatabaseStatements(databaseKind: "postgresql" | "pglite"): boolean {
  const prototype = PgPreparedQuery.prototype;
  const original: unknown = Reflect.get(prototype, "queryWithCache");
  if (typeof original !== "function") return false;
  const traced = function (this: unknown, queryString: string, params: unknown[], query: () => Promise<unknown>) {
    const name = statementName(queryString)?.replace(/"/g, "") ?? "statement";
    return inSpan(
      `db ${name}`,
      { "db.system.name": databaseKind === "pglite" ? "postgresql" : databaseKind, "clinsign.db.engine": databaseKind },
      (): Promise<unknown> => Reflect.apply(original, this, [queryString, params, query]),
      SpanKind.CLIENT,
    );
  };
  return Reflect.defineProperty(prototype, "queryWithCache", { value: traced, configurable: true, writable: true });
}
