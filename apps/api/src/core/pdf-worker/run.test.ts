import { describe, expect, it } from "vitest";
import { makeCertificate, makeP12, withIterationCounts } from "../../testing/certificates";
import { makePdf } from "../../testing/signature-fixtures";
import { PdfQueueFullError, pdfLaneCounts, runPdfTask, spareWorkerId } from "./run";

const limits = { memoryMb: 128, timeoutMs: 20_000, concurrency: 2 };

describe("runPdfTask", () => {
  it("runs each document in a worker of its own, started ahead as a spare that has seen no document", async () => {
    const bytes = await makePdf();
    // Test files share this process's modules: a spare another file's task left may be there.
    const before = spareWorkerId();
    expect(await runPdfTask(limits, "readPages", { bytes })).toMatchObject({ ok: true });
    const first = spareWorkerId();
    expect(first).not.toBeNull();
    expect(first).not.toBe(before);

    // The next document takes that spare, and a new one is started for the one after.
    expect(await runPdfTask(limits, "readPages", { bytes })).toMatchObject({ ok: true });
    const second = spareWorkerId();
    expect(second).not.toBeNull();
    expect(second).not.toBe(first);

    // Other limits (another configuration in the same process) never run in that spare.
    const other = { ...limits, memoryMb: 96 };
    expect(await runPdfTask(other, "readPages", { bytes })).toMatchObject({ ok: true });
    const third = spareWorkerId();
    expect([first, second]).not.toContain(third);
  });

  it("reads the next document normally after one that could not be read", async () => {
    const bytes = await makePdf();
    await expect(runPdfTask(limits, "readPages", { bytes: new Uint8Array([1, 2, 3]) })).resolves.toMatchObject({
      ok: false,
    });
    expect(await runPdfTask(limits, "readPages", { bytes })).toMatchObject({ ok: true });
  });

  it("serves the documents lane first, runs the verify lane one at a time and refuses past its queue", async () => {
    const bytes = await makePdf();
    const one = { ...limits, concurrency: 1 };
    // A task that keeps its worker busy for seconds: forge deriving a MAC key with 1.9 million iterations.
    const slow = Buffer.from(
      withIterationCounts(makeP12("pw", [makeCertificate({ commonName: "Slow" })]), { mac: 1_900_000 }),
      "base64",
    );
    const verifyLane = { lane: "verify", concurrency: 1, queueLength: 1, timeoutMs: 3_000 } as const;
    const order: string[] = [];
    const done = (name: string) => () => void order.push(name);
    const first = runPdfTask(one, "openP12", { p12: slow, password: "x" }, verifyLane).then(
      done("verify 1"),
      done("verify 1"),
    );
    const second = runPdfTask(one, "readPages", { bytes }, verifyLane).then(done("verify 2"));
    expect(pdfLaneCounts().verify).toEqual({ running: 1, waiting: 1 });
    await expect(runPdfTask(one, "readPages", { bytes }, verifyLane)).rejects.toBeInstanceOf(PdfQueueFullError);
    const staff = runPdfTask(one, "readPages", { bytes }).then(done("documents"));
    await Promise.all([first, second, staff]);
    // The staff task came after the waiting check and still ran before it.
    expect(order).toEqual(["verify 1", "documents", "verify 2"]);
    expect(pdfLaneCounts().verify).toEqual({ running: 0, waiting: 0 });
  }, 60_000);
});
