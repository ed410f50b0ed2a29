/**
 * Sums the self time of a V8 CPU profile (`node --cpu-prof`, or BENCH_CPU_PROF=<dir> for the
 * extended scenarios' API) per function and per module, so profiles compare as tables.
 *
 *   npx tsx bench/profile-summary.ts <file.cpuprofile> [--top 25] [--skip-seconds 0]
 *
 * Frames of the API's bundle (dist/*.js) are mapped back to their source files through the
 * bundle's source map: the copy the bench keeps beside the profile (the tree's dist/ is rebuilt by
 * every bench run), else the one in dist/. Third-party frames are named by their package; `(idle)`
 * is left out of the total, so percentages are of the time the process was busy. The profiler
 * samples wall time: a thread preempted inside a syscall (a loopback `writeBuffer` that wakes
 * PostgreSQL on a busy machine) is counted there, so compare the JavaScript rows, and CPU per
 * request from the bench's table.
 */
import { readFileSync } from "node:fs";
import { SourceMap } from "node:module";
import { basename, dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number; columnNumber: number };
}

interface CpuProfile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
}

const sourceMaps = new Map<string, SourceMap | null>();

let profileDir = ".";

/** The bundle's source map, read once per file; null when there is none. */
function sourceMapOf(url: string): SourceMap | null {
  if (!sourceMaps.has(url)) {
    const file = fileURLToPath(url);
    let map: SourceMap | null = null;
    for (const candidate of [join(profileDir, `${basename(file)}.map`), `${file}.map`]) {
      try {
        map = new SourceMap(JSON.parse(readFileSync(candidate, "utf8")));
        break;
      } catch {
        // Not there: the next candidate.
      }
    }
    sourceMaps.set(url, map);
  }
  return sourceMaps.get(url)!;
}

/** A package name for node_modules frames, a source path for our bundle's, the frame's own label otherwise. */
function moduleOf(frame: ProfileNode["callFrame"]): { module: string; line: number } {
  const { url, lineNumber, columnNumber, functionName } = frame;
  if (!url) return { module: functionName || "(anonymous native)", line: 0 };
  const inPackage = url.lastIndexOf("/node_modules/");
  if (inPackage >= 0) {
    const parts = url.slice(inPackage + "/node_modules/".length).split("/");
    return { module: parts[0]!.startsWith("@") ? `${parts[0]}/${parts[1]}` : parts[0]!, line: lineNumber + 1 };
  }
  if (url.startsWith("node:")) return { module: url.replace(/^node:internal\//, "node:"), line: lineNumber + 1 };
  const map = url.startsWith("file:") && url.endsWith(".js") ? sourceMapOf(url) : null;
  const entry = map?.findEntry(lineNumber, columnNumber) as
    { originalSource?: string; originalLine?: number } | undefined;
  if (entry?.originalSource) {
    const source = entry.originalSource.replace(/^.*?\/(apps|packages)\//, "$1/");
    const inMappedPackage = source.lastIndexOf("node_modules/");
    const module = inMappedPackage >= 0 ? source.slice(inMappedPackage + "node_modules/".length) : source;
    return { module, line: (entry.originalLine ?? 0) + 1 };
  }
  return { module: url.replace(/^file:\/\/.*?\/(apps|packages)\//, "$1/"), line: lineNumber + 1 };
}

export interface ProfileSummary {
  busyMs: number;
  functions: { name: string; ms: number }[];
  modules: { name: string; ms: number }[];
}

export function summarize(profile: CpuProfile, skipSeconds = 0): ProfileSummary {
  const byId = new Map(profile.nodes.map((node) => [node.id, node]));
  const selfMicros = new Map<number, number>();
  let at = 0;
  profile.samples.forEach((id, i) => {
    const delta = profile.timeDeltas[i] ?? 0;
    at += delta;
    if (at >= skipSeconds * 1e6) selfMicros.set(id, (selfMicros.get(id) ?? 0) + delta);
  });
  const functions = new Map<string, number>();
  const modules = new Map<string, number>();
  let busy = 0;
  for (const [id, micros] of selfMicros) {
    const frame = byId.get(id)!.callFrame;
    if (frame.functionName === "(idle)") continue;
    busy += micros;
    const { module, line } = moduleOf(frame);
    const name = frame.url ? `${frame.functionName || "(anonymous)"}  ${module}:${line}` : module;
    functions.set(name, (functions.get(name) ?? 0) + micros);
    modules.set(module, (modules.get(module) ?? 0) + micros);
  }
  const sorted = (totals: Map<string, number>) =>
    [...totals].map(([name, micros]) => ({ name, ms: micros / 1000 })).sort((a, b) => b.ms - a.ms);
  return { busyMs: busy / 1000, functions: sorted(functions), modules: sorted(modules) };
}

function formatSummary(summary: ProfileSummary, top: number): string {
  const rows = (entries: { name: string; ms: number }[]) =>
    entries
      .slice(0, top)
      .map(
        (e) =>
          `${((e.ms / summary.busyMs) * 100).toFixed(1).padStart(5)} %  ${e.ms.toFixed(0).padStart(7)} ms  ${e.name}`,
      );
  return [
    `busy (not idle): ${summary.busyMs.toFixed(0)} ms`,
    "",
    `self time by function (top ${top})`,
    ...rows(summary.functions),
    "",
    `self time by module (top ${top})`,
    ...rows(summary.modules),
  ].join("\n");
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const { values, positionals } = parseArgs({
    allowPositionals: true,
    options: { top: { type: "string" }, "skip-seconds": { type: "string" } },
  });
  for (const file of positionals) {
    profileDir = dirname(file);
    sourceMaps.clear();
    const profile = JSON.parse(readFileSync(file, "utf8")) as CpuProfile;
    const summary = summarize(profile, Number(values["skip-seconds"] ?? 0));
    process.stdout.write(`${file}\n${formatSummary(summary, Number(values.top ?? 25))}\n\n`);
  }
}
