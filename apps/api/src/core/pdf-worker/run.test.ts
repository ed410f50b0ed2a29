import { describe, expect, it } from "vitest";
import { makePdf } from "../../testing/signature-fixtures";
import { runPdfTask, spareWorkerId } from "./run";

const limits = { memoryMb: 128, timeoutMs: 20_000, concurrency: 2 };

describe("runPdfTask", () => {
  it("runs each document in a worker of its own, started ahead as a spare that has seen no document", async () => {
    const bytes = await makePdf();
    expect(spareWorkerId()).toBeNull();
    expect(await runPdfTask(limits, "readPages", { bytes })).toMatchObject({ ok: true });
    const first = spareWorkerId();
    expect(first).not.toBeNull();

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
});
