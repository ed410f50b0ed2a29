import { stdSerializers } from "pino";

/**
 * Errors as logs may show them. A failed query's message carries its parameters (drizzle appends
 * them) and PostgreSQL's own messages and details quote values ("Failing row contains …",
 * `invalid input syntax for type uuid: "…"`): form values, names, phone numbers, case numbers.
 * For any error caused by the database we therefore log the statement's kind and table and the
 * SQLSTATE code, never a message, parameter or detail; other errors keep pino's usual shape.
 */

interface DatabaseFailure {
  statement: string | null;
  code: string | null;
}

const SQLSTATE = /^[0-9A-Z]{5}$/;

/** `insert into "drafts"`, `select from "jobs"`: what ran, without a single value. */
export function statementName(query: string): string | null {
  const change = /^\s*(insert\s+into|update|delete\s+from)\s+("?[\w.]+"?)/i.exec(query);
  if (change) return `${change[1]!.toLowerCase().replace(/\s+/, " ")} ${change[2]}`;
  // A data-modifying WITH (hot paths change, audit and answer in one statement): its first change.
  const changeInWith = /^\s*with\b[\s\S]*?\bas\s*\(\s*(insert\s+into|update|delete\s+from)\s+("?[\w.]+"?)/i.exec(query);
  if (changeInWith) return `${changeInWith[1]!.toLowerCase().replace(/\s+/, " ")} ${changeInWith[2]}`;
  const read = /^\s*(?:select|with)\b[\s\S]*?\bfrom\s+("?[\w.]+"?)/i.exec(query);
  if (read) return `select from ${read[1]}`;
  return /^\s*(\w+)/.exec(query)?.[1]?.toLowerCase() ?? null;
}

/** The database failure somewhere in `error`'s cause chain, if there is one. */
function databaseFailure(error: unknown): DatabaseFailure | null {
  let statement: string | null = null;
  let code: string | null = null;
  let found = false;
  const seen = new Set<unknown>();
  for (let current = error; current instanceof Error && !seen.has(current); current = current.cause) {
    seen.add(current);
    const fields = current as Error & { query?: unknown; code?: unknown; severity?: unknown; routine?: unknown };
    if (typeof fields.query === "string") {
      found = true;
      statement ??= statementName(fields.query);
    }
    if (
      typeof fields.code === "string" &&
      SQLSTATE.test(fields.code) &&
      (fields.severity !== undefined || fields.routine !== undefined)
    ) {
      found = true;
      code ??= fields.code;
    }
  }
  return found ? { statement, code } : null;
}

/** Stack frames only: the first lines of a stack repeat the message. */
const framesOf = (stack: string | undefined) =>
  stack
    ?.split("\n")
    .filter((line) => line.startsWith("    at "))
    .join("\n");

/** pino's `err` serializer, safe for errors from the database. */
export function serializeError(error: unknown): unknown {
  const failure = databaseFailure(error);
  if (!failure) return error instanceof Error ? stdSerializers.err(error) : error;
  const outer = error as Error;
  return {
    type: outer.constructor?.name ?? "Error",
    message: "database query failed",
    statement: failure.statement,
    code: failure.code,
    stack: framesOf(outer.stack),
  };
}

/** A one-line description of an error for job records and their log lines, equally safe. */
export function describeError(error: unknown): string {
  const failure = databaseFailure(error);
  if (failure)
    return `database query failed (${failure.code ?? "no code"}${failure.statement ? ` in ${failure.statement}` : ""})`;
  return error instanceof Error ? error.message : String(error);
}
