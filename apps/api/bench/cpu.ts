import { readdirSync, readFileSync } from "node:fs";
import { BENCH_DATABASE_PREFIX } from "./database";

/** Busy and total jiffies of the whole machine, from the first line of /proc/stat. */
function machineJiffies(): { busy: number; total: number } {
  const fields = readFileSync("/proc/stat", "utf8").split("\n", 1)[0]!.trim().split(/\s+/).slice(1).map(Number);
  const [user = 0, nice = 0, system = 0, idle = 0, iowait = 0, irq = 0, softirq = 0, steal = 0] = fields;
  return {
    busy: user + nice + system + irq + softirq + steal,
    total: user + nice + system + idle + iowait + irq + softirq + steal,
  };
}

/** utime + stime of a process (all its threads), or 0 once it is gone. */
function processJiffies(pid: number): number {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    // The command name may contain spaces and parentheses; the numeric fields follow the last ")".
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    return Number(fields[11]) + Number(fields[12]);
  } catch {
    return 0;
  }
}

/**
 * The PostgreSQL backends serving a bench database. A backend's process title names its
 * database ("postgres: 15/main: postgres clinsign_bench_1a2b3c4d 127.0.0.1(5432) idle"), so
 * other people's tests on the same server land in `other`, not in our figures. Shared server
 * processes (WAL writer, checkpointer) count as `other` too; F4 reads and barely writes.
 */
function benchBackendPids(): number[] {
  const pids: number[] = [];
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      if (readFileSync(`/proc/${entry}/comm`, "utf8").trim() !== "postgres") continue;
      if (readFileSync(`/proc/${entry}/cmdline`, "utf8").includes(` ${BENCH_DATABASE_PREFIX}`))
        pids.push(Number(entry));
    } catch {
      // Exited while we looked.
    }
  }
  return pids;
}

export interface CpuUse {
  /** The server under test, all threads (PGlite runs on its main thread). */
  server: number;
  /** This process: autocannon, the load generator. */
  loadGenerator: number;
  /** PostgreSQL backends connected to a bench database (zero on PGlite and for /healthz). */
  postgres: number;
  /** Everything else on the machine: other people's builds and tests, and time the hypervisor stole. */
  other: number;
  /** Wall-clock seconds the percentages cover. */
  seconds: number;
}

const cpuCount = () =>
  readFileSync("/proc/stat", "utf8")
    .split("\n")
    .filter((line) => /^cpu\d+ /.test(line)).length;

/**
 * Where the CPU went during one scenario, in percent of one core (the machine has
 * `cpuCount() * 100`). A Node server near 100 % is CPU-bound on its one main thread; a large
 * `other` means the machine was shared (builds, tests) and the row is not comparable with a
 * quiet run, which the report should say rather than hide.
 */
export class CpuProbe {
  private startMachine = { busy: 0, total: 0 };
  private startServer = 0;
  private startSelf = 0;
  private startPostgres = new Map<number, number>();
  private startTime = 0;

  constructor(private readonly serverPid: number) {}

  start(): void {
    this.startPostgres = new Map(benchBackendPids().map((pid) => [pid, processJiffies(pid)]));
    this.startServer = processJiffies(this.serverPid);
    this.startSelf = processJiffies(process.pid);
    this.startMachine = machineJiffies();
    this.startTime = performance.now();
  }

  stop(): CpuUse {
    const machine = machineJiffies();
    const server = processJiffies(this.serverPid) - this.startServer;
    const self = processJiffies(process.pid) - this.startSelf;
    let postgres = 0;
    // Backends started during the run count from zero; ones that ended are lost (and land in `other`).
    for (const pid of new Set([...this.startPostgres.keys(), ...benchBackendPids()])) {
      postgres += Math.max(0, processJiffies(pid) - (this.startPostgres.get(pid) ?? 0));
    }
    const busy = machine.busy - this.startMachine.busy;
    const perCore = (machine.total - this.startMachine.total) / Math.max(1, cpuCount());
    const percent = (jiffies: number) => (perCore > 0 ? Math.max(0, (jiffies / perCore) * 100) : 0);
    return {
      server: percent(server),
      loadGenerator: percent(self),
      postgres: percent(postgres),
      other: percent(busy - server - self - postgres),
      seconds: (performance.now() - this.startTime) / 1000,
    };
  }
}
