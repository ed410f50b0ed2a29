import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { eq, jobs } from "@clinsign/db";
import { claimDueJobs, enqueueJob } from "../core/jobs/queue";
import { startTestApi, type TestApi } from "../testing/harness";
import { JobRunner } from "./runner";

let api: TestApi;
beforeAll(async () => {
  api = await startTestApi();
});
afterAll(() => api?.close());

describe("durable jobs", () => {
  it("retries a failing job until it succeeds, and records the last error", async () => {
    const { orgId } = await api.createOrg();
    const job = await enqueueJob(api.services.db, {
      organizationId: orgId,
      kind: "flaky",
      payload: { n: 1 },
      maxAttempts: 5,
    });
    let calls = 0;
    const runner = new JobRunner(api.services, {
      flaky: {
        async run() {
          calls += 1;
          if (calls < 3) throw new Error(`boom ${calls}`);
        },
        retryDelayMs: () => 0,
      },
    });
    await runner.runDue();
    const [afterFirst] = await api.services.db.select().from(jobs).where(eq(jobs.id, job.id));
    expect(afterFirst).toMatchObject({ status: "pending", attempts: 1, lastError: "boom 1" });
    await runner.runDue();
    await runner.runDue();
    const [done] = await api.services.db.select().from(jobs).where(eq(jobs.id, job.id));
    expect(done).toMatchObject({ status: "done", attempts: 3, lastError: null });
    expect(calls).toBe(3);
  });

  it("gives up after maxAttempts and keeps the job as failed", async () => {
    const job = await enqueueJob(api.services.db, {
      organizationId: null,
      kind: "doomed",
      payload: {},
      maxAttempts: 2,
    });
    const runner = new JobRunner(api.services, {
      doomed: { run: async () => Promise.reject(new Error("always")), retryDelayMs: () => 0 },
    });
    await runner.runDue();
    await runner.runDue();
    await runner.runDue();
    const [row] = await api.services.db.select().from(jobs).where(eq(jobs.id, job.id));
    expect(row).toMatchObject({ status: "failed", attempts: 2, lastError: "always" });
  });

  it("never hands one job to two claimers, and takes back a job whose lease ran out", async () => {
    const job = await enqueueJob(api.services.db, { organizationId: null, kind: "lease", payload: {}, maxAttempts: 3 });
    const [first, second] = await Promise.all([
      claimDueJobs(api.services.db, ["lease"], 10, 60),
      claimDueJobs(api.services.db, ["lease"], 10, 60),
    ]);
    expect(first!.length + second!.length).toBe(1);
    // A worker that died: expire its lease and the job is claimable again.
    await api.services.db
      .update(jobs)
      .set({ lockedUntil: new Date(Date.now() - 1000) })
      .where(eq(jobs.id, job.id));
    const again = await claimDueJobs(api.services.db, ["lease"], 10, 60);
    expect(again.map((j) => j.id)).toEqual([job.id]);
    expect(again[0]!.attempts).toBe(2);
  });

  it("ends as failed, instead of being taken again, a job whose worker died during its last attempt", async () => {
    const job = await enqueueJob(api.services.db, {
      organizationId: null,
      kind: "killer",
      payload: {},
      maxAttempts: 2,
    });
    for (const attempt of [1, 2]) {
      // The claimer takes it, then dies (e.g. the document it works on kills the process).
      const [claimed] = await claimDueJobs(api.services.db, ["killer"], 10, 60);
      expect(claimed).toMatchObject({ id: job.id, attempts: attempt });
      await api.services.db
        .update(jobs)
        .set({ lockedUntil: new Date(Date.now() - 1000) })
        .where(eq(jobs.id, job.id));
    }
    expect(await claimDueJobs(api.services.db, ["killer"], 10, 60)).toEqual([]);
    const [row] = await api.services.db.select().from(jobs).where(eq(jobs.id, job.id));
    expect(row).toMatchObject({
      status: "failed",
      attempts: 2,
      lockedUntil: null,
      lastError: expect.stringContaining("worker stopped"),
    });
  });

  it("tells the handler that it gave up, after a failed last attempt and after a worker died in its last attempt", async () => {
    const gaveUp: { id: string; error: string }[] = [];
    const handler = {
      async run() {
        throw new Error("always");
      },
      retryDelayMs: () => 0,
      async gaveUp(job: { id: string }, _services: unknown, error: string) {
        gaveUp.push({ id: job.id, error });
      },
    };
    const failing = await enqueueJob(api.services.db, {
      organizationId: null,
      kind: "give-up",
      payload: {},
      maxAttempts: 1,
    });
    await new JobRunner(api.services, { "give-up": handler }).runDue();
    expect(gaveUp).toEqual([{ id: failing.id, error: "always" }]);

    const abandoned = await enqueueJob(api.services.db, {
      organizationId: null,
      kind: "give-up-died",
      payload: {},
      maxAttempts: 1,
    });
    await claimDueJobs(api.services.db, ["give-up-died"], 10, 60);
    await api.services.db
      .update(jobs)
      .set({ lockedUntil: new Date(Date.now() - 1000) })
      .where(eq(jobs.id, abandoned.id));
    const runner = new JobRunner(api.services, { "give-up-died": handler });
    await runner.runDue();
    await runner.runDue();
    expect(gaveUp.slice(1)).toEqual([{ id: abandoned.id, error: expect.stringContaining("worker stopped") }]);
  });
});
