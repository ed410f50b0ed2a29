import { execFileSync } from "node:child_process";
import { writeFileSync } from "node:fs";
import { availableParallelism, cpus, release, totalmem } from "node:os";
import type { CpuUse } from "./cpu";
import type { LoadResult } from "./load";
import type { BenchOptions } from "./options";
import type { PeakRss } from "./rss";

export type Stack = "clinsign" | "bare";
export type EngineKind = "pglite" | "postgres";

export interface ResultRow {
  /** A ScenarioName, or the label of an extended scenario (bench/scenarios/), printed as is. */
  scenario: string;
  stack: Stack;
  engine: EngineKind;
  load: LoadResult;
  peakRss: PeakRss;
  cpu: CpuUse;
}

export interface RatedRow extends ResultRow {
  /** This row's req/s over the bare row of the same scenario; null when there is no bare row. */
  ratioToBare: number | null;
  /** The bare row ran on another engine for a scenario that queries it, so the ratio mixes stack and database. */
  crossEngine: boolean;
  /** Server CPU time per answered request, in µs: what one request costs, even when the load generator or a neighbour limits req/s. */
  serverCpuMicrosPerRequest: number | null;
}

export interface MachineInfo {
  date: string;
  cpu: string;
  cores: number;
  memoryGiB: number;
  node: string;
  os: string;
  postgres: string | null;
  /** The checkout measured; the working tree may hold uncommitted changes on top. */
  commit: string | null;
}

function gitCommit(cwd: string): string | null {
  try {
    return (
      execFileSync("git", ["rev-parse", "--short", "HEAD"], {
        cwd,
        encoding: "utf8",
        stdio: ["ignore", "pipe", "ignore"],
      }).trim() || null
    );
  } catch {
    return null;
  }
}

export function machineInfo(postgresVersion: string | null, repoDir: string): MachineInfo {
  return {
    date: new Date().toISOString(),
    cpu: cpus()[0]?.model.trim() ?? "unknown",
    cores: availableParallelism(),
    memoryGiB: Math.round((totalmem() / 1024 ** 3) * 10) / 10,
    node: process.version,
    os: `${process.platform} ${release()}`,
    postgres: postgresVersion,
    commit: gitCommit(repoDir),
  };
}

export function rateRows(rows: ResultRow[]): RatedRow[] {
  return rows.map((row) => {
    const bare = rows.find((r) => r.stack === "bare" && r.scenario === row.scenario);
    const ratioToBare =
      bare && bare.load.requestsPerSecond > 0 ? row.load.requestsPerSecond / bare.load.requestsPerSecond : null;
    const crossEngine = !!bare && bare.engine !== row.engine && row.scenario !== "healthz";
    const serverCpuMicrosPerRequest =
      row.load.ok > 0 ? ((row.cpu.server / 100) * row.cpu.seconds * 1e6) / row.load.ok : null;
    return { ...row, ratioToBare, crossEngine, serverCpuMicrosPerRequest };
  });
}

const engineLabel = (engine: EngineKind, machine: MachineInfo) =>
  engine === "pglite" ? "pglite (in-process)" : `postgres ${machine.postgres ?? ""}`.trim();

const stackLabel = (stack: Stack) => (stack === "bare" ? "bare node:http" : "clinsign");

function ratioLabel(row: RatedRow): string {
  if (row.stack === "bare") return "1.00 (base)";
  if (row.ratioToBare === null) return "n/a";
  return `${row.ratioToBare.toFixed(2)}${row.crossEngine ? " (x-engine)" : ""}`;
}

const ms = (value: number) => (Number.isNaN(value) ? "n/a" : value.toFixed(2));
const mib = (bytes: number) => (bytes / 1024 ** 2).toFixed(0);
const cpuLabel = (cpu: CpuUse) =>
  [cpu.server, cpu.loadGenerator, cpu.postgres, cpu.other].map((v) => v.toFixed(0)).join("/");

/** A plain-text table; the same columns as the one in docs/performance.md. */
export function formatTable(rows: RatedRow[], machine: MachineInfo): string {
  const header = [
    "scenario",
    "stack",
    "engine",
    "req/s",
    "p50 ms",
    "p99 ms",
    "RSS start MiB",
    "peak RSS MiB",
    "CPU% srv/gen/pg/other",
    "srv µs/req",
    "vs bare",
    "failed",
  ];
  const body = rows.map((row) => [
    row.scenario === "f4" ? "F4 list templates" : row.scenario === "healthz" ? "/healthz" : row.scenario,
    stackLabel(row.stack),
    engineLabel(row.engine, machine),
    Math.round(row.load.requestsPerSecond).toString(),
    ms(row.load.p50Ms),
    ms(row.load.p99Ms),
    mib(row.peakRss.startBytes),
    `${mib(row.peakRss.bytes)}${row.peakRss.method === "sampled" ? "~" : ""}`,
    cpuLabel(row.cpu),
    row.serverCpuMicrosPerRequest === null ? "n/a" : row.serverCpuMicrosPerRequest.toFixed(0),
    ratioLabel(row),
    row.load.failed.toString(),
  ]);
  const widths = header.map((h, i) => Math.max(h.length, ...body.map((cells) => cells[i]!.length)));
  const numeric = new Set([3, 4, 5, 6, 7, 8, 9, 11]);
  const line = (cells: string[]) =>
    cells
      .map((cell, i) => (numeric.has(i) ? cell.padStart(widths[i]!) : cell.padEnd(widths[i]!)))
      .join("  ")
      .trimEnd();
  return [line(header), widths.map((w) => "-".repeat(w)).join("  "), ...body.map(line)].join("\n");
}

export function formatMachine(machine: MachineInfo): string {
  return [
    `date      ${machine.date}`,
    `machine   ${machine.cores} cores (${machine.cpu}), ${machine.memoryGiB} GiB RAM, ${machine.os}`,
    `node      ${machine.node}`,
    `postgres  ${machine.postgres ?? "not used"}`,
    `commit    ${machine.commit ?? "unknown"}`,
  ].join("\n");
}

export function writeJsonReport(
  file: string,
  report: { machine: MachineInfo; options: BenchOptions; rows: RatedRow[]; notes: string[] },
): void {
  // The database URL may carry a password; the report only says which kind of run it was.
  const { databaseUrl, ...options } = report.options;
  const safe = { ...report, options: { ...options, engine: databaseUrl ? "postgres (DATABASE_URL)" : "pglite" } };
  writeFileSync(file, JSON.stringify(safe, null, 2) + "\n");
}
