import { isAbsolute, resolve } from "node:path";
import { parseArgs } from "node:util";

export const SCENARIOS = ["healthz", "f4"] as const;
export type ScenarioName = (typeof SCENARIOS)[number];
/** bench/scenarios/extended.ts; the *-scale ones bulk-load PostgreSQL and only run when asked (--scale or --only). */
export const EXTENDED_SCENARIOS = [
  "a1",
  "f7",
  "f10",
  "f10-fhir",
  "completion",
  "fhir-bundle",
  "erasure",
  "a2-scale",
  "f13-scale",
  "staff-lists-scale",
  "patient-export-scale",
] as const;
export type ExtendedScenarioName = (typeof EXTENDED_SCENARIOS)[number];
const SCALE_SCENARIOS: readonly ExtendedScenarioName[] = [
  "a2-scale",
  "f13-scale",
  "staff-lists-scale",
  "patient-export-scale",
];
/** bench/scenarios/portal-weight.ts: the signing portal's JavaScript in Chromium, on a production web build. */
export const PORTAL_WEIGHT = "portal-weight";
/** bench/scenarios/portal-speed.ts: the patient pages' times on an emulated slow phone, on a production web build. */
export const PORTAL_SPEED = "portal-speed";
/**
 * bench/scenarios/fhir-search.ts: FHIR search throughput per core at 10⁵ responses beside its bare
 * baseline; bulk-loads PostgreSQL, so only when asked (--scale or --only), as the *-scale ones.
 */
export const FHIR_SEARCH_SCALE = "fhir-search-scale";
/** bench/scenarios/soak.ts: a long mixed load on the chosen engine; only when asked (--only soak). */
export const SOAK = "soak";
const ALL_NAMES: readonly string[] = [
  ...SCENARIOS,
  ...EXTENDED_SCENARIOS,
  FHIR_SEARCH_SCALE,
  SOAK,
  PORTAL_WEIGHT,
  PORTAL_SPEED,
];

export interface BenchOptions {
  /** Measured seconds per scenario. */
  durationSeconds: number;
  /** Unmeasured load before each scenario, so the JIT and the database caches are warm. */
  warmupSeconds: number;
  connections: number;
  /** Templates created through F2, and the `limit` F4 asks for, so every F4 answer holds this many rows. */
  rows: number;
  scenarios: ScenarioName[];
  /** Extended scenarios (bench/scenarios/), run after the ones above. */
  extended: ExtendedScenarioName[];
  /** `fhir-search-scale`, run after the extended scenarios, in a database and API of its own. */
  fhirSearch: boolean;
  /** `portal-weight`, run last: builds the web app if needed and measures the portal's scripts in Chromium. */
  portalWeight: boolean;
  /** `portal-speed`, run last: times to page 1, the pad and the first field in throttled Chromium. */
  portalSpeed: boolean;
  /** `soak`: the Monday-morning mixed load (bench/scenarios/soak.ts), its minutes and virtual users. */
  soak: boolean;
  soakMinutes: number;
  soakUsers: number;
  /** Absolute path for the JSON report, if asked for. */
  jsonFile: string | undefined;
  /** `--record`: this run's undisturbed ratios become the recorded ones (bench/recorded.json). */
  record: boolean;
  /** PostgreSQL server to benchmark on; unset means our stack runs on PGlite. */
  databaseUrl: string | undefined;
}

export const USAGE = `Usage: pnpm bench [options]

Starts the API (PGlite, or PostgreSQL when DATABASE_URL is set) and a bare node:http baseline,
drives them with autocannon on 127.0.0.1 and prints req/s, p50/p99 latency and peak server RSS.

  --duration <s>      measured seconds per scenario (default 10)
  --warmup <s>        unmeasured seconds before each scenario (default 3)
  --connections <n>   concurrent connections (default 20)
  --rows <n>          templates seeded and listed by F4, 1-300 (default 50)
  --only <names>      comma-separated scenarios: ${ALL_NAMES.join(", ")}
                      (default all but the scale ones)
  --scale             add a2-scale (A2 at 20k/200k assignments) and f13-scale (F13 at
                      100k/1M audit rows) and staff-lists-scale (the staff console's
                      submissions and audit lists at 100k/1M rows, the CSV export of
                      100k submissions) and patient-export-scale (the patient access
                      export of 1 GiB of attachments beside plain downloads of the same
                      files, API RSS growth) and fhir-search-scale (FHIR QuestionnaireResponse
                      search by patient, 20 per page, at 10⁵ responses: req/s per core beside
                      a bare node:http + postgres baseline); bulk-loads PostgreSQL, takes several minutes
                      portal-weight and portal-speed build the web app when it changed
                      (turbo; minutes) and need Chromium (/usr/bin/chromium or CHROMIUM_PATH);
                      portal-speed takes several minutes (throttled visits)
                      erasure: a patient with 1,000 submissions erased in-process, vs bare SQL
  --soak-minutes <n>  soak: minutes of mixed load (default 10)
  --soak-users <n>    soak: concurrent virtual users (default 8)
  --json <file>       also write the results as JSON
  --record            keep this run's ratios (rows not flagged as disturbed) in
                      bench/recorded.json, which the regression table compares against
  --help              this text

Environment: DATABASE_URL=postgres://… runs everything on that server, in a fresh database
clinsign_bench_<random> that is dropped at the end.`;

export class UsageError extends Error {}

function integer(name: string, raw: string | undefined, fallback: number, min: number, max: number): number {
  if (raw === undefined) return fallback;
  const value = Number(raw);
  if (!/^\d+$/.test(raw) || value < min || value > max) {
    throw new UsageError(`--${name} must be a whole number from ${min} to ${max}, got "${raw}"`);
  }
  return value;
}

function scenarioList(
  raw: string | undefined,
  scale: boolean,
): {
  scenarios: ScenarioName[];
  extended: ExtendedScenarioName[];
  fhirSearch: boolean;
  portalWeight: boolean;
  portalSpeed: boolean;
  soak: boolean;
} {
  if (raw === undefined) {
    return {
      scenarios: [...SCENARIOS],
      extended: EXTENDED_SCENARIOS.filter((s) => scale || !SCALE_SCENARIOS.includes(s)),
      fhirSearch: scale,
      portalWeight: true,
      portalSpeed: true,
      soak: false,
    };
  }
  const names = raw
    .split(",")
    .map((s) => s.trim().toLowerCase())
    .filter(Boolean);
  const unknown = names.filter((n) => !ALL_NAMES.includes(n));
  if (names.length === 0 || unknown.length > 0) {
    throw new UsageError(`--only takes ${ALL_NAMES.join(", ")}; got "${raw}"`);
  }
  return {
    scenarios: SCENARIOS.filter((s) => names.includes(s)),
    extended: EXTENDED_SCENARIOS.filter((s) => names.includes(s) || (scale && SCALE_SCENARIOS.includes(s))),
    fhirSearch: scale || names.includes(FHIR_SEARCH_SCALE),
    portalWeight: names.includes(PORTAL_WEIGHT),
    portalSpeed: names.includes(PORTAL_SPEED),
    soak: names.includes(SOAK),
  };
}

/**
 * Reads the command line. pnpm runs the script from apps/api, so a relative `--json` path is
 * resolved against INIT_CWD, the directory `pnpm bench` was typed in.
 */
export function parseOptions(argv: string[], env: NodeJS.ProcessEnv): BenchOptions | "help" {
  // `pnpm bench -- --duration 5` hands the separator through; drop it rather than treat the rest as positionals.
  const args = argv[0] === "--" ? argv.slice(1) : argv;
  const { values } = parseArgs({
    args,
    strict: true,
    options: {
      duration: { type: "string" },
      warmup: { type: "string" },
      connections: { type: "string" },
      rows: { type: "string" },
      only: { type: "string" },
      json: { type: "string" },
      scale: { type: "boolean" },
      record: { type: "boolean" },
      "soak-minutes": { type: "string" },
      "soak-users": { type: "string" },
      help: { type: "boolean", short: "h" },
    },
  });
  if (values.help) return "help";
  const baseDir = env.INIT_CWD ?? process.cwd();
  return {
    durationSeconds: integer("duration", values.duration, 10, 1, 600),
    warmupSeconds: integer("warmup", values.warmup, 3, 0, 60),
    connections: integer("connections", values.connections, 20, 1, 1000),
    rows: integer("rows", values.rows, 50, 1, 300),
    ...scenarioList(values.only, values.scale === true),
    jsonFile: values.json ? (isAbsolute(values.json) ? values.json : resolve(baseDir, values.json)) : undefined,
    record: values.record === true,
    soakMinutes: integer("soak-minutes", values["soak-minutes"], 10, 1, 600),
    soakUsers: integer("soak-users", values["soak-users"], 8, 1, 200),
    databaseUrl: env.DATABASE_URL || undefined,
  };
}
