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
import type { PdfTaskInput, PdfTaskName, PdfTaskOutput, PdfWorkerData, PdfWorkerReply } from "./tasks";

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

/**
 * Bundled, this module lives in dist/server.js (or cli.js) beside dist/pdf-worker.js. From source
 * (vitest, tsx) the worker is worker.ts beside this file: a small ES module registers tsx's loader
 * in the new thread and then imports it (Node 20 does not apply `--import` loaders to a worker's
 * entry file).
 */
function workerEntry(): URL {
  if (!import.meta.url.endsWith(".ts")) return new URL("./pdf-worker.js", import.meta.url);
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

// A few workers at a time: each may use its whole heap limit.
let running = 0;
const waiting: (() => void)[] = [];

async function slot(limits: PdfWorkerLimits): Promise<() => void> {
  if (running >= limits.concurrency) await new Promise<void>((resolve) => waiting.push(resolve));
  running += 1;
  return () => {
    running -= 1;
    waiting.shift()?.();
  };
}

export async function runPdfTask<K extends PdfTaskName>(
  limits: PdfWorkerLimits,
  task: K,
  input: PdfTaskInput<K>,
): Promise<PdfTaskOutput<K>> {
  const release = await slot(limits);
  try {
    return (await runInWorker(limits, {
      task,
      input,
      maxDecodedBytes: (limits.memoryMb / 2) * 1024 * 1024,
    })) as PdfTaskOutput<K>;
  } finally {
    release();
    startSpare(limits);
  }
}

function runInWorker(limits: PdfWorkerLimits, data: PdfWorkerData): Promise<unknown> {
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
    const deadline = setTimeout(
      () =>
        finish(() =>
          reject(new PdfLimitError("time", `reading the PDF took longer than ${limits.timeoutMs / 1000} s`)),
        ),
      limits.timeoutMs,
    );
    worker.once("message", (reply: PdfWorkerReply) =>
      finish(() =>
        reply.ok
          ? resolve(reply.output)
          : reject(
              reply.limit
                ? new PdfLimitError(reply.limit, `reading the PDF needed too much memory: ${reply.message}`)
                : new PdfTaskError(reply.message),
            ),
      ),
    );
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
    // The deadline runs from here: a spare had loaded its code before the document was there.
    worker.postMessage(data);
  });
}
