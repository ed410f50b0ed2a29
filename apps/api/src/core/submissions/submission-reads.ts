import type { ListPage, ListSort, PatientIdentifier, SubmissionDetail, SubmissionListItem } from "@clinsign/contracts";
import {
  desc,
  eq,
  getTableColumns,
  gte,
  inArray,
  lt,
  messages,
  sql,
  submissions,
  webhookAttempts,
  webhookDeliveries,
  type SQL,
} from "@clinsign/db";
import { canonicalJson } from "../canonical-json";
import type { OrgContext } from "../context";
import { sha256Hex } from "../crypto";
import { notFound } from "../errors";
import { afterKey, decodeCursor, exactTimestamp, keyOrder, parseTimeSeqKey, toPage } from "../lists/keyset";
import { loadOutputFormat } from "../organizations/output-format";
import { answeredLabelsOf, describeAnswers, patientName } from "./answers";
import { flaggedCondition, minScoreCondition, storedFlags, storedScores } from "./scores-flags";

/** The filters of the staff list and its exports (contracts: submissionFilters). */
export interface SubmissionFilter {
  templateIdentifier?: string;
  rnummer?: string;
  createdFrom?: string;
  createdTo?: string;
  /** Only submissions with an answer that needs attention (scores-flags.ts). */
  flagged?: boolean;
  /** Only submissions with a score of at least this. */
  minScore?: number;
  /** Only submissions whose rnummer the service vouches for (FHIR's subject search; not the patient's word). */
  vouchedRnummer?: boolean;
}

export type SubmissionRow = typeof submissions.$inferSelect & { cursorAt: string };

export function submissionConditions(filter: SubmissionFilter): (SQL | undefined)[] {
  return [
    filter.templateIdentifier ? eq(submissions.templateIdentifier, filter.templateIdentifier) : undefined,
    filter.rnummer ? eq(submissions.rnummer, filter.rnummer) : undefined,
    filter.createdFrom ? gte(submissions.createdAt, new Date(filter.createdFrom)) : undefined,
    filter.createdTo ? lt(submissions.createdAt, new Date(filter.createdTo)) : undefined,
    filter.flagged ? flaggedCondition() : undefined,
    filter.minScore !== undefined ? minScoreCondition(filter.minScore) : undefined,
    filter.vouchedRnummer ? eq(submissions.rnummerPatientReported, false) : undefined,
  ];
}

export type SubmissionKey = { at: string; seq: number };

/**
 * One keyset page of the organization's submissions: the rows after `after` in (created_at, seq)
 * order, `limit + 1` of them so the caller can tell whether more follow. The list and both
 * exports share this one total order: time, then insertion order for rows of the same time
 * (never a random id, which would put two rows of one millisecond in a random order). Each
 * filter has an index ending in (created_at, seq) (migration 0013); "flagged" and "score at least"
 * are checked row by row along that order (jsonb, no index: use them with a form or time range).
 */
export async function submissionRows(
  ctx: OrgContext,
  filter: SubmissionFilter,
  sort: ListSort,
  after: SubmissionKey | undefined,
  limit: number,
): Promise<SubmissionRow[]> {
  const keyset = after
    ? afterKey(
        [submissions.createdAt, submissions.seq],
        [sql`${after.at}::timestamptz`, sql`${after.seq}::bigint`],
        sort,
      )
    : undefined;
  return ctx.scope
    .query({ ...getTableColumns(submissions), cursorAt: exactTimestamp(submissions.createdAt) })
    .from(submissions)
    .where(...submissionConditions(filter), keyset)
    .orderBy(...keyOrder([submissions.createdAt, submissions.seq], sort))
    .limit(limit + 1);
}

export const rowKey = (row: SubmissionRow) => [row.cursorAt, row.seq] as const;

/** Which identifiers of a stored submission the patient's browser gave and nobody verified. */
export function patientReportedOf(
  row: Pick<typeof submissions.$inferSelect, "rnummerPatientReported" | "phonePatientReported">,
): PatientIdentifier[] {
  return [
    ...(row.rnummerPatientReported ? (["rnummer"] as const) : []),
    ...(row.phonePatientReported ? (["phone"] as const) : []),
  ];
}

function toListItem(row: SubmissionRow): SubmissionListItem {
  return {
    id: row.id,
    templateIdentifier: row.templateIdentifier,
    templateTitle: row.templateTitle,
    rnummer: row.rnummer,
    phone: row.phone,
    patientReported: patientReportedOf(row),
    actorType: row.actorType,
    language: row.language,
    createdAt: row.createdAt.toISOString(),
    fieldCount: Object.keys(row.values).length,
    patientName: patientName(row.templateSchema, row.values),
    scores: storedScores(row.templateSchema, row.values),
    flagged: storedFlags(row.templateSchema, row.values),
  };
}

/** Staff: a page of submissions by template, rnummer and time (the list contract). */
export async function listSubmissionPage(
  ctx: OrgContext,
  input: SubmissionFilter & { cursor?: string; limit: number; sort: ListSort },
): Promise<ListPage<SubmissionListItem>> {
  const after = input.cursor ? decodeCursor(input.cursor, parseTimeSeqKey) : undefined;
  const rows = await submissionRows(ctx, input, input.sort, after, input.limit);
  return toPage(rows, input.limit, toListItem, rowKey);
}

/** What the SHA-256 in the detail and the PDF's footer covers: the submission as stored. */
export function canonicalSubmission(row: typeof submissions.$inferSelect): string {
  return canonicalJson({
    id: row.id,
    templateIdentifier: row.templateIdentifier,
    templateTitle: row.templateTitle,
    schemaVersion: row.templateSchema.version,
    values: row.values,
    rnummer: row.rnummer,
    phone: row.phone,
    // Only when there is a mark, so the digests of earlier submissions stay what they were.
    ...(patientReportedOf(row).length > 0 && { patientReported: patientReportedOf(row) }),
    actorType: row.actorType,
    createdAt: row.createdAt.toISOString(),
  });
}

export async function findSubmission(ctx: OrgContext, id: string): Promise<typeof submissions.$inferSelect> {
  const [row] = await ctx.scope.select(submissions, eq(submissions.id, id)).limit(1);
  if (!row) throw notFound("submission", { field: "id" });
  return row;
}

/**
 * Staff: one submission with each value under its field label in the template version it was
 * submitted with (as text in the organization's language; `timeZone` is the clock its pages show), fresh signed URLs for attachments, and what became of its webhook deliveries
 * and result e-mail. F10 writes those in the submission's own transaction, so they carry its
 * exact `created_at` (PostgreSQL's now() is the transaction's start): that, plus the submission
 * id in the webhook body, finds them without a column of their own.
 */
export async function getSubmissionDetail(ctx: OrgContext, input: { id: string }): Promise<SubmissionDetail> {
  const row = await findSubmission(ctx, input.id);
  const format = await loadOutputFormat(ctx);
  const sameTransaction = (column: typeof webhookDeliveries.createdAt | typeof messages.createdAt) =>
    sql`${column} = (select ${submissions.createdAt} from ${submissions} where ${submissions.id} = ${row.id})`;

  const deliveries = await ctx.scope
    .select(
      webhookDeliveries,
      eq(webhookDeliveries.eventType, "form.submitted"),
      sameTransaction(webhookDeliveries.createdAt),
      sql`position(${row.id} in ${webhookDeliveries.body}) > 0`,
    )
    .orderBy(webhookDeliveries.createdAt);
  const attempts = deliveries.length
    ? await ctx.scope
        .select(
          webhookAttempts,
          inArray(
            webhookAttempts.deliveryId,
            deliveries.map((d) => d.id),
          ),
        )
        .orderBy(desc(webhookAttempts.attempt))
    : [];
  const emails = await ctx.scope.select(
    messages,
    eq(messages.purpose, "submission.email"),
    sameTransaction(messages.createdAt),
  );

  return {
    id: row.id,
    templateIdentifier: row.templateIdentifier,
    templateTitle: row.templateTitle,
    values: row.values,
    rnummer: row.rnummer,
    phone: row.phone,
    patientReported: patientReportedOf(row),
    actorType: row.actorType,
    language: row.language,
    templateLanguage: row.templateLanguage,
    createdAt: row.createdAt.toISOString(),
    schemaVersion: row.templateSchema.version,
    answers: describeAnswers(ctx, row.templateSchema, row.values, format, answeredLabelsOf(row)),
    timeZone: format.timeZone,
    webhooks: deliveries.map((d) => {
      const last = attempts.find((a) => a.deliveryId === d.id);
      return {
        id: d.id,
        url: d.url,
        status: d.status,
        attempts: d.attempts,
        lastStatusCode: last?.statusCode ?? null,
        lastError: last?.errorMessage ?? null,
        updatedAt: d.updatedAt.toISOString(),
      };
    }),
    emails: emails.map((m) => ({
      id: m.id,
      recipients: m.recipients,
      subject: m.subject,
      status: m.status,
      attempts: m.attempts,
      lastError: m.lastError,
      sentAt: m.sentAt?.toISOString() ?? null,
    })),
    sha256: sha256Hex(canonicalSubmission(row)),
  };
}
