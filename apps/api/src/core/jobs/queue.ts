import { and, eq, inArray, jobs, OrgScope, rowsOf, sql, type Executor } from "@clinsign/db";

export type Job = typeof jobs.$inferSelect;

export interface EnqueueInput {
  organizationId: string | null;
  kind: string;
  payload: Record<string, unknown>;
  /** When it may run first; now by default. */
  runAt?: Date;
  maxAttempts: number;
}

/** Through a scope the job belongs to the scope's organization; naming another one is an error. */
export type ScopedEnqueueInput = Omit<EnqueueInput, "organizationId"> & { organizationId?: string | null };

/**
 * Queues background work. Pass the scope (or, for work of no organization, the handle) of the
 * transaction that makes the change the job belongs to, so the job exists exactly when the change
 * does. A scope is the usual caller's; the raw `Executor` is kept for callers not yet moved to one.
 */
export async function enqueueJob(scope: OrgScope, input: ScopedEnqueueInput): Promise<Job>;
export async function enqueueJob(db: Executor, input: EnqueueInput): Promise<Job>;
export async function enqueueJob(target: OrgScope | Executor, input: ScopedEnqueueInput): Promise<Job> {
  let organizationId = input.organizationId ?? null;
  let db: Executor;
  if (target instanceof OrgScope) {
    if (input.organizationId !== undefined && input.organizationId !== target.organizationId)
      throw new Error(`job ${input.kind} names organization ${input.organizationId}, not its scope's`);
    organizationId = target.organizationId;
    // The queue is one table for every organization (the runner claims across them): the job
    // row is written on the scope's own (transaction) handle.
    db = OrgScope.unscoped(target);
  } else db = target;
  const [row] = await db
    .insert(jobs)
    .values({
      organizationId,
      kind: input.kind,
      payload: input.payload,
      maxAttempts: input.maxAttempts,
      runAt: input.runAt ?? new Date(),
    })
    .returning();
  return row!;
}

/**
 * Takes up to `limit` due jobs of the given kinds and leases them for `leaseSeconds`. A job whose
 * worker died stays leased until then and is taken again afterwards, while attempts remain. SKIP LOCKED lets several
 * processes claim side by side without waiting on, or double-taking, each other's rows.
 */
export async function claimDueJobs(db: Executor, kinds: string[], limit: number, leaseSeconds: number): Promise<Job[]> {
  if (kinds.length === 0) return [];
  const kindList = sql.join(
    kinds.map((k) => sql`${k}`),
    sql`, `,
  );
  await failAbandonedJobs(db, kinds);
  const result = await db.execute(sql`
    update ${jobs} set
      status = 'running',
      attempts = ${jobs.attempts} + 1,
      locked_until = now() + make_interval(secs => ${leaseSeconds}),
      updated_at = now()
    where ${jobs.id} in (
      select id from ${jobs}
      where kind in (${kindList})
        and ((status = 'pending' and run_at <= now()) or (status = 'running' and locked_until < now() and attempts < max_attempts))
      order by run_at
      limit ${limit}
      for update skip locked
    )
    returning id`);
  return jobsReturnedBy(db, result);
}

/** The jobs an `update … returning id` touched, as whole rows. */
async function jobsReturnedBy(db: Executor, result: unknown): Promise<Job[]> {
  const ids = rowsOf<{ id: string }>(result).map((r) => r.id);
  if (ids.length === 0) return [];
  return db.select().from(jobs).where(inArray(jobs.id, ids));
}

/**
 * A job whose worker died during its last allowed attempt (e.g. a document that kills the
 * process) ends as failed instead of being taken again, and again, forever. Returns those jobs,
 * so the runner can tell their handlers that they gave up.
 */
export async function failAbandonedJobs(db: Executor, kinds: string[]): Promise<Job[]> {
  if (kinds.length === 0) return [];
  const kindList = sql.join(
    kinds.map((k) => sql`${k}`),
    sql`, `,
  );
  const result = await db.execute(sql`
    update ${jobs} set
      status = 'failed',
      locked_until = null,
      last_error = left(coalesce(last_error || '; ', '') || 'the worker stopped during the last attempt', 2000),
      updated_at = now()
    where kind in (${kindList}) and status = 'running' and locked_until < now() and attempts >= max_attempts
    returning id`);
  return jobsReturnedBy(db, result);
}

/**
 * Gives jobs this process leased back to the queue, due now and without counting the attempt, for
 * another instance to take at once instead of after the lease: a shutdown whose deadline passed
 * while they ran. Their handlers are written to be run again (a seal commits only once, a
 * delivery keeps its id), which is also what a killed process relies on.
 */
export async function handBackJobs(db: Executor, ids: string[]): Promise<number> {
  if (ids.length === 0) return 0;
  const handedBack = await db
    .update(jobs)
    .set({
      status: "pending",
      attempts: sql`greatest(${jobs.attempts} - 1, 0)`,
      lockedUntil: null,
      runAt: new Date(),
      updatedAt: new Date(),
    })
    .where(and(inArray(jobs.id, ids), eq(jobs.status, "running")))
    .returning({ id: jobs.id });
  return handedBack.length;
}

export async function completeJob(db: Executor, id: string): Promise<void> {
  await db
    .update(jobs)
    .set({ status: "done", lockedUntil: null, lastError: null, updatedAt: new Date() })
    .where(eq(jobs.id, id));
}

/** Records a failed attempt: runs again at `retryAt`, or ends as `failed` when that is null. */
export async function failJob(db: Executor, id: string, error: string, retryAt: Date | null): Promise<void> {
  await db
    .update(jobs)
    .set({
      status: retryAt ? "pending" : "failed",
      runAt: retryAt ?? undefined,
      lockedUntil: null,
      lastError: error.slice(0, 2000),
      updatedAt: new Date(),
    })
    .where(and(eq(jobs.id, id), eq(jobs.status, "running")));
}
