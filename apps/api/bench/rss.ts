import { readFileSync, writeFileSync } from "node:fs";

const SAMPLE_INTERVAL_MS = 100;

/** A `kB` field of /proc/<pid>/status, in bytes; null once the process is gone. */
function statusField(pid: number, field: "VmHWM" | "VmRSS"): number | null {
  try {
    const match = readFileSync(`/proc/${pid}/status`, "utf8").match(new RegExp(`^${field}:\\s+(\\d+) kB$`, "m"));
    return match ? Number(match[1]) * 1024 : null;
  } catch {
    return null;
  }
}

export type RssMethod = "VmHWM" | "sampled";

export interface PeakRss {
  /** RSS when the scenario started: what the process already held (after warm-up). */
  startBytes: number;
  bytes: number;
  /**
   * `VmHWM`: the kernel's high-water mark, reset with clear_refs before the scenario (exact);
   * `sampled`: clear_refs was refused, so the maximum of VmRSS read every 100 ms (may miss short spikes).
   */
  method: RssMethod;
}

/**
 * Measures one process's peak resident memory over a stretch of time (one scenario). Linux
 * only. Writing 5 to clear_refs resets VmHWM to the current RSS, so the mark read at the end
 * belongs to this scenario alone, not to start-up or an earlier scenario. The 100 ms samples
 * run in both modes; in VmHWM mode they only guard against a kernel that updates the mark
 * lazily.
 */
export class PeakRssProbe {
  private timer: NodeJS.Timeout | undefined;
  private sampledMax = 0;
  private startBytes = 0;
  private method: RssMethod = "sampled";

  constructor(private readonly pid: number) {}

  start(): void {
    try {
      writeFileSync(`/proc/${this.pid}/clear_refs`, "5");
      this.method = "VmHWM";
    } catch {
      this.method = "sampled";
    }
    this.startBytes = statusField(this.pid, "VmRSS") ?? 0;
    this.sampledMax = this.startBytes;
    this.timer = setInterval(() => {
      this.sampledMax = Math.max(this.sampledMax, statusField(this.pid, "VmRSS") ?? 0);
    }, SAMPLE_INTERVAL_MS);
  }

  stop(): PeakRss {
    clearInterval(this.timer);
    const sampled = Math.max(this.sampledMax, statusField(this.pid, "VmRSS") ?? 0);
    if (this.method === "VmHWM") {
      return {
        startBytes: this.startBytes,
        bytes: Math.max(statusField(this.pid, "VmHWM") ?? 0, sampled),
        method: "VmHWM",
      };
    }
    return { startBytes: this.startBytes, bytes: sampled, method: "sampled" };
  }
}
