import type { ListSort } from "@clinsign/contracts";
import { sql, submissions } from "@clinsign/db";
import { recordAudit } from "../audit/audit";
import type { OrgContext } from "../context";
import { CSV_BOM, csvRow } from "../lists/csv";
import { answerFields, answerText } from "./answers";
import { rowKey, submissionConditions, submissionRows, type SubmissionFilter, type SubmissionKey, type SubmissionRow } from "./staff";

/** Rows fetched per round trip: pages keep memory flat however many submissions match. */
export const EXPORT_PAGE_SIZE = 500;

const FIXED_COLUMNS = ["submission_id", "submitted_at", "template", "template_version", "rnummer", "phone", "actor_type"] as const;

/** Every matching submission, page by page along the keyset, never all at once. */
async function* matchingRows(ctx: OrgContext, filter: SubmissionFilter, sort: ListSort): AsyncGenerator<SubmissionRow> {
  let after: SubmissionKey | undefined;
  for (;;) {
    const rows = await submissionRows(ctx, filter, sort, after, EXPORT_PAGE_SIZE);
    const page = rows.slice(0, EXPORT_PAGE_SIZE);
    yield* page;
    if (rows.length <= EXPORT_PAGE_SIZE) return;
    const [at, seq] = rowKey(page[page.length - 1]!);
    after = { at, seq };
  }
}

/**
 * The CSV's field columns: every key the matching submissions hold, in the order of the newest
 * matching submission's form, then keys only older versions had (alphabetically). Asked of the
 * database first, so the header is known before the first row streams.
 */
async function fieldColumns(ctx: OrgContext, filter: SubmissionFilter): Promise<string[]> {
  const [newest] = await submissionRows(ctx, filter, "newest", undefined, 0);
  const keyRows = await ctx.scope.db
    .selectDistinct({ key: sql<string>`jsonb_object_keys(${submissions.values})` })
    .from(submissions)
    .where(ctx.scope.owns(submissions, ...submissionConditions(filter)));
  const keys = new Set(keyRows.map((r) => r.key));
  const ordered = newest ? answerFields(newest.templateSchema).map((f) => f.key).filter((k) => keys.has(k)) : [];
  const rest = [...keys].filter((k) => !ordered.includes(k)).sort();
  return [...ordered, ...rest];
}

/**
 * The current filter as CSV: a BOM, one header row, one row per submission with one column per
 * field key (values as a person reads them; cells Excel would run as formulas are escaped).
 */
export async function* exportSubmissionsCsv(ctx: OrgContext, filter: SubmissionFilter, sort: ListSort): AsyncGenerator<string> {
  const keys = await fieldColumns(ctx, filter);
  await recordExport(ctx, filter, "csv");
  yield CSV_BOM + csvRow([...FIXED_COLUMNS, ...keys]);
  let chunk = "";
  for await (const row of matchingRows(ctx, filter, sort)) {
    const fields = new Map(answerFields(row.templateSchema).map((f) => [f.key, f]));
    chunk += csvRow([
      row.id,
      row.createdAt.toISOString(),
      row.templateIdentifier,
      row.templateSchema.version,
      row.rnummer,
      row.phone,
      row.actorType,
      ...keys.map((key) => (key in row.values ? answerText(fields.get(key), row.values[key]) : null)),
    ]);
    if (chunk.length >= 64 * 1024) {
      yield chunk;
      chunk = "";
    }
  }
  if (chunk) yield chunk;
}

/** The current filter as one JSON array of submissions with their raw values, streamed element by element. */
export async function* exportSubmissionsJson(ctx: OrgContext, filter: SubmissionFilter, sort: ListSort): AsyncGenerator<string> {
  await recordExport(ctx, filter, "json");
  let chunk = "[";
  let first = true;
  for await (const row of matchingRows(ctx, filter, sort)) {
    chunk += (first ? "\n" : ",\n") +
      JSON.stringify({
        id: row.id,
        templateIdentifier: row.templateIdentifier,
        templateTitle: row.templateTitle,
        templateVersion: row.templateSchema.version,
        rnummer: row.rnummer,
        phone: row.phone,
        actorType: row.actorType,
        createdAt: row.createdAt.toISOString(),
        values: row.values,
      });
    first = false;
    if (chunk.length >= 64 * 1024) {
      yield chunk;
      chunk = "";
    }
  }
  yield `${chunk}\n]\n`;
}

/** Patient data leaving the service is worth an audit entry: who exported which filter, as what. */
async function recordExport(ctx: OrgContext, filter: SubmissionFilter, format: "csv" | "json"): Promise<void> {
  await recordAudit(ctx, {
    action: "submissions.exported",
    templateIdentifier: filter.templateIdentifier ?? null,
    metadata: { format, filter: { ...filter } },
  });
}
