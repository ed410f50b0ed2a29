import { randomUUID } from "node:crypto";
import type { RetentionKind, RetentionPreview } from "@clinsign/contracts";
import { retentionKinds } from "@clinsign/contracts";
import { sql, type SQL } from "@clinsign/db";
import { describeError } from "../../log-errors";
import { recordAudit } from "../audit/audit";
import { afterCommit, inTransaction, nowOf, systemContext, type OrgContext, type Services } from "../context";
import { AppError } from "../errors";
import { runJobNow, type JobHandler } from "../jobs/execute";
import { enqueueJob, type Job } from "../jobs/queue";
import { heldRecord } from "./legal-holds";
import { cutoffOf, retentionPolicyOf, zeroCounts } from "./policies";

/**
 * The retention sweep of one organization: for each kind with a period, the records past its
 * cutoff that no legal hold keeps are deleted in batches. Each batch is one transaction that
 * deletes the rows (their dependants cascade), queues one job that deletes their stored files,
 * adds the batch's counts to the run and writes one audit entry with counts only. The files go
 * after the commit (the job, run at once and retried until done): a crash in between leaves files
 * whose rows are gone, deleted by the job later, never a row whose file is gone.
 *
 * One sweep per organization at a time, on PGlite and PostgreSQL alike: a lease in
 * `retention_sweeps` (owner, until), taken when free or run out, renewed by every batch in its own
 * transaction with the row locked — a sweeper whose lease was taken over cannot commit another
 * batch. A run that stopped (crash, error) is resumed by the next one: its counts so far stay, and
 * the records it had not reached are still past their cutoff.
 */

export const RETENTION_BATCH_SIZE = 200;
/** How long a sweeper may go without finishing a batch before another may take over. */
export const RETENTION_LEASE_SECONDS = 300;
/** A finished run schedules the next one this much later. */
export const RETENTION_INTERVAL_MS = 24 * 3600_000;

export const RETENTION_SWEEP_JOB = "retention.sweep";
export const OBJECT_DELETION_JOB = "storage.delete";

/**
 * One table a kind sweeps. The SQL works on alias `r`: `due` says "past the cutoff" (with the
 * statuses that may go), `held` that a legal hold keeps the row, and `remove` deletes the chosen
 * rows (`doomed`, a CTE of whole rows) answering `records` (count) and `keys` (json array of
 * storage keys to delete).
 */
interface Target {
  table: string;
  /** The record's age: what the cutoff is compared with, and the batches' order. */
  age: string;
  due?: string;
  held: SQL;
  remove?: (org: SQL) => SQL;
}

/** Deletes the doomed rows of `table`; no stored files. */
const removeRows = (table: string) => (org: SQL) =>
  sql`gone as (delete from ${sql.raw(table)} x using doomed d where x.id = d.id and x.organization_id = ${org} returning x.id)
    select (select count(*) from gone)::int as records, '[]'::json as keys`;

/** The Bundles pushed to the hospital's FHIR server for the doomed records: copies, they go with them. */
const goneFhirDeliveries = (org: SQL) =>
  sql`gone_fhir as (delete from fhir_deliveries x using doomed d where x.source_id = d.id and x.organization_id = ${org})`;

/** Answers in a submission's `values` naming an upload: `[{path: storageKey, …}]`. */
const namesUpload = (values: string, upload: string) =>
  sql.raw(`exists (select 1 from jsonb_each(${values}) as answer(key, value) where jsonb_typeof(answer.value) = 'array'
    and answer.value @> jsonb_build_array(jsonb_build_object('path', ${upload}.storage_key)))`);

const targets: Record<RetentionKind, Target[]> = {
  drafts: [{ table: "drafts", age: "r.updated_at", held: heldRecord.drafts("r") }],
  submissions: [
    {
      table: "submissions",
      age: "r.created_at",
      held: heldRecord.submissions("r"),
      // The submission's attachments go with it, unless another submission still names them or
      // a hold keeps them.
      remove: (org) =>
        sql`files as (
          select distinct u.id from form_uploads u, doomed d
          where u.organization_id = ${org} and u.template_identifier = d.template_identifier and ${namesUpload("d.values", "u")}
            and not exists (select 1 from submissions o where o.organization_id = ${org}
              and o.template_identifier = u.template_identifier and o.id not in (select id from doomed) and ${namesUpload("o.values", "u")})
            and not ${heldRecord.formUploads("u")}
        ),
        gone_files as (delete from form_uploads x using files f where x.id = f.id and x.organization_id = ${org} returning x.storage_key),
        ${goneFhirDeliveries(org)},
        gone as (delete from submissions x using doomed d where x.id = d.id and x.organization_id = ${org} returning x.id)
        select (select count(*) from gone)::int as records,
          coalesce((select json_agg(storage_key) from gone_files), '[]'::json) as keys`,
    },
  ],
  signatureRequests: [
    {
      table: "signature_requests",
      // Finished requests only, from when they finished; open ones are never due.
      age: "coalesce(r.completed_at, r.declined_at, r.expired_at, r.expires_at)",
      due: "r.status in ('completed', 'declined', 'expired')",
      held: heldRecord.signatureRequests("r"),
      // With several signers each signer's drawn signature is on its `signature_signers` row, which
      // goes by cascade: its key is read in the same statement (one snapshot, before the cascade).
      remove: (org) =>
        sql`signer_images as (
          select s.signature_image_key as k from signature_signers s, doomed d
          where s.organization_id = ${org} and s.signature_request_id = d.id and s.signature_image_key is not null
        ),
        ${goneFhirDeliveries(org)},
        gone as (delete from signature_requests x using doomed d where x.id = d.id and x.organization_id = ${org}
            returning x.id, x.signed_pdf_key, x.metadata_key, x.signature_image_key, x.stamped_key)
        select (select count(*) from gone)::int as records,
          coalesce((select json_agg(k) from (
            select k from gone, unnest(array[signed_pdf_key, metadata_key, signature_image_key, stamped_key]) as k
            where k is not null
            union all select k from signer_images) as files), '[]'::json) as keys`,
    },
  ],
  // Queued messages are still to be sent; their job owns them.
  outbox: [{ table: "messages", age: "r.created_at", due: "r.status <> 'queued'", held: heldRecord.messages("r") }],
  webhookDeliveries: [
    {
      table: "webhook_deliveries",
      age: "r.created_at",
      due: "r.status <> 'pending'",
      held: heldRecord.webhookDeliveries("r"),
    },
  ],
  sessions: [
    { table: "form_sessions", age: "r.expires_at", held: heldRecord.embedSessions("r") },
    { table: "form_requests", age: "r.expires_at", held: heldRecord.formRequests("r") },
    {
      table: "signing_credentials",
      age: "r.expires_at",
      held: sql`exists (select 1 from signature_requests hsr where hsr.organization_id = r.organization_id
        and hsr.id = r.request_id and ${heldRecord.signatureRequests("hsr")})`,
    },
  ],
};

const dueCondition = (target: Target, cutoff: Date) =>
  sql`${sql.raw(target.age)} < ${cutoff.toISOString()}::timestamptz${target.due ? sql` and ${sql.raw(target.due)}` : sql``}`;

/** One batch of `target`: at most `limit` due, unheld rows deleted; their files' keys. */
async function deleteBatch(
  ctx: OrgContext,
  target: Target,
  cutoff: Date,
  limit: number,
): Promise<{ records: number; keys: string[] }> {
  const [row] = await ctx.scope.execute<{ records: number; keys: string[] | string }>(
    (org) => sql`with doomed as (
        select r.* from ${sql.raw(target.table)} r
        where r.organization_id = ${org} and ${dueCondition(target, cutoff)} and not ${target.held}
        order by ${sql.raw(target.age)}
        limit ${limit}
        for update of r skip locked
      ),
      ${(target.remove ?? removeRows(target.table))(org)}`,
  );
  const keys = typeof row?.keys === "string" ? (JSON.parse(row.keys) as string[]) : (row?.keys ?? []);
  return { records: Number(row?.records ?? 0), keys };
}

// ---------------------------------------------------------------------------------------------
// Preview

/** "What the next run will delete": per kind, its cutoff by the services' clock, the records due and those a hold keeps. */
export async function previewRetention(ctx: OrgContext): Promise<RetentionPreview> {
  const now = nowOf(ctx.services);
  const policy = await retentionPolicyOf(ctx);
  const kinds = [];
  for (const kind of retentionKinds) {
    const period = policy[kind];
    if (!period) {
      kinds.push({ kind, period: null, cutoff: null, records: 0, held: 0 });
      continue;
    }
    const cutoff = cutoffOf(period, now);
    let records = 0;
    let held = 0;
    for (const target of targets[kind]) {
      const [row] = await ctx.scope.execute<{ records: number; held: number }>(
        (org) => sql`select count(*) filter (where not held)::int as records, count(*) filter (where held)::int as held
          from (select ${target.held} as held from ${sql.raw(target.table)} r
            where r.organization_id = ${org} and ${dueCondition(target, cutoff)}) as due`,
      );
      records += Number(row?.records ?? 0);
      held += Number(row?.held ?? 0);
    }
    kinds.push({ kind, period, cutoff: cutoff.toISOString(), records, held });
  }
  return { asOf: now.toISOString(), kinds };
}

// ---------------------------------------------------------------------------------------------
// The sweep

export interface SweepOptions {
  /** Who sweeps (the lease's owner); a new id per call by default. */
  owner?: string;
  batchSize?: number;
  leaseSeconds?: number;
  /** Tests: called inside each batch's transaction after its rows were deleted (throw to crash it). */
  inBatch?: (kind: RetentionKind, records: number) => Promise<void> | void;
  /** Delete the files right after each batch commits (default); false leaves it to the job runner. */
  deleteFilesNow?: boolean;
}

export type SweepResult =
  { status: "done"; deleted: Record<RetentionKind, number>; resumed: boolean } | { status: "busy" };

class LeaseLost extends Error {
  constructor() {
    super("the retention sweep's lease was taken over by another sweeper");
  }
}

/** Takes the organization's sweep lease when it is free or ran out; resumes an unfinished run. */
async function takeLease(
  ctx: OrgContext,
  owner: string,
  leaseSeconds: number,
  now: Date,
): Promise<{ resumed: boolean } | null> {
  await ctx.scope.execute(
    (org) =>
      sql`insert into retention_sweeps (organization_id) values (${org}) on conflict (organization_id) do nothing`,
  );
  const [row] = await ctx.scope.execute<{ resumed: boolean }>(
    (org) => sql`with previous as (
        select organization_id, (run_started_at is not null and run_finished_at is null) as unfinished
        from retention_sweeps where organization_id = ${org} for update
      )
      update retention_sweeps s set
        lease_owner = ${owner}, lease_until = now() + make_interval(secs => ${leaseSeconds}),
        run_started_at = case when p.unfinished then s.run_started_at else ${now.toISOString()}::timestamptz end,
        run_deleted = case when p.unfinished then s.run_deleted else '{}'::jsonb end,
        run_finished_at = null
      from previous p
      where s.organization_id = p.organization_id and (s.lease_until is null or s.lease_until < now())
      returning p.unfinished as resumed`,
  );
  return row ? { resumed: row.resumed === true } : null;
}

/** Inside a batch's transaction: renews the lease (locking the row), or throws when another sweeper holds it. */
async function renewLease(ctx: OrgContext, owner: string, leaseSeconds: number): Promise<void> {
  const rows = await ctx.scope.execute<{ ok: number }>(
    (org) => sql`update retention_sweeps set lease_until = now() + make_interval(secs => ${leaseSeconds})
      where organization_id = ${org} and lease_owner = ${owner} returning 1 as ok`,
  );
  if (rows.length === 0) throw new LeaseLost();
}

async function addCounts(ctx: OrgContext, kind: RetentionKind, records: number): Promise<void> {
  await ctx.scope.execute(
    (org) => sql`update retention_sweeps set run_deleted = run_deleted || jsonb_build_object(${kind}::text,
        coalesce((run_deleted->>${kind}::text)::int, 0) + ${records}::int)
      where organization_id = ${org}`,
  );
}

/**
 * Runs the organization's sweep to the end (or resumes a stopped one). `busy` when another sweeper
 * holds the lease. Errors release the lease and are recorded as the run's `last_error`.
 */
export async function runRetentionSweep(caller: OrgContext, options: SweepOptions = {}): Promise<SweepResult> {
  const owner = options.owner ?? randomUUID();
  const batchSize = options.batchSize ?? RETENTION_BATCH_SIZE;
  const leaseSeconds = options.leaseSeconds ?? RETENTION_LEASE_SECONDS;
  // The run's audit entries and logs carry the lease owner as their request id.
  const ctx: OrgContext = { ...caller, request: { ...caller.request, requestId: `retention:${owner}` } };
  const {
    services,
    scope: { organizationId },
  } = ctx;
  const now = nowOf(services);
  const lease = await takeLease(ctx, owner, leaseSeconds, now);
  if (!lease) return { status: "busy" };
  const deleted = zeroCounts();
  try {
    const policy = await retentionPolicyOf(ctx);
    for (const kind of retentionKinds) {
      const period = policy[kind];
      if (!period) continue;
      const cutoff = cutoffOf(period, now);
      for (const target of targets[kind]) {
        for (;;) {
          const batch = await inTransaction(ctx, async (tx) => {
            await renewLease(tx, owner, leaseSeconds);
            const result = await deleteBatch(tx, target, cutoff, batchSize);
            if (result.records === 0) return result;
            await addCounts(tx, kind, result.records);
            if (result.keys.length > 0) {
              const job = await enqueueJob(tx.scope, {
                kind: OBJECT_DELETION_JOB,
                payload: { keys: result.keys },
                maxAttempts: OBJECT_DELETION_SCHEDULE_MS.length,
              });
              if (options.deleteFilesNow !== false)
                await afterCommit(tx, "retention.delete_files", () =>
                  runJobNow(services, job.id, objectDeletionJobHandler),
                );
            }
            await recordAudit(tx, {
              action: "retention.deleted",
              metadata: { kind, table: target.table, records: result.records, files: result.keys.length },
            });
            await options.inBatch?.(kind, result.records);
            return result;
          });
          deleted[kind] += batch.records;
          if (batch.records < batchSize) break;
        }
      }
    }
    await ctx.scope.execute(
      (org) => sql`update retention_sweeps set lease_owner = null, lease_until = null, last_error = null,
          run_finished_at = ${nowOf(services).toISOString()}::timestamptz,
          next_run_at = ${new Date(now.getTime() + RETENTION_INTERVAL_MS).toISOString()}::timestamptz
        where organization_id = ${org} and lease_owner = ${owner}`,
    );
    services.log.info({ organizationId, deleted, resumed: lease.resumed }, "retention sweep finished");
    return { status: "done", deleted, resumed: lease.resumed };
  } catch (error) {
    const message = describeError(error);
    if (!(error instanceof LeaseLost))
      await ctx.scope
        .execute(
          (org) => sql`update retention_sweeps set lease_owner = null, lease_until = null, last_error = ${message}
            where organization_id = ${org} and lease_owner = ${owner}`,
        )
        .catch(() => undefined);
    services.log.error({ organizationId, err: message }, "retention sweep stopped; the next run resumes it");
    throw error;
  }
}

// ---------------------------------------------------------------------------------------------
// Jobs

/** Delay before attempt n+1 of deleting files: 10 s, 1 min, 5 min, 30 min, 2 h, 6 h, then 12-hourly. */
const OBJECT_DELETION_SCHEDULE_MS = [
  0, 10_000, 60_000, 300_000, 1_800_000, 7_200_000, 21_600_000, 43_200_000, 43_200_000,
];

/** Deletes stored files whose rows a committed batch removed. Deleting a missing file is no error, so a retry is safe. */
export const objectDeletionJobHandler: JobHandler = {
  async run(job: Job, services: Services) {
    const keys = (job.payload as { keys?: unknown }).keys;
    if (!Array.isArray(keys)) return;
    for (const key of keys) if (typeof key === "string") await services.storage.delete(key);
  },
  retryDelayMs: (attempt) => OBJECT_DELETION_SCHEDULE_MS[Math.min(attempt, OBJECT_DELETION_SCHEDULE_MS.length - 1)]!,
};

/** A queued sweep (one per organization and day, see core/jobs/retention-sweeps.ts). Another sweeper at work: retried later. */
export const retentionSweepJobHandler: JobHandler = {
  async run(job: Job, services: Services) {
    if (!job.organizationId) return;
    const result = await runRetentionSweep(systemContext(services, job.organizationId));
    if (result.status === "busy")
      throw new AppError("conflict", "another retention sweep of this organization is running", { reason: "busy" });
  },
  retryDelayMs: () => RETENTION_LEASE_SECONDS * 1000,
  // A long sweep must not be claimed again while it runs; its own lease guards the work.
  leaseSeconds: 3600,
};
