import { computeFlags, type ListSort, type TemplateSchema } from "@clinsign/contracts";
import { and, eq, sql, submissions, type SQL } from "@clinsign/db";
import { recordAudit } from "../audit/audit";
import type { OrgContext } from "../context";
import { CSV_BOM, csvRow, type CsvSeparator } from "../lists/csv";
import {
  loadOutputFormat,
  outputDateTime,
  outputPhone,
  outputTexts,
  type OutputFormat,
} from "../organizations/output-format";
import { answerFields, answerText } from "./answers";
import { choiceCodes, hasFlagRules, hasWeights, storedFlags } from "./scores-flags";
import { languageName } from "./pdf";
import {
  patientReportedOf,
  rowKey,
  submissionConditions,
  submissionRows,
  type SubmissionFilter,
  type SubmissionKey,
  type SubmissionRow,
} from "./submission-reads";

/** Rows fetched per round trip: pages keep memory flat however many submissions match. */
export const EXPORT_PAGE_SIZE = 500;

/** The CSV's own columns and the sources of a submission, in the organization's language. */
const CSV_TEXTS = {
  de: {
    columns: [
      "Einreichungs-ID",
      "Eingereicht ({timeZone})",
      "Formular",
      "Formularversion",
      "Fallnummer",
      "Mobilnummer",
      "Quelle",
    ],
    answeredIn: "Beantwortet in",
    flagged: "Auffällig",
    score: "Punktwert",
    band: "Einstufung",
    value: "Wert",
    weight: "Gewicht",
    sources: {
      embed_session: "Eingebettetes Formular",
      sms_recipient: "SMS-Link",
      // Submissions stored before the actor types were renamed.
      session: "Eingebettetes Formular",
      portal: "SMS-Link",
      api_key: "API",
      user: "Mitarbeitende",
      system: "System",
    } as Record<string, string>,
  },
  en: {
    columns: [
      "Submission ID",
      "Submitted ({timeZone})",
      "Form",
      "Form version",
      "Case number",
      "Mobile number",
      "Source",
    ],
    answeredIn: "Answered in",
    flagged: "Needs attention",
    score: "score",
    band: "band",
    value: "value",
    weight: "weight",
    sources: {
      embed_session: "Embedded form",
      sms_recipient: "SMS link",
      // Submissions stored before the actor types were renamed.
      session: "Embedded form",
      portal: "SMS link",
      api_key: "API",
      user: "Staff",
      system: "System",
    } as Record<string, string>,
  },
};

/**
 * Whether any matching submission was answered in another language than its template's default:
 * only then does the CSV get its "Answered in" column (files of one-language clinics stay as they were).
 */
async function anyOtherLanguage(ctx: OrgContext, filter: SubmissionFilter): Promise<boolean> {
  const rows = await ctx.scope.execute<{ found: boolean }>(
    (organizationId) =>
      sql`select exists (select 1 from ${submissions} where ${and(
        eq(submissions.organizationId, organizationId),
        ...submissionConditions(filter),
        sql`${submissions.language} is distinct from ${submissions.templateLanguage}`,
        sql`${submissions.language} is not null`,
      )}) as found`,
  );
  return rows[0]?.found === true;
}

/** Whether any matching submission's form has flag rules: only then does the CSV get its flag column. */
async function anyFlagRules(ctx: OrgContext, filter: SubmissionFilter): Promise<boolean> {
  const rows = await ctx.scope.execute<{ found: boolean }>(
    (organizationId) =>
      sql`select exists (select 1 from ${submissions} where ${and(
        eq(submissions.organizationId, organizationId),
        ...submissionConditions(filter),
        hasFlagRules(),
      )}) as found`,
  );
  return rows[0]?.found === true;
}

/** `;` for German spreadsheets (Excel splits at the locale's list separator), `,` otherwise. */
export const csvSeparatorFor = (format: OutputFormat): CsvSeparator => (format.locale === "de" ? ";" : ",");

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

/** A field's column of the CSV: its key, its header label, its type and whether its options carry weights. */
interface FieldColumn {
  key: string;
  label: string;
  type: string;
  weighted: boolean;
}

const CHOICE_TYPES = new Set(["select", "radio", "multiselect"]);

/**
 * The CSV's field columns: every key the matching submissions hold, in the order of the newest
 * matching submission's form, then keys only older versions had (alphabetically), each headed by
 * its label (the newest form's label; for older keys the label of the newest submission whose
 * form had it; the key when no form named it). Asked of the database first, so the header is
 * known before the first row streams.
 */
async function fieldColumns(ctx: OrgContext, filter: SubmissionFilter): Promise<FieldColumn[]> {
  const [newest] = await submissionRows(ctx, filter, "newest", undefined, 0);
  const owned = (organizationId: SQL, ...more: SQL[]) =>
    and(eq(submissions.organizationId, organizationId), ...submissionConditions(filter), ...more);
  const keyRows = await ctx.scope.execute<{ key: string }>(
    (organizationId) =>
      sql`select distinct jsonb_object_keys(${submissions.values}) as key from ${submissions} where ${owned(organizationId)}`,
  );
  const keys = new Set(keyRows.map((r) => r.key));
  const newestFields = newest ? answerFields(newest.templateSchema) : [];
  const labels = new Map(newestFields.map((f) => [f.key, f.label]));
  const kinds = new Map(newestFields.map((f) => [f.key, { type: f.type, weighted: hasWeights(f) }]));
  const ordered = [...labels.keys()].filter((k) => keys.has(k));
  const rest = [...keys].filter((k) => !labels.has(k)).sort();
  if (rest.length > 0) {
    const wanted = sql`field->>'key' in (${sql.join(
      rest.map((k) => sql`${k}`),
      sql`, `,
    )})`;
    const older = await ctx.scope.execute<{ key: string; label: string | null; type: string | null; options: unknown }>(
      (organizationId) => sql`select distinct on (field->>'key') field->>'key' as key, field->>'label' as label,
          field->>'type' as type, field->'options' as options
        from ${submissions} cross join lateral jsonb_array_elements(${submissions.templateSchema}->'fields') as field
        where ${owned(organizationId, wanted)}
        order by field->>'key', ${submissions.createdAt} desc, ${submissions.seq} desc`,
    );
    for (const row of older) {
      if (row.label) labels.set(row.key, row.label);
      kinds.set(row.key, { type: row.type ?? "text", weighted: hasWeights(row) });
    }
  }
  const columns = [...ordered, ...rest].map((key) => ({
    key,
    label: labels.get(key) || key,
    ...(kinds.get(key) ?? { type: "unknown", weighted: false }),
  }));
  // Two fields with one label would be two columns nobody can tell apart: name the key too.
  const seen = new Map<string, number>();
  for (const c of columns) seen.set(c.label, (seen.get(c.label) ?? 0) + 1);
  return columns.map((c) => ((seen.get(c.label) ?? 0) > 1 ? { ...c, label: `${c.label} (${c.key})` } : c));
}

/**
 * The current filter as CSV for the clinic's spreadsheet: a BOM, one header row of labels, one
 * row per submission with one column per field, written in the organization's language and time
 * zone (`;`-separated for German Excel; values as a person reads them; cells Excel would run as
 * formulas are escaped). The JSON export keeps the raw keys, ISO times and E.164 numbers.
 *
 * For numbers a spreadsheet can count (issue 31): a score field's column ("13 (Moderate)") is
 * followed by its score and its band on their own; with `optionValues`, each choice field's by
 * its stored option value and (where its options carry weights) its weight; a "Needs attention"
 * column (yes/no) comes after the fixed ones when a matching submission's form has flag rules.
 */
export async function* exportSubmissionsCsv(
  ctx: OrgContext,
  filter: SubmissionFilter,
  sort: ListSort,
  options: { optionValues?: boolean } = {},
): AsyncGenerator<string> {
  const format = await loadOutputFormat(ctx);
  const texts = CSV_TEXTS[format.locale];
  const yesNo = outputTexts(format);
  const separator = csvSeparatorFor(format);
  const columns = await fieldColumns(ctx, filter);
  const languageColumn = await anyOtherLanguage(ctx, filter);
  const flagColumn = await anyFlagRules(ctx, filter);
  await recordExport(ctx, filter, "csv", options);
  const number = new Intl.NumberFormat(format.locale, { useGrouping: false, maximumFractionDigits: 20 });
  const codes = (c: FieldColumn) => options.optionValues === true && CHOICE_TYPES.has(c.type);
  const fixed = [
    ...texts.columns.map((c) => c.replace("{timeZone}", format.timeZone)),
    ...(languageColumn ? [texts.answeredIn] : []),
    ...(flagColumn ? [texts.flagged] : []),
  ];
  const headers = columns.flatMap((c) => [
    c.label,
    ...(c.type === "score" ? [`${c.label} (${texts.score})`, `${c.label} (${texts.band})`] : []),
    ...(codes(c) ? [`${c.label} (${texts.value})`, ...(c.weighted ? [`${c.label} (${texts.weight})`] : [])] : []),
  ]);
  yield CSV_BOM + csvRow([...fixed, ...headers], separator);
  let chunk = "";
  for await (const row of matchingRows(ctx, filter, sort)) {
    const fields = new Map(answerFields(row.templateSchema).map((f) => [f.key, f]));
    const cells = (c: FieldColumn) => {
      const value = row.values[c.key];
      const text = c.key in row.values ? answerText(fields.get(c.key), value, format) : null;
      const extra: Array<string | null> = [];
      if (c.type === "score") {
        const stored = value as { score?: unknown; band?: unknown } | undefined;
        extra.push(typeof stored?.score === "number" ? number.format(stored.score) : null);
        extra.push(typeof stored?.band === "string" ? stored.band : null);
      }
      if (codes(c)) {
        const code = choiceCodes(fields.get(c.key), value);
        extra.push(code.value);
        if (c.weighted) extra.push(code.weight === null ? null : number.format(code.weight));
      }
      return [text, ...extra];
    };
    chunk += csvRow(
      [
        row.id,
        outputDateTime(row.createdAt, format),
        row.templateTitle,
        row.templateSchema.version,
        row.rnummer,
        row.phone === null ? null : outputPhone(row.phone, format),
        texts.sources[row.actorType] ?? row.actorType,
        ...(languageColumn
          ? [row.language && row.language !== row.templateLanguage ? languageName(row.language, format.locale) : null]
          : []),
        ...(flagColumn ? [storedFlags(row.templateSchema, row.values).length > 0 ? yesNo.yes : yesNo.no] : []),
        ...columns.flatMap(cells),
      ],
      separator,
    );
    if (chunk.length >= 64 * 1024) {
      yield chunk;
      chunk = "";
    }
  }
  if (chunk) yield chunk;
}

/** The current filter as one JSON array of submissions with their raw values, streamed element by element. */
export async function* exportSubmissionsJson(
  ctx: OrgContext,
  filter: SubmissionFilter,
  sort: ListSort,
): AsyncGenerator<string> {
  await recordExport(ctx, filter, "json");
  let chunk = "[";
  let first = true;
  for await (const row of matchingRows(ctx, filter, sort)) {
    chunk +=
      (first ? "\n" : ",\n") +
      JSON.stringify({
        id: row.id,
        templateIdentifier: row.templateIdentifier,
        templateTitle: row.templateTitle,
        templateVersion: row.templateSchema.version,
        rnummer: row.rnummer,
        phone: row.phone,
        patientReported: patientReportedOf(row),
        actorType: row.actorType,
        language: row.language,
        createdAt: row.createdAt.toISOString(),
        values: row.values,
        flagged: computeFlags(row.templateSchema as TemplateSchema, row.values),
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
async function recordExport(
  ctx: OrgContext,
  filter: SubmissionFilter,
  format: "csv" | "json",
  options: { optionValues?: boolean } = {},
): Promise<void> {
  await recordAudit(ctx, {
    action: "submissions.exported",
    templateIdentifier: filter.templateIdentifier ?? null,
    metadata: { format, filter: { ...filter }, ...(options.optionValues && { optionValues: true }) },
  });
}
