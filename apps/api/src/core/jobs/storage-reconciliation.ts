import {
  and,
  asc,
  eq,
  isNotNull,
  isNull,
  lt,
  lte,
  rowsOf,
  sql,
  storageOrphans,
  storageReconciliations,
  type SQL,
} from "@clinsign/db";
import { describeError } from "../../log-errors";
import { LOGO_PATH_PREFIX } from "../branding/logos";
import { nowOf, type Services } from "../context";
import { pagedPdfOf } from "../documents/page-images";
import { inList } from "../patients/record-filters";
import type { JobHandler } from "./execute";

/**
 * Storage reconciliation (issue 32): stored objects no row references. Rows and objects are
 * written in two steps (object first, then the row; row deleted, then the object), so a crash or a
 * missed path leaves an object behind for good — signers' drawn signatures once did. Across
 * organizations by nature (the store is one), so it lives with the job queue.
 *
 * A run lists every key of the store (fs, db, s3 alike: `FileStorage.list`) in batches, asks the
 * database which keys a row references (`referencedKeys`), and records the others in
 * `storage_orphans` (first and last seen, by the services' clock): that table is the operators'
 * report (`pnpm cli storage orphans`), and the run's counts are logged and kept in
 * `storage_reconciliations`. An orphan seen unreferenced for STORAGE_ORPHAN_GRACE_HOURS is checked
 * once more just before it is deleted, and kept when a row references it by then. The grace period
 * is what makes this safe against an object written moments before its row commits: that object
 * is reported at most until its row is there, never deleted.
 *
 * Only keys under the prefixes the service writes (`DELETABLE`) are ever deleted; anything else in
 * the store is reported with `deletable` false and left alone.
 */

export const STORAGE_RECONCILE_JOB = "storage.reconcile";
/** A run a day; the schedule row makes it one run a day whatever the number of processes. */
export const STORAGE_RECONCILE_INTERVAL_MS = 24 * 3600_000;
/** Deleted orphans stay in the report this long. */
const REPORT_KEEP_MS = 90 * 24 * 3600_000;
const BATCH = 500;
const SCHEDULE_ID = "storage";

/**
 * The prefixes the service stores objects under, each referenced by rows `referencedKeys` reads:
 * documents (document_versions), document-pages (page images of a version's PDF), signed (sealed
 * and stamped PDFs, metadata JSON), signatures (drawn signatures of requests and of signers),
 * form-uploads (form_uploads), logo-<organization> (organization and institution branding).
 */
const DELETABLE = /^(documents|document-pages|signed|signatures|form-uploads|logo-[0-9a-f-]{36})\//;

/**
 * The keys among `keys` a row references, across organizations: every column that holds a storage
 * key, the page images of a referenced PDF, and logos by the path branding shows them under.
 * Add a column here when a table starts holding storage keys.
 */
export async function referencedKeys(services: Services, keys: readonly string[]): Promise<Set<string>> {
  const found = new Set<string>();
  if (keys.length === 0) return found;
  const read = async (query: SQL) => {
    for (const row of rowsOf<{ k: string }>(await services.db.execute(query))) found.add(row.k);
  };
  const k = (column: SQL) => inList(column, keys, "text");
  await read(sql`select storage_key as k from form_uploads where ${k(sql`storage_key`)}
    union select storage_key from document_versions where ${k(sql`storage_key`)}
    union select signature_image_key from signature_signers where ${k(sql`signature_image_key`)}
    union select key from signature_requests,
      unnest(array[signed_pdf_key, metadata_key, signature_image_key, stamped_key]) as key where ${k(sql`key`)}`);

  // Page images: referenced while a document version's PDF of the same month and name is.
  const pages = new Map<string, string[]>();
  for (const key of keys) {
    const pdf = pagedPdfOf(key);
    if (pdf) pages.set(pdf, [...(pages.get(pdf) ?? []), key]);
  }
  if (pages.size > 0) {
    const result = await services.db.execute(
      sql`select distinct regexp_replace(storage_key, '^[a-z0-9-]+/', '') as pdf from document_versions
        where ${inList(sql`regexp_replace(storage_key, '^[a-z0-9-]+/', '')`, [...pages.keys()], "text")}`,
    );
    for (const row of rowsOf<{ pdf: string }>(result)) for (const key of pages.get(row.pdf) ?? []) found.add(key);
  }

  // Logos: `logo-<org>/<yyyymm>/<random>` is shown as `/branding/logos/<org>/<yyyymm>/<random>`,
  // which branding keeps as the path or inside an absolute URL.
  const logos = new Map(
    keys.filter((key) => key.startsWith("logo-")).map((key) => [`${LOGO_PATH_PREFIX}${key.slice(5)}`, key]),
  );
  if (logos.size > 0) {
    const result = await services.db.execute(
      sql`select p.path from jsonb_array_elements_text(${JSON.stringify([...logos.keys()])}::jsonb) as p(path)
        where exists (select 1 from organization_branding b where strpos(b.logo_url, p.path) > 0)
          or exists (select 1 from institution_branding b where strpos(b.logo_url, p.path) > 0)`,
    );
    for (const row of rowsOf<{ path: string }>(result)) found.add(logos.get(row.path)!);
  }
  return found;
}

export interface ReconcileResult {
  /** Keys in the store. */
  listed: number;
  /** Keys a row references. */
  referenced: number;
  /** Keys no row references (after this run's deletions: still in the store). */
  orphans: number;
  /** Of those, first seen in this run. */
  newOrphans: number;
  /** Orphans deleted in this run (unreferenced for the whole grace period and at the re-check). */
  deleted: number;
  /** Orphans under a prefix the service does not write: reported, never deleted. */
  notDeletable: number;
}

export interface ReconcileOptions {
  /** Default: the configuration's STORAGE_ORPHAN_GRACE_HOURS. */
  graceMs?: number;
  /** Tests: called after the listing, before the re-check and the deletions. */
  beforeDeleting?: () => Promise<unknown>;
}

/**
 * One reconciliation of the whole store (see the file's comment). Safe to run in several processes
 * at once (upserts, and deleting a deleted key is no error), though the schedule runs one a day.
 */
export async function reconcileStorage(services: Services, options: ReconcileOptions = {}): Promise<ReconcileResult> {
  const graceMs = options.graceMs ?? services.config.storageOrphanGraceMs;
  const now = nowOf(services);
  const db = services.db;
  await db
    .insert(storageReconciliations)
    .values({ id: SCHEDULE_ID, nextRunAt: now, lastStartedAt: now })
    .onConflictDoUpdate({ target: storageReconciliations.id, set: { lastStartedAt: now } });
  try {
    const result = { listed: 0, referenced: 0, orphans: 0, newOrphans: 0, deleted: 0, notDeletable: 0 };
    let batch: string[] = [];
    const flush = async () => {
      const referenced = await referencedKeys(services, batch);
      const unreferenced = batch.filter((key) => !referenced.has(key));
      result.referenced += referenced.size;
      if (referenced.size > 0)
        await db.delete(storageOrphans).where(inList(storageOrphans.key, [...referenced], "text"));
      if (unreferenced.length > 0) {
        const rows = await db
          .insert(storageOrphans)
          .values(
            unreferenced.map((key) => ({ key, firstSeenAt: now, lastSeenAt: now, deletable: DELETABLE.test(key) })),
          )
          // An orphan deleted before and stored again under its key starts its grace period anew.
          .onConflictDoUpdate({
            target: storageOrphans.key,
            set: {
              lastSeenAt: now,
              firstSeenAt: sql`case when ${storageOrphans.deletedAt} is null then ${storageOrphans.firstSeenAt} else excluded.first_seen_at end`,
              deletedAt: null,
            },
          })
          .returning({ firstSeenAt: storageOrphans.firstSeenAt });
        result.newOrphans += rows.filter((row) => row.firstSeenAt.getTime() === now.getTime()).length;
      }
      batch = [];
    };
    for await (const key of services.storage.list()) {
      result.listed++;
      batch.push(key);
      if (batch.length >= BATCH) await flush();
    }
    await flush();
    // Reported orphans the store no longer holds (deleted elsewhere) leave the report.
    await db.delete(storageOrphans).where(and(isNull(storageOrphans.deletedAt), lt(storageOrphans.lastSeenAt, now)));
    await options.beforeDeleting?.();
    result.deleted = await deleteDueOrphans(services, now, graceMs);
    await db
      .delete(storageOrphans)
      .where(
        and(
          isNotNull(storageOrphans.deletedAt),
          lt(storageOrphans.deletedAt, new Date(now.getTime() - REPORT_KEEP_MS)),
        ),
      );

    const [counts] = rowsOf<{ orphans: number; not_deletable: number }>(
      await db.execute(sql`select count(*)::int as orphans, count(*) filter (where not deletable)::int as not_deletable
        from storage_orphans where deleted_at is null`),
    );
    result.orphans = counts?.orphans ?? 0;
    result.notDeletable = counts?.not_deletable ?? 0;
    await db
      .update(storageReconciliations)
      .set({ lastFinishedAt: nowOf(services), lastResult: result, lastError: null })
      .where(eq(storageReconciliations.id, SCHEDULE_ID));
    // Counts only (keys are in the report); info, as every sweep's summary is.
    services.log.info(
      { ...result, graceHours: graceMs / 3600_000 },
      result.orphans > 0
        ? "storage reconciliation: stored objects no row references (pnpm cli storage orphans)"
        : "storage reconciliation: every stored object is referenced",
    );
    return result;
  } catch (error) {
    await db
      .update(storageReconciliations)
      .set({ lastError: describeError(error) })
      .where(eq(storageReconciliations.id, SCHEDULE_ID))
      .catch(() => undefined);
    throw error;
  }
}

/**
 * Deletes the deletable orphans first seen at least `graceMs` before `now`, after checking once more
 * that no row references them (a row committed since the listing keeps its object). A failed delete
 * stays in the report and is tried again by the next run.
 */
async function deleteDueOrphans(services: Services, now: Date, graceMs: number): Promise<number> {
  const db = services.db;
  const due = (
    await db
      .select({ key: storageOrphans.key })
      .from(storageOrphans)
      .where(
        and(
          isNull(storageOrphans.deletedAt),
          eq(storageOrphans.deletable, true),
          lte(storageOrphans.firstSeenAt, new Date(now.getTime() - graceMs)),
        ),
      )
      .orderBy(asc(storageOrphans.key))
  ).map((row) => row.key);
  let deleted = 0;
  for (let start = 0; start < due.length; start += BATCH) {
    const keys = due.slice(start, start + BATCH);
    const referenced = await referencedKeys(services, keys);
    if (referenced.size > 0) await db.delete(storageOrphans).where(inList(storageOrphans.key, [...referenced], "text"));
    const gone: string[] = [];
    for (const key of keys.filter((key) => !referenced.has(key))) {
      try {
        await services.storage.delete(key);
        gone.push(key);
      } catch (error) {
        services.log.warn({ err: describeError(error) }, "storage reconciliation: an orphan could not be deleted yet");
      }
    }
    if (gone.length > 0)
      await db
        .update(storageOrphans)
        .set({ deletedAt: now })
        .where(inList(storageOrphans.key, gone, "text"));
    deleted += gone.length;
  }
  return deleted;
}

/**
 * Queues the day's reconciliation when it is due (by the services' clock): one statement moves the
 * schedule a day on and queues the job, so processes scheduling at once queue one. Returns whether
 * it queued one.
 */
export async function scheduleStorageReconciliation(services: Services): Promise<boolean> {
  const now = nowOf(services);
  const at = sql`${now.toISOString()}::timestamptz`;
  await services.db.execute(
    sql`insert into storage_reconciliations (id, next_run_at) values (${SCHEDULE_ID}, ${at}) on conflict (id) do nothing`,
  );
  const result = await services.db.execute(sql`
    with due as (
      update storage_reconciliations set next_run_at = ${at} + make_interval(secs => ${STORAGE_RECONCILE_INTERVAL_MS / 1000})
      where id = ${SCHEDULE_ID} and next_run_at <= ${at}
      returning id
    )
    insert into jobs (id, organization_id, kind, payload, max_attempts)
    select gen_random_uuid(), null, ${STORAGE_RECONCILE_JOB}, '{}'::jsonb, 6 from due
    returning id`);
  const queued = rowsOf<{ id: string }>(result).length > 0;
  if (queued) services.jobs?.wake();
  return queued;
}

/** `storage.reconcile`: one run; a failed one is retried an hour later (the next day's run regardless). */
export const storageReconcileJobHandler: JobHandler = {
  async run(_job, services) {
    await reconcileStorage(services);
  },
  retryDelayMs: () => 3600_000,
  // Listing a large bucket takes a while; the job must not be claimed again meanwhile.
  leaseSeconds: 3600,
};

export interface StorageOrphanReport {
  graceHours: number;
  lastRun: {
    startedAt: string | null;
    finishedAt: string | null;
    result: Record<string, number> | null;
    error: string | null;
  } | null;
  /** Orphans still in the store, oldest first, with when they will be deleted (null: never, not deletable). */
  orphans: { key: string; firstSeenAt: string; lastSeenAt: string; deletesAfter: string | null }[];
  /** Orphans deleted in the last 90 days. */
  deleted: { key: string; firstSeenAt: string; deletedAt: string }[];
}

/** The operators' report (`pnpm cli storage orphans`): the last run and every orphan. Keys only, no contents. */
export async function storageOrphanReport(services: Services): Promise<StorageOrphanReport> {
  const graceMs = services.config.storageOrphanGraceMs;
  const [run] = await services.db
    .select()
    .from(storageReconciliations)
    .where(eq(storageReconciliations.id, SCHEDULE_ID));
  const rows = await services.db
    .select()
    .from(storageOrphans)
    .orderBy(asc(storageOrphans.firstSeenAt), asc(storageOrphans.key));
  return {
    graceHours: graceMs / 3600_000,
    lastRun: run
      ? {
          startedAt: run.lastStartedAt?.toISOString() ?? null,
          finishedAt: run.lastFinishedAt?.toISOString() ?? null,
          result: run.lastResult ?? null,
          error: run.lastError,
        }
      : null,
    orphans: rows
      .filter((row) => !row.deletedAt)
      .map((row) => ({
        key: row.key,
        firstSeenAt: row.firstSeenAt.toISOString(),
        lastSeenAt: row.lastSeenAt.toISOString(),
        deletesAfter: row.deletable ? new Date(row.firstSeenAt.getTime() + graceMs).toISOString() : null,
      })),
    deleted: rows.flatMap((row) =>
      row.deletedAt
        ? [{ key: row.key, firstSeenAt: row.firstSeenAt.toISOString(), deletedAt: row.deletedAt.toISOString() }]
        : [],
    ),
  };
}
