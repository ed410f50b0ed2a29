/**
 * Runs PDF work (core/pdf-worker/tasks.ts) in a worker thread with a heap limit, a cap on decoded
 * streams and a deadline, so that a hostile PDF (compression bomb, pathological object graph)
 * costs that worker its life instead of stalling or killing the process. One fresh worker per
 * task, a few at a time: no heap survives from one customer's document to the next.
 *
 * Starting a worker (loading pdf-lib and @signpdf into a new isolate) costs far more than sealing
 * a document (docs/performance.md, "Completion pipeline"), so after each task the next worker is
 * started ahead: a spare that has loaded its code and sealed a blank page of our own (tasks.ts,
 * warmUp) but seen no customer's document, taken by the next task and ended when nobody needs it
 * for SPARE_IDLE_MS.
 */
import { createRequire } from "node:module";
import { pathToFileURL } from "node:url";
import { Worker } from "node:worker_threads";
import type { Config } from "../../env";
import { pdfWorkerRefusals, pdfWorkerSeconds, secondsSince } from "../metrics/metrics";
import { inSpan } from "../tracing/tracing";
import type {
  PdfTaskInput,
  PdfTaskName,
  PdfTaskOutput,
  PdfWorkerData,
  PdfWorkerReply,
  PdfWorkerStarted,
} from "./tasks";

/** The document needed more memory or time than the limits allow, or crashed the worker. */
export class PdfLimitError extends Error {
  constructor(
    readonly limit: "memory" | "time" | "crash",
    message: string,
  ) {
    super(message);
    this.name = "PdfLimitError";
  }
}

/** The task itself failed (an exception inside the worker, e.g. a stream over the decode cap). */
export class PdfTaskError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "PdfTaskError";
  }
}

export type PdfWorkerLimits = Config["pdfWorker"];

/** Names a bundled worker for code run from source: the API's tests set it (testing/global-setup.ts). */
export const PDF_WORKER_BUNDLE_VARIABLE = "CLINSIGN_PDF_WORKER_BUNDLE";

/**
 * Bundled, this module lives in dist/server.js (or cli.js) beside dist/pdf-worker.js. From source
 * (vitest, tsx) the worker is worker.ts beside this file: a small ES module registers tsx's loader
 * in the new thread and then imports it (Node 20 does not apply `--import` loaders to a worker's
 * entry file), unless a bundled worker is named.
 */
function workerEntry(): URL {
  if (!import.meta.url.endsWith(".ts")) return new URL("./pdf-worker.js", import.meta.url);
  // Not configuration (src/env.ts): the test setup's way of naming the bundle it built, from source only.
  // eslint-disable-next-line no-restricted-properties
  const bundled = process.env[PDF_WORKER_BUNDLE_VARIABLE];
  if (bundled) return pathToFileURL(bundled);
  // require.resolve finds the CommonJS build of tsx/esm/api; the ES module sits beside it.
  const tsxApi = pathToFileURL(
    createRequire(import.meta.url)
      .resolve("tsx/esm/api")
      .replace(/\.cjs$/, ".mjs"),
  ).href;
  const source = new URL("./worker.ts", import.meta.url).href;
  const bootstrap = `import { register } from ${JSON.stringify(tsxApi)}; register(); await import(${JSON.stringify(source)});`;
  return new URL(`data:text/javascript,${encodeURIComponent(bootstrap)}`);
}

/** How long a started spare worker waits for a task before it is ended (its memory given back). */
export const SPARE_IDLE_MS = 60_000;

function startWorker(limits: PdfWorkerLimits, spare = false): Worker {
  return new Worker(workerEntry(), {
    workerData: { warmUp: spare },
    resourceLimits: {
      maxOldGenerationSizeMb: limits.memoryMb,
      maxYoungGenerationSizeMb: Math.min(32, limits.memoryMb / 4),
      stackSizeMb: 4,
    },
  });
}

interface Spare {
  worker: Worker;
  /** The limits it was started with: a task with other limits (another configuration) starts its own. */
  limits: string;
  idle: NodeJS.Timeout;
  forget: () => void;
}
let spare: Spare | null = null;

function dropSpare(): Worker | null {
  if (!spare) return null;
  const { worker, idle, forget } = spare;
  spare = null;
  clearTimeout(idle);
  worker.off("error", forget).off("exit", forget);
  return worker;
}

/** Starts the next task's worker now; it neither keeps the process alive nor fails it while idle. */
function startSpare(limits: PdfWorkerLimits): void {
  const key = JSON.stringify(limits);
  if (spare?.limits === key) return;
  void dropSpare()?.terminate();
  const worker = startWorker(limits, true);
  worker.unref();
  // A spare that dies before it is used is just forgotten; the next task starts its own.
  const forget = () => {
    if (spare?.worker === worker) dropSpare();
  };
  worker.once("error", forget);
  worker.once("exit", forget);
  const idle = setTimeout(() => {
    forget();
    void worker.terminate();
  }, SPARE_IDLE_MS);
  idle.unref();
  spare = { worker, limits: key, idle, forget };
}

/** The thread id of the started spare worker, if there is one (for tests). */
export function spareWorkerId(): number | null {
  return spare?.worker.threadId ?? null;
}

/** The spare if it was started with these limits, else a new worker. */
function takeWorker(limits: PdfWorkerLimits): Worker {
  if (spare && spare.limits === JSON.stringify(limits)) {
    const worker = dropSpare()!;
    worker.ref();
    return worker;
  }
  return startWorker(limits);
}

/**
 * The queues tasks wait in, first served first: the service's own document work (A6, sealing,
 * page images, submission PDFs), then an admin's seal upload, then anonymous `/verify` checks.
 * Every lane's tasks count against `limits.concurrency`; a lane other than `documents` also runs
 * at most its own `concurrency` at once and may turn callers away beyond `queueLength` waiting
 * (PdfQueueFullError), so that anonymous callers can neither hold the workers nor queue without end.
 */
export type PdfLane = "documents" | "sealUpload" | "verify";
const LANES_BY_PRIORITY: readonly PdfLane[] = ["documents", "sealUpload", "verify"];

/** Where a task waits and its own deadline, for tasks outside the documents lane. */
export interface PdfLaneOptions {
  lane: Exclude<PdfLane, "documents">;
  /** How many of this lane's tasks run at once. */
  concurrency: number;
  /** How many of this lane's tasks may wait; one more is refused at once. Unset: no bound (staff callers). */
  queueLength?: number;
  /** This lane's deadline, instead of `limits.timeoutMs`. */
  timeoutMs: number;
}

/** The lane's queue is full: the caller may try again later. */
export class PdfQueueFullError extends Error {
  constructor(readonly lane: PdfLane) {
    super(`too many ${lane} tasks are waiting`);
    this.name = "PdfQueueFullError";
  }
}

// A few workers at a time: each may use its whole heap limit.
let running = 0;
const runningIn: Record<PdfLane, number> = { documents: 0, sealUpload: 0, verify: 0 };
interface Waiter {
  lane: PdfLane;
  /** How many of its lane may run at once. */
  laneConcurrency: number;
  start: () => void;
}
const waiting: Waiter[] = [];

/** Starts waiting tasks while workers are free: the first waiter of the first lane that may run. */
function startWaiting(limits: PdfWorkerLimits): void {
  while (running < limits.concurrency) {
    let next: Waiter | undefined;
    for (const lane of LANES_BY_PRIORITY) {
      next = waiting.find((waiter) => waiter.lane === lane && runningIn[lane] < waiter.laneConcurrency);
      if (next) break;
    }
    if (!next) return;
    waiting.splice(waiting.indexOf(next), 1);
    running += 1;
    runningIn[next.lane] += 1;
    next.start();
  }
}

async function slot(limits: PdfWorkerLimits, options: PdfLaneOptions | undefined): Promise<() => void> {
  const lane = options?.lane ?? "documents";
  let started = false;
  const turn = new Promise<void>((resolve) => {
    waiting.push({
      lane,
      laneConcurrency: options?.concurrency ?? limits.concurrency,
      start: () => {
        started = true;
        resolve();
      },
    });
  });
  startWaiting(limits);
  const queueLength = options?.queueLength ?? Infinity;
  if (!started && waiting.filter((waiter) => waiter.lane === lane).length > queueLength) {
    waiting.splice(
      waiting.findLastIndex((waiter) => waiter.lane === lane),
      1,
    );
    pdfWorkerRefusals.inc({ lane });
    throw new PdfQueueFullError(lane);
  }
  await turn;
  return () => {
    running -= 1;
    runningIn[lane] -= 1;
    startWaiting(limits);
  };
}

/** How many tasks run and wait in each lane (for tests and the operations view). */
export function pdfLaneCounts(): Record<PdfLane, { running: number; waiting: number }> {
  const counts = {} as Record<PdfLane, { running: number; waiting: number }>;
  for (const lane of LANES_BY_PRIORITY)
    counts[lane] = { running: runningIn[lane], waiting: waiting.filter((w) => w.lane === lane).length };
  return counts;
}

/**
 * Runs `task` in a fresh worker under the limits: in the documents lane, or in `options.lane`
 * with that lane's deadline. Throws PdfLimitError (memory, time, crash), PdfTaskError (the task
 * failed) or PdfQueueFullError (the lane's queue is full).
 */
export async function runPdfTask<K extends PdfTaskName>(
  limits: PdfWorkerLimits,
  task: K,
  input: PdfTaskInput<K>,
  options?: PdfLaneOptions,
): Promise<PdfTaskOutput<K>> {
  return inSpan(`pdf ${task}`, { "clinsign.pdf.task": task, "clinsign.pdf.lane": options?.lane ?? "documents" }, () =>
    runInLane(limits, task, input, options),
  );
}

async function runInLane<K extends PdfTaskName>(
  limits: PdfWorkerLimits,
  task: K,
  input: PdfTaskInput<K>,
  options?: PdfLaneOptions,
): Promise<PdfTaskOutput<K>> {
  const release = await slot(limits, options);
  const started = process.hrtime.bigint();
  let outcome = "done";
  try {
    return (await runInWorker(limits, options?.timeoutMs ?? limits.timeoutMs, {
      task,
      input,
      maxDecodedBytes: (limits.memoryMb / 2) * 1024 * 1024,
    })) as PdfTaskOutput<K>;
  } catch (error) {
    outcome = error instanceof PdfLimitError ? `limit_${error.limit}` : "failed";
    throw error;
  } finally {
    pdfWorkerSeconds.observe({ task, outcome }, secondsSince(started));
    release();
    startSpare(limits);
  }
}

function runInWorker(limits: PdfWorkerLimits, timeoutMs: number, data: PdfWorkerData): Promise<unknown> {
  return new Promise((resolve, reject) => {
    const worker = takeWorker(limits);
    let settled = false;
    const finish = (outcome: () => void) => {
      if (settled) return;
      settled = true;
      clearTimeout(deadline);
      void worker.terminate();
      outcome();
    };
    const overrun = (ms: number, what: string) =>
      setTimeout(() => finish(() => reject(new PdfLimitError("time", `${what} took longer than ${ms / 1000} s`))), ms);
    // Loading the worker's code has the general deadline; the task its own, from when it begins.
    let deadline = overrun(limits.timeoutMs, "starting the PDF worker");
    worker.on("message", (message: PdfWorkerReply | PdfWorkerStarted) => {
      if ("started" in message) {
        clearTimeout(deadline);
        deadline = overrun(timeoutMs, `the ${data.task} task`);
        return;
      }
      const reply = message;
      finish(() =>
        reply.ok
          ? resolve(reply.output)
          : reject(
              reply.limit
                ? new PdfLimitError(reply.limit, `reading the PDF needed too much memory: ${reply.message}`)
                : new PdfTaskError(reply.message),
            ),
      );
    });
    worker.once("error", (error: Error & { code?: string }) =>
      finish(() =>
        reject(
          error.code === "ERR_WORKER_OUT_OF_MEMORY"
            ? new PdfLimitError("memory", `reading the PDF needed more than ${limits.memoryMb} MB of memory`)
            : new PdfLimitError("crash", `reading the PDF failed: ${error.message}`),
        ),
      ),
    );
    worker.once("exit", (code) =>
      finish(() => reject(new PdfLimitError("crash", `the PDF worker stopped (exit code ${code}) without an answer`))),
    );
    worker.postMessage(data);
  });
}
