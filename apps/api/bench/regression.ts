/**
 * The regression table: each scenario's ratio to its baseline in this run beside the last
 * recorded one (bench/recorded.json, checked in, updated with `--record` after a quiet run worth
 * keeping). Ratios, not req/s or ms: a ratio is measured against a baseline of the same run, so
 * it survives a slower or busier machine far better than an absolute figure does.
 */
import { readFileSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import type { CompletionRow } from "./scenarios/completion";
import type { RatedRow } from "./report";

export const RECORDED_FILE = join(dirname(fileURLToPath(import.meta.url)), "recorded.json");

/** One scenario's ratio in this run. */
export interface ScenarioRatio {
  /** Stable key in recorded.json, e.g. "F7 save draft" or "completion 1 page". */
  key: string;
  ratio: number;
  /** req/s ratios are better higher; time ratios (the seal against load+save) better lower. */
  better: "higher" | "lower";
  /** A row the harness flagged (foreign load, failed requests): shown, never recorded. */
  disturbed: boolean;
}

export interface RecordedRatio {
  ratio: number;
  better: "higher" | "lower";
  date: string;
  commit: string | null;
  /** Where the figure comes from (a run in docs/performance.md), or what to keep in mind. */
  note?: string;
}

export type Recorded = Record<string, RecordedRatio>;

/** As bench/run.ts flags a row: more than a fifth of a core used by other processes. */
const OTHER_CPU_LIMIT = 20;

/** A change smaller than this share of the recorded ratio is within run-to-run noise on 2 shared cores. */
const NOISE = 0.1;

export function readRecorded(file = RECORDED_FILE): Recorded {
  try {
    return JSON.parse(readFileSync(file, "utf8")) as Recorded;
  } catch {
    return {};
  }
}

/** The HTTP rows with a same-engine bare row (req/s ratio), and the completion rows (time ratio). */
export function ratiosOf(rows: RatedRow[], completion: CompletionRow[] = []): ScenarioRatio[] {
  const http = rows
    .filter((row) => row.stack === "clinsign" && row.ratioToBare !== null && !row.crossEngine)
    .map((row) => ({
      key: row.scenario === "f4" ? "F4 list templates" : row.scenario === "healthz" ? "/healthz" : row.scenario,
      ratio: row.ratioToBare!,
      better: "higher" as const,
      disturbed: rows.some((r) => r.scenario === row.scenario && (r.cpu.other > OTHER_CPU_LIMIT || r.load.failed > 0)),
    }));
  const seal = completion.map((row) => ({
    key: `completion ${row.pages} page${row.pages === 1 ? "" : "s"} (${row.level})`,
    ratio: row.ratio,
    better: "lower" as const,
    disturbed: false,
  }));
  return [...http, ...seal];
}

function verdict(now: ScenarioRatio, recorded: RecordedRatio): string {
  const change = now.ratio / recorded.ratio - 1;
  if (Math.abs(change) < NOISE) return "within noise";
  const improved = now.better === "higher" ? change > 0 : change < 0;
  return improved ? "better" : "WORSE";
}

export function formatRegressionTable(ratios: ScenarioRatio[], recorded: Recorded): string {
  const header = ["scenario", "recorded", "(date, commit)", "this run", "change", "verdict"];
  const body = ratios.map((now) => {
    const before = recorded[now.key];
    const flag = now.disturbed ? " (disturbed)" : "";
    if (!before) return [now.key, "-", "", `${now.ratio.toFixed(2)}${flag}`, "", "no record"];
    const change = now.ratio / before.ratio - 1;
    return [
      now.key,
      before.ratio.toFixed(2),
      `(${before.date.slice(0, 10)}, ${before.commit ?? "?"})`,
      `${now.ratio.toFixed(2)}${flag}`,
      `${change >= 0 ? "+" : ""}${(change * 100).toFixed(0)} %`,
      verdict(now, before),
    ];
  });
  const widths = header.map((h, i) => Math.max(h.length, ...body.map((cells) => cells[i]!.length)));
  const line = (cells: string[]) =>
    cells
      .map((cell, i) => (i === 1 || i === 3 || i === 4 ? cell.padStart(widths[i]!) : cell.padEnd(widths[i]!)))
      .join("  ")
      .trimEnd();
  return [
    `regression: ratio to the baseline of the same run, against the last recorded one (bench/recorded.json); req/s ratios are better higher, the seal's time ratios lower; within ±${NOISE * 100} % is noise`,
    line(header),
    widths.map((w) => "-".repeat(w)).join("  "),
    ...body.map(line),
  ].join("\n");
}

/** `--record`: this run's undisturbed ratios replace the recorded ones of the same scenarios. */
export function recordRatios(ratios: ScenarioRatio[], commit: string | null, file = RECORDED_FILE): string[] {
  const recorded = readRecorded(file);
  const kept: string[] = [];
  for (const now of ratios) {
    if (now.disturbed) continue;
    recorded[now.key] = {
      ratio: Math.round(now.ratio * 100) / 100,
      better: now.better,
      date: new Date().toISOString(),
      commit,
    };
    kept.push(now.key);
  }
  writeFileSync(file, JSON.stringify(recorded, null, 2) + "\n");
  return kept;
}
