/**
 * The SQL conditions the patient's records are found and read with: a column in a list of ids or
 * values (one array parameter, however many), a text naming one of a set of UUIDs, a text
 * containing one of the patient's values. Used by the finder (patient-record-finders.ts) and by
 * every module that reads or changes the records it found.
 */
import { sql, type PgColumn, type SQL } from "@clinsign/db";

const json = (values: readonly string[]) => JSON.stringify(values);

/** A PostgreSQL array literal (`{"a","b"}`), every element quoted: one parameter, however many values. */
const arrayLiteral = (values: readonly string[]) =>
  `{${values.map((v) => `"${v.replace(/\\/g, "\\\\").replace(/"/g, '\\"')}"`).join(",")}}`;

/** `column` is one of `values` (one array parameter: the planner uses the column's index, however many values). */
export function inList(column: PgColumn | SQL, values: readonly string[], type: "uuid" | "text" = "uuid"): SQL {
  if (values.length === 0) return sql`false`;
  return type === "uuid"
    ? sql`${column} = any(${arrayLiteral(values)}::uuid[])`
    : sql`${column} = any(${arrayLiteral(values)}::text[])`;
}

const UUID_PATTERN = "[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}";

/**
 * `text` names one of `ids` (UUIDs): every UUID in the text is looked up in the set, so a body is
 * read once however many ids a patient has (a substring search per id would read it once per id).
 */
export function mentionsId(text: PgColumn | SQL, ids: readonly string[]): SQL {
  if (ids.length === 0) return sql`false`;
  return sql`exists (select 1 from regexp_matches(lower(${text}), ${UUID_PATTERN}, 'g') as found(id)
    where found.id[1] = any(${arrayLiteral(ids)}::text[]))`;
}

/** `text` contains one of `terms` as a substring. */
export function mentionsAny(text: PgColumn | SQL, terms: readonly string[]): SQL {
  if (terms.length === 0) return sql`false`;
  return sql`exists (select 1 from jsonb_array_elements_text(${json(terms)}::jsonb) as term(value) where strpos(${text}, term.value) > 0)`;
}
