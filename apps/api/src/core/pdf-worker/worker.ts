/**
 * Entry point of the PDF worker thread (bundled as dist/pdf-worker.js; run from source with tsx).
 * Loads its code, then waits for one task, runs it and answers once; run.ts starts it with memory
 * limits (possibly before a document is there, so that loading pdf-lib is off the request's
 * path) and ends it on time or after the answer. One task per thread: no document's heap is ever
 * seen by the next one.
 */
import { createRequire } from "node:module";
import { parentPort, workerData } from "node:worker_threads";
import { pdfTasks, warmUp, type PdfWorkerData, type PdfWorkerReply, type PdfWorkerStarted } from "./tasks";

/**
 * A compression bomb inflates into ArrayBuffers, which the worker's heap limit does not count:
 * cap how far pdf-lib's decode buffers (one class for every filter) may grow. pdf-lib exposes no
 * option for it, so its DecodeStream is patched, in this thread only.
 */
function capDecodedStreams(maxBytes: number): void {
  const require = createRequire(import.meta.url);
  const DecodeStream = (
    require("pdf-lib/cjs/core/streams/DecodeStream.js") as {
      default: { prototype: { ensureBuffer(requested: number): Uint8Array } };
    }
  ).default;
  const ensureBuffer = DecodeStream.prototype.ensureBuffer;
  DecodeStream.prototype.ensureBuffer = function (requested: number) {
    if (requested > maxBytes) {
      // pdf-lib skips objects it cannot parse, so the error alone would be swallowed: remember it.
      decodeCapExceeded = true;
      throw new Error(`a stream of the PDF decodes to more than ${maxBytes} bytes`);
    }
    return ensureBuffer.call(this, requested);
  };
}
let decodeCapExceeded = false;

async function main(data: PdfWorkerData): Promise<PdfWorkerReply> {
  try {
    capDecodedStreams(data.maxDecodedBytes);
    const task = pdfTasks[data.task] as (input: unknown) => Promise<unknown>;
    const output = await task(data.input);
    if (decodeCapExceeded)
      return {
        ok: false,
        limit: "memory",
        message: `a stream of the PDF decodes to more than ${data.maxDecodedBytes} bytes`,
      };
    return { ok: true, output };
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    return decodeCapExceeded ? { ok: false, limit: "memory", message } : { ok: false, message };
  }
}

// A spare (started before its task) warms up while nobody waits; a task that waits does not.
// Listening first: a task posted during the warm-up is queued until it ends.
const warm = (workerData as { warmUp?: boolean } | undefined)?.warmUp ? warmUp().catch(() => {}) : Promise.resolve();
parentPort!.once("message", (data: PdfWorkerData) => {
  void warm
    .then(() => {
      // The task's deadline runs from here: loading code and warming up are not the document's doing.
      parentPort!.postMessage({ started: true } satisfies PdfWorkerStarted);
      return main(data);
    })
    .then((reply) => parentPort!.postMessage(reply));
});
