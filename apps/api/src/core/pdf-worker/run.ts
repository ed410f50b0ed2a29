/**
 * Runs PDF work (core/pdf-worker/tasks.ts) in a worker thread with a heap limit, a cap on decoded
 * streams and a deadline, so that a hostile PDF (compression bomb, pathological object graph)
 * costs that worker its life instead of stalling or killing the process. One fresh worker per
 * task, a few at a time: no heap survives from one customer's document to the next.
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
  const tsxApi = pathToFileURL(createRequire(import.meta.url).resolve("tsx/esm/api").replace(/\.cjs$/, ".mjs")).href;
  const source = new URL("./worker.ts", import.meta.url).href;
  const bootstrap = `import { register } from ${JSON.stringify(tsxApi)}; register(); await import(${JSON.stringify(source)});`;
  return new URL(`data:text/javascript,${encodeURIComponent(bootstrap)}`);
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

export async function runPdfTask<K extends PdfTaskName>(limits: PdfWorkerLimits, task: K, input: PdfTaskInput<K>): Promise<PdfTaskOutput<K>> {
  const release = await slot(limits);
  try {
    return (await runInWorker(limits, { task, input, maxDecodedBytes: (limits.memoryMb / 2) * 1024 * 1024 })) as PdfTaskOutput<K>;
  } finally {
    release();
  }
}

function runInWorker(limits: PdfWorkerLimits, data: PdfWorkerData): Promise<unknown> {
  return new Promise((resolve, reject) => {
    const worker = new Worker(workerEntry(), {
      workerData: data,
      resourceLimits: { maxOldGenerationSizeMb: limits.memoryMb, maxYoungGenerationSizeMb: Math.min(32, limits.memoryMb / 4), stackSizeMb: 4 },
    });
    let settled = false;
    const finish = (outcome: () => void) => {
      if (settled) return;
      settled = true;
      clearTimeout(deadline);
      void worker.terminate();
      outcome();
    };
    const deadline = setTimeout(
      () => finish(() => reject(new PdfLimitError("time", `reading the PDF took longer than ${limits.timeoutMs / 1000} s`))),
      limits.timeoutMs,
    );
    worker.once("message", (reply: PdfWorkerReply) =>
      finish(() =>
        reply.ok
          ? resolve(reply.output)
          : reject(reply.limit ? new PdfLimitError(reply.limit, `reading the PDF needed too much memory: ${reply.message}`) : new PdfTaskError(reply.message)),
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
    worker.once("exit", (code) => finish(() => reject(new PdfLimitError("crash", `the PDF worker stopped (exit code ${code}) without an answer`))));
  });
}
