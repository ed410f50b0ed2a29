import { and, eq, jobs, sql } from "@clinsign/db";
import { describeError } from "../../log-errors";
import type { Services } from "../context";
import { jobAttempts, jobSeconds, secondsSince } from "../metrics/metrics";
import { inSpan } from "../tracing/tracing";
import { completeJob, failJob, type Job } from "./queue";

export interface JobHandler {
  /** Does the work; throwing counts as a failed attempt. */
  run(job: Job, services: Services): Promise<void>;
  /** Delay before attempt `attempt + 1`, in ms. Jitter belongs here. */
  retryDelayMs(attempt: number): number;
  /**
   * How long a claimed job stays leased before another worker may take it (default 60 s): longer
   * than an attempt can take, or a slow attempt is taken twice; a function where that depends on
   * the deployment's settings.
   */
  leaseSeconds?: number | ((services: Services) => number);
  /** Called once after the last allowed attempt failed (the job is then `failed` for good). */
  gaveUp?(job: Job, services: Services, error: string): Promise<void>;
}

/** The jobs this process is running now: what a shutdown hands back when its deadline passes. */
const runningHere = new Set<string>();

/** The ids of the jobs this process is running at this moment. */
export const jobsRunningHere = (): string[] => [...runningHere];

/** Runs one claimed job and records the outcome: done, retry later, or failed for good. */
export async function executeJob(services: Services, job: Job, handler: JobHandler): Promise<boolean> {
  runningHere.add(job.id);
  try {
    const attributes = { "clinsign.job.kind": job.kind, "clinsign.job.attempt": job.attempts };
    return await inSpan(`job ${job.kind}`, attributes, async (span) => {
      const done = await executeClaimed(services, job, handler);
      span.setAttribute("clinsign.job.outcome", done ? "done" : "failed");
      return done;
    });
  } finally {
    runningHere.delete(job.id);
  }
}

async function executeClaimed(services: Services, job: Job, handler: JobHandler): Promise<boolean> {
  const started = process.hrtime.bigint();
  try {
    try {
      await handler.run(job, services);
    } finally {
      jobSeconds.observe({ kind: job.kind }, secondsSince(started));
    }
    await completeJob(services.db, job.id);
    jobAttempts.inc({ kind: job.kind, outcome: "done" });
    return true;
  } catch (error) {
    // Stored in the job row (staff see it) and logged: never a failed query's parameters.
    const message = describeError(error);
    const retryAt = job.attempts < job.maxAttempts ? new Date(Date.now() + handler.retryDelayMs(job.attempts)) : null;
    services.log.warn(
      { jobId: job.id, kind: job.kind, attempt: job.attempts, retryAt, err: message },
      "job attempt failed",
    );
    await failJob(services.db, job.id, message, retryAt);
    jobAttempts.inc({ kind: job.kind, outcome: retryAt ? "retry" : "failed" });
    if (!retryAt && handler.gaveUp) {
      await handler
        .gaveUp(job, services, message)
        .catch((err: unknown) =>
          services.log.error({ jobId: job.id, kind: job.kind, err: describeError(err) }, "job give-up hook failed"),
        );
    }
    return false;
  }
}

/**
 * Claims one pending job by id (whatever its run_at) and runs it now, e.g. a webhook's first
 * attempt right after the commit that created it. Returns false when another worker holds it.
 */
export async function runJobNow(services: Services, jobId: string, handler: JobHandler): Promise<boolean> {
  const leaseUntil = new Date(Date.now() + leaseSecondsOf(handler, services) * 1000);
  const [job] = await services.db
    .update(jobs)
    .set({ status: "running", attempts: sqlIncrement(), lockedUntil: leaseUntil, updatedAt: new Date() })
    .where(and(eq(jobs.id, jobId), eq(jobs.status, "pending")))
    .returning();
  if (!job) return false;
  return executeJob(services, job, handler);
}

const sqlIncrement = () => sql`${jobs.attempts} + 1`;

/** The handler's lease in seconds, for this deployment. */
export function leaseSecondsOf(handler: JobHandler, services: Services): number {
  const lease = handler.leaseSeconds ?? 60;
  return typeof lease === "function" ? lease(services) : lease;
}
