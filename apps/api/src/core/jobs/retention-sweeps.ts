import { rowsOf, sql } from "@clinsign/db";
import { nowOf, type Services } from "../context";
import { RETENTION_INTERVAL_MS, RETENTION_SWEEP_JOB } from "../retention/sweep";

/** A sweep job's attempts: a busy or failing sweep is retried every few minutes for about an hour. */
const SWEEP_MAX_ATTEMPTS = 12;

/**
 * Queues the retention sweep of every organization whose next run is due (by the services'
 * clock), across organizations: a system sweep, like expiry. One statement moves each due
 * organization's `next_run_at` a day on and queues its job, so processes scheduling at the same
 * time queue one job per organization (the second waits on the row and then finds it not due).
 * Organizations without a sweep row get one, due now. Returns how many sweeps it queued.
 */
export async function scheduleRetentionSweeps(services: Services): Promise<number> {
  const now = nowOf(services);
  const at = sql`${now.toISOString()}::timestamptz`;
  await services.db.execute(
    sql`insert into retention_sweeps (organization_id, next_run_at) select id, ${at} from organizations
      on conflict (organization_id) do nothing`,
  );
  const result = await services.db.execute(sql`
    with due as (
      update retention_sweeps s set next_run_at = ${at} + make_interval(secs => ${RETENTION_INTERVAL_MS / 1000})
      where s.next_run_at <= ${at}
      returning s.organization_id
    )
    insert into jobs (id, organization_id, kind, payload, max_attempts)
    select gen_random_uuid(), organization_id, ${RETENTION_SWEEP_JOB}, '{}'::jsonb, ${SWEEP_MAX_ATTEMPTS} from due
    returning id`);
  const queued = rowsOf<{ id: string }>(result).length;
  if (queued > 0) services.jobs?.wake();
  return queued;
}

/** The organizations with a sweep row, for `cli retention run --all`. */
export async function organizationsWithSweeps(services: Services): Promise<string[]> {
  const result = await services.db.execute(sql`select id::text as id from organizations order by created_at`);
  return rowsOf<{ id: string }>(result).map((r) => r.id);
}
