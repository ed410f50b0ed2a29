import type { Services } from "../core/context";
import { executeJob, leaseSecondsOf, type JobHandler } from "../core/jobs/execute";
import { claimDueJobs, failAbandonedJobs } from "../core/jobs/queue";
import { describeError } from "../log-errors";

export type { JobHandler } from "../core/jobs/execute";

export interface JobRunnerOptions {
  pollIntervalMs?: number;
  batchSize?: number;
}

/**
 * Polls the jobs table and runs due jobs with their handlers. Safe to run in every API process:
 * claims use SKIP LOCKED and leases, and state lives only in the database.
 */
export class JobRunner {
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<void> | undefined;
  private stopped = true;
  private wakeRequested = false;
  /** Set by stop(): a pass under way claims nothing more (runDue without start() still runs). */
  private stopping = false;

  constructor(
    private readonly services: Services,
    private readonly handlers: Record<string, JobHandler>,
    private readonly options: JobRunnerOptions = {},
  ) {}

  start(): void {
    this.stopped = false;
    this.stopping = false;
    this.schedule(0);
  }

  /** Runs a pass now instead of waiting for the next poll (e.g. right after enqueueing). */
  wake(): void {
    if (this.stopped) return;
    if (this.running) this.wakeRequested = true;
    else this.schedule(0);
  }

  async stop(): Promise<void> {
    this.stopped = true;
    this.stopping = true;
    clearTimeout(this.timer);
    await this.running;
  }

  /** One pass: claims and runs every due job, batch by batch. Returns how many ran. */
  async runDue(): Promise<number> {
    const { db } = this.services;
    const batchSize = this.options.batchSize ?? 10;
    let ran = 0;
    for (const [kind, handler] of Object.entries(this.handlers)) {
      // Stopping: no new claims (the pass's running jobs finish, or are handed back at the deadline).
      if (this.stopping) break;
      // Jobs whose worker died in their last attempt never reach executeJob: their handler hears of it here.
      for (const job of await failAbandonedJobs(db, [kind])) {
        await handler
          .gaveUp?.(job, this.services, job.lastError ?? "the worker stopped during the last attempt")
          .catch((err: unknown) =>
            this.services.log.error({ jobId: job.id, kind, err: describeError(err) }, "job give-up hook failed"),
          );
      }
      for (;;) {
        const claimed = await claimDueJobs(db, [kind], batchSize, leaseSecondsOf(handler, this.services));
        await Promise.all(claimed.map((job) => executeJob(this.services, job, handler)));
        ran += claimed.length;
        if (claimed.length < batchSize || this.stopped) break;
      }
    }
    return ran;
  }

  private schedule(delayMs: number): void {
    clearTimeout(this.timer);
    this.timer = setTimeout(() => {
      this.running = this.runDue()
        .then(() => undefined)
        .catch((error) => this.services.log.error({ err: error }, "job pass failed"))
        .finally(() => {
          this.running = undefined;
          if (this.stopped) return;
          const again = this.wakeRequested;
          this.wakeRequested = false;
          this.schedule(again ? 0 : (this.options.pollIntervalMs ?? 1000));
        });
    }, delayMs);
    this.timer.unref?.();
  }
}

/** `base` ± `ratio`, so retries of many jobs do not arrive in lockstep. */
export function jittered(baseMs: number, ratio = 0.2): number {
  return Math.round(baseMs * (1 - ratio + Math.random() * 2 * ratio));
}
