/**
 * `pnpm bench`: starts the API as a child process, seeds it through its own doors, drives it
 * with autocannon on 127.0.0.1 and prints req/s, p50/p99 and the server's peak RSS per scenario,
 * next to a bare node:http + postgres server doing the same SQL (bench/bare-server.ts), so every
 * figure also reads as a ratio of what plain Node achieves on this machine.
 *
 * Without DATABASE_URL our stack runs on PGlite; the bare baseline needs a real PostgreSQL, so it
 * runs on the local server, and our F4 is measured there too for a same-engine ratio.
 * With DATABASE_URL everything runs on that server. Either way the PostgreSQL side uses a fresh
 * database clinsign_bench_<random>, dropped at the end.
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { availableParallelism as cpuCores, tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { isDeepStrictEqual } from "node:util";
import { CpuProbe } from "./cpu";
import { createBenchDatabase, LOCAL_POSTGRES_URL, redactUrl, type BenchDatabase } from "./database";
import { runLoad } from "./load";
import { parseOptions, UsageError, USAGE, type BenchOptions, type ScenarioName } from "./options";
import {
  apiEnv,
  describeFailure,
  freePort,
  killRunningChildren,
  startApiServer,
  startTsServer,
  waitForOutput,
  waitUntilReady,
  type ServerProcess,
} from "./processes";
import {
  formatMachine,
  formatTable,
  machineInfo,
  rateRows,
  writeJsonReport,
  type EngineKind,
  type ResultRow,
  type Stack,
} from "./report";
import { formatRegressionTable, ratiosOf, readRecorded, recordRatios, type ScenarioRatio } from "./regression";
import { PeakRssProbe } from "./rss";
import { formatCompletionTable } from "./scenarios/completion";
import { formatErasureTable } from "./scenarios/erasure";
import { runExtended } from "./scenarios/extended";
import { fhirSearchNotes, runFhirSearchScale } from "./scenarios/fhir-search";
import { formatPortalSpeed, runPortalSpeed } from "./scenarios/portal-speed";
import { formatPortalWeight, runPortalWeight } from "./scenarios/portal-weight";
import { formatPatientExport } from "./scenarios/patient-export";
import { formatSoak, runSoak } from "./scenarios/soak";
import { formatStaffLists } from "./scenarios/staff-lists";

const API_DIR = join(dirname(fileURLToPath(import.meta.url)), "..");

interface Credentials {
  orgId: string;
  token: string;
}

/** The API (or the bare server) under test, and how to reach F4 on it. */
interface Target {
  server: ServerProcess;
  stack: Stack;
  engine: EngineKind;
  f4Path: string;
}

/** Foreign CPU use above which a row is flagged: a tenth of a core is noise, a fifth is not. */
const OTHER_CPU_WARNING_PERCENT = 20;

const log = (message: string) => process.stderr.write(`bench: ${message}\n`);

/** Undo steps, run newest first, each at most once, whether the run ends well, badly or by Ctrl-C. */
class Cleanup {
  private readonly tasks: { label: string; run: () => Promise<void> | void }[] = [];

  defer(label: string, run: () => Promise<void> | void): void {
    this.tasks.push({ label, run });
  }

  async runAll(): Promise<void> {
    for (let task = this.tasks.pop(); task; task = this.tasks.pop()) {
      try {
        await task.run();
      } catch (error) {
        log(`cleanup "${task.label}" failed: ${error instanceof Error ? error.message : String(error)}`);
      }
    }
  }
}

function tempDir(cleanup: Cleanup, prefix: string): string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  cleanup.defer(`remove ${dir}`, () => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

async function startApi(engine: EngineKind, databaseUrl: string | undefined, cleanup: Cleanup): Promise<ServerProcess> {
  const dataDir = tempDir(cleanup, "clinsign-bench-");
  const port = await freePort();
  const server = await startApiServer({
    name: `clinsign API on ${engine}`,
    args: ["--seed-demo"],
    env: apiEnv(port, dataDir, databaseUrl),
    port,
  });
  cleanup.defer(`stop ${server.name}`, () => server.stop());
  log(`started ${server.name} (pid ${server.pid}); waiting for /readyz (migrations, seeding)`);
  await waitUntilReady(server, "/readyz");
  return server;
}

/** `--seed-demo` prints the organization and its token once, on stdout. */
async function readDemoCredentials(server: ServerProcess): Promise<Credentials> {
  const [, orgId] = await waitForOutput(server, /^\s+orgId\s+([0-9a-f-]{36})\s*$/m);
  const [, token] = await waitForOutput(server, /^\s+API token\s+(\S+)\s*$/m);
  return { orgId: orgId!, token: token! };
}

/** Templates go in through F2, like an integrator's would, so F4 lists real rows with audit entries behind them. */
async function createTemplates(server: ServerProcess, credentials: Credentials, count: number): Promise<void> {
  for (let i = 1; i <= count; i++) {
    const response = await fetch(`${server.baseUrl}/api/embed/templates`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ ...credentials, title: `Bench consent form ${i}`, status: "active" }),
      signal: AbortSignal.timeout(10_000),
    });
    const text = await response.text();
    if (response.status !== 201) throw describeFailure(server, `F2 answered ${response.status}: ${text.slice(0, 300)}`);
  }
}

function f4Path(credentials: Credentials, limit: number): string {
  return `/api/embed/templates?${new URLSearchParams({ token: credentials.token, orgId: credentials.orgId, limit: String(limit) })}`;
}

/** One F4 call before the load, so a broken setup fails loudly instead of benchmarking 401s. */
async function fetchF4(target: Target, expectedRows: number): Promise<unknown> {
  const response = await fetch(target.server.baseUrl + target.f4Path, { signal: AbortSignal.timeout(10_000) });
  const body = (await response.json()) as { ok?: boolean; templates?: unknown[] };
  if (response.status !== 200 || body.ok !== true || body.templates?.length !== expectedRows) {
    throw describeFailure(target.server, `F4 answered ${response.status} with ${JSON.stringify(body).slice(0, 300)}`);
  }
  return body;
}

const scenarioPath = (target: Target, scenario: ScenarioName) => (scenario === "healthz" ? "/healthz" : target.f4Path);

/** Warm-up, then the measured run with the server's peak RSS reset just before it. */
async function measure(target: Target, scenario: ScenarioName, options: BenchOptions): Promise<ResultRow> {
  const url = target.server.baseUrl + scenarioPath(target, scenario);
  const load = { connections: options.connections, durationSeconds: options.durationSeconds };
  log(
    `${scenario} on ${target.stack}/${target.engine}: ${options.warmupSeconds}s warm-up, ${options.durationSeconds}s measured`,
  );
  if (options.warmupSeconds > 0) await runLoad(url, { ...load, durationSeconds: options.warmupSeconds });
  const rss = new PeakRssProbe(target.server.pid);
  const cpu = new CpuProbe(target.server.pid);
  rss.start();
  cpu.start();
  const result = await runLoad(url, load);
  const cpuUse = cpu.stop();
  const peakRss = rss.stop();
  if (target.server.exited()) throw describeFailure(target.server, `exited during ${scenario}`);
  return { scenario, stack: target.stack, engine: target.engine, load: result, peakRss, cpu: cpuUse };
}

async function measureAll(target: Target, scenarios: ScenarioName[], options: BenchOptions): Promise<ResultRow[]> {
  const rows: ResultRow[] = [];
  for (const scenario of scenarios) rows.push(await measure(target, scenario, options));
  return rows;
}

/** Our stack on one engine: start, seed, check F4, measure, stop. Returns what the bare server needs to do the same. */
async function benchApi(
  engine: EngineKind,
  databaseUrl: string | undefined,
  scenarios: ScenarioName[],
  options: BenchOptions,
  cleanup: Cleanup,
) {
  const server = await startApi(engine, databaseUrl, cleanup);
  const credentials = await readDemoCredentials(server);
  await createTemplates(server, credentials, options.rows);
  const target: Target = { server, stack: "clinsign", engine, f4Path: f4Path(credentials, options.rows) };
  const f4Body = await fetchF4(target, options.rows);
  const rows = await measureAll(target, scenarios, options);
  // Stopped before the next server starts, so two servers never share the 2 cores.
  await server.stop();
  return { rows, credentials, f4Body };
}

/** The baseline on the database our API just seeded; it must answer F4 exactly as the API did. */
async function benchBare(
  database: BenchDatabase,
  credentials: Credentials,
  apiF4Body: unknown,
  options: BenchOptions,
  cleanup: Cleanup,
): Promise<ResultRow[]> {
  const port = await freePort();
  const server = startTsServer({
    name: "bare baseline",
    script: "bench/bare-server.ts",
    cwd: API_DIR,
    env: { ...process.env, BARE_DATABASE_URL: database.url, BARE_PORT: String(port) },
    port,
  });
  cleanup.defer(`stop ${server.name}`, () => server.stop());
  log(`started ${server.name} (pid ${server.pid})`);
  await waitUntilReady(server, "/healthz");
  const target: Target = { server, stack: "bare", engine: "postgres", f4Path: f4Path(credentials, options.rows) };
  if (!isDeepStrictEqual(await fetchF4(target, options.rows), apiF4Body)) {
    throw describeFailure(
      server,
      "its F4 answer differs from the API's, so it would not be a baseline for the same work",
    );
  }
  const rows = await measureAll(target, options.scenarios, options);
  await server.stop();
  return rows;
}

/** The PostgreSQL side of the run, or null on a PGlite run when no local PostgreSQL answers. */
async function openBenchDatabase(options: BenchOptions, cleanup: Cleanup): Promise<BenchDatabase | null> {
  const serverUrl = options.databaseUrl ?? LOCAL_POSTGRES_URL;
  try {
    const database = await createBenchDatabase(serverUrl);
    cleanup.defer(`drop database ${database.name}`, () => database.drop());
    log(`created database ${database.name} on ${redactUrl(serverUrl)} (PostgreSQL ${database.serverVersion})`);
    return database;
  } catch (error) {
    if (options.databaseUrl) throw error;
    log(
      `no PostgreSQL at ${serverUrl} (${error instanceof Error ? error.message : String(error)}): the bare baseline and all PostgreSQL rows are skipped`,
    );
    return null;
  }
}

function runNotes(rows: ResultRow[]): string[] {
  const notes = [
    "req/s counts 2xx answers only; p50/p99 come from every 2xx response time (sub-millisecond resolution).",
    "RSS is the server process alone (PGlite lives inside it; PostgreSQL's backends are not counted); 'start' is its RSS after warm-up, 'peak' the high-water mark during the measured run.",
    "autocannon runs in this process, on the same cores as the server (and PostgreSQL).",
    `CPU% is per scenario in % of one core (the machine has ${cpuCores() * 100}): server / load generator / PostgreSQL backends of the bench database / everything else; srv µs/req is server CPU per answered request.`,
  ];
  const busy = rows.filter((r) => r.cpu.other > OTHER_CPU_WARNING_PERCENT);
  for (const row of busy) {
    notes.push(
      `WARNING: other processes used ${row.cpu.other.toFixed(0)}% of a core during ${row.scenario} on ${row.stack}/${row.engine}; that row is disturbed.`,
    );
  }
  if (rows.some((r) => r.engine === "pglite" && r.scenario === "f4") && rows.some((r) => r.stack === "bare")) {
    notes.push(
      "x-engine: the ratio compares our stack on PGlite with the bare server on PostgreSQL, so it mixes stack and database.",
    );
  }
  if (rows.some((r) => r.peakRss.method === "sampled"))
    notes.push("~: clear_refs was refused, peak RSS is the max of 100 ms VmRSS samples.");
  for (const row of rows.filter((r) => r.load.failed > 0)) {
    notes.push(
      `WARNING: ${row.scenario} on ${row.stack}/${row.engine} had ${row.load.failed} failed requests; treat that row as invalid.`,
    );
  }
  return notes;
}

async function run(options: BenchOptions, cleanup: Cleanup): Promise<void> {
  const ratios: ScenarioRatio[] = [];
  if (options.scenarios.length > 0) ratios.push(...(await runBase(options, cleanup)));
  if (options.extended.length > 0) ratios.push(...(await runExtendedScenarios(options, cleanup)));
  if (options.fhirSearch) ratios.push(...(await runFhirSearchScenario(options, cleanup)));
  if (options.portalWeight) await runPortalWeightScenario(options, cleanup);
  if (options.portalSpeed) await runPortalSpeedScenario(options, cleanup);
  if (options.soak) await runSoakScenario(options, cleanup);
  if (ratios.length === 0) return;
  process.stdout.write(`\n${formatRegressionTable(ratios, readRecorded())}\n`);
  if (options.record) {
    const kept = recordRatios(ratios, machineInfo(null, API_DIR).commit);
    log(
      `recorded ${kept.length} ratio(s) in bench/recorded.json${kept.length < ratios.length ? " (disturbed rows left out)" : ""}`,
    );
  }
}

/** The Monday-morning soak (bench/scenarios/soak.ts) on this run's engine, its own section and JSON file. */
async function runSoakScenario(options: BenchOptions, cleanup: Cleanup): Promise<void> {
  const database = options.databaseUrl ? await openBenchDatabase(options, cleanup) : null;
  const result = await runSoak(options, database, cleanup.defer.bind(cleanup), log);
  const machine = machineInfo(null, API_DIR);
  process.stdout.write(`\n${formatMachine(machine)}\n${formatSoak(result)}\n`);
  if (options.jsonFile) {
    const file = options.jsonFile.replace(/(\.json)?$/, ".soak.json");
    writeFileSync(file, JSON.stringify({ machine, soak: result }, null, 2) + "\n");
    log(`wrote ${file}`);
  }
}

/** The patient pages' times on an emulated slow phone (bench/scenarios/portal-speed.ts), its own section and JSON file. */
async function runPortalSpeedScenario(options: BenchOptions, cleanup: Cleanup): Promise<void> {
  const result = await runPortalSpeed(options, cleanup.defer.bind(cleanup), log);
  const machine = machineInfo(null, API_DIR);
  process.stdout.write(`\n${formatMachine(machine)}\n${formatPortalSpeed(result)}\n`);
  if (options.jsonFile) {
    const file = options.jsonFile.replace(/(\.json)?$/, ".portal-speed.json");
    writeFileSync(file, JSON.stringify({ machine, portalSpeed: result }, null, 2) + "\n");
    log(`wrote ${file}`);
  }
}

/** The signing portal's JavaScript in Chromium (bench/scenarios/portal-weight.ts), its own section and JSON file. */
async function runPortalWeightScenario(options: BenchOptions, cleanup: Cleanup): Promise<void> {
  const result = await runPortalWeight(options, cleanup.defer.bind(cleanup), log);
  const machine = machineInfo(result.status === "measured" ? result.serverVersion : null, API_DIR);
  process.stdout.write(`\n${formatMachine(machine)}\n${formatPortalWeight(result)}\n`);
  if (options.jsonFile) {
    const file = options.jsonFile.replace(/(\.json)?$/, ".portal-weight.json");
    writeFileSync(file, JSON.stringify({ machine, portalWeight: result }, null, 2) + "\n");
    log(`wrote ${file}`);
  }
}

/** FHIR search throughput per core at 10⁵ responses (bench/scenarios/fhir-search.ts), its own section and JSON file. */
async function runFhirSearchScenario(options: BenchOptions, cleanup: Cleanup): Promise<ScenarioRatio[]> {
  const result = await runFhirSearchScale(options, cleanup.defer.bind(cleanup), log);
  const machine = machineInfo(result.serverVersion, API_DIR);
  const settings = `${options.connections} connections, ${options.durationSeconds}s per page after ${options.warmupSeconds}s warm-up; our API and the bare server on PostgreSQL (scale data inserted with SQL)`;
  const sections = [`\nFHIR search\n${formatMachine(machine)}\nload      ${settings}`];
  const rated = rateRows(result.rows);
  if (rated.length > 0) sections.push(formatTable(rated, machine));
  const notes = [...(rated.length > 0 ? runNotes(result.rows) : []), ...fhirSearchNotes(rated), ...result.notes];
  sections.push(notes.map((n) => `- ${n}`).join("\n"));
  process.stdout.write(`${sections.join("\n\n")}\n`);
  if (options.jsonFile) {
    const file = options.jsonFile.replace(/(\.json)?$/, ".fhir-search.json");
    writeFileSync(file, JSON.stringify({ machine, rows: rated, notes }, null, 2) + "\n");
    log(`wrote ${file}`);
  }
  return ratiosOf(rated);
}

/** The extended scenarios (bench/scenarios/): a second table, and the completion table. */
async function runExtendedScenarios(options: BenchOptions, cleanup: Cleanup): Promise<ScenarioRatio[]> {
  const result = await runExtended(options, cleanup.defer.bind(cleanup), log);
  const machine = machineInfo(result.serverVersion, API_DIR);
  const settings = `${options.connections} connections, ${options.durationSeconds}s per scenario after ${options.warmupSeconds}s warm-up; our API and the bare server on PostgreSQL (scale data inserted with SQL)`;
  const sections = [`\nextended scenarios\n${formatMachine(machine)}\nload      ${settings}`];
  const rated = rateRows(result.rows);
  if (rated.length > 0) sections.push(formatTable(rated, machine));
  // In-process scenarios (fhir-bundle) report in notes alone.
  const notes = [...(rated.length > 0 ? runNotes(result.rows) : []), ...result.notes];
  if (notes.length > 0) sections.push(notes.map((n) => `- ${n}`).join("\n"));
  if (result.completion.length > 0) {
    sections.push(
      `completion pipeline, in-process (stamp + audit page + PAdES seal + SHA-256s; no HTTP, storage or SQL) vs pdf-lib load + save of the same file\n${formatCompletionTable(result.completion)}`,
    );
  }
  if (result.staffLists) sections.push(formatStaffLists(result.staffLists));
  if (result.patientExport) sections.push(formatPatientExport(result.patientExport));
  if (result.erasure)
    sections.push(
      `patient erasure, in-process (find every kind, batches, audit personal parts, receipt) vs the bare SQL deleting the same rows\n${formatErasureTable(result.erasure)}`,
    );
  process.stdout.write(`${sections.join("\n\n")}\n`);
  if (options.jsonFile) {
    const file = options.jsonFile.replace(/(\.json)?$/, ".extended.json");
    const staffLists = result.staffLists && { ratios: result.staffLists.ratios, exports: result.staffLists.exports };
    const patientExport = result.patientExport && {
      baseline: result.patientExport.baseline,
      export: result.patientExport.export,
    };
    writeFileSync(
      file,
      JSON.stringify(
        {
          machine,
          rows: rated,
          completion: result.completion,
          staffLists,
          patientExport,
          erasure: result.erasure,
          notes: result.notes,
        },
        null,
        2,
      ) + "\n",
    );
    log(`wrote ${file}`);
  }
  return ratiosOf(rated, result.completion);
}

async function runBase(options: BenchOptions, cleanup: Cleanup): Promise<ScenarioRatio[]> {
  const database = await openBenchDatabase(options, cleanup);
  const machine = machineInfo(database?.serverVersion ?? null, API_DIR);
  const rows: ResultRow[] = [];
  if (!options.databaseUrl)
    rows.push(...(await benchApi("pglite", undefined, options.scenarios, options, cleanup)).rows);
  if (database) {
    // On a PGlite run, our F4 is repeated on PostgreSQL so one ratio compares like with like;
    // /healthz never reaches the database, so once is enough. This phase also seeds the bare server's data.
    const scenarios = options.databaseUrl ? options.scenarios : options.scenarios.filter((s) => s === "f4");
    const api = await benchApi("postgres", database.url, scenarios, options, cleanup);
    rows.push(...api.rows);
    rows.push(...(await benchBare(database, api.credentials, api.f4Body, options, cleanup)));
  }
  const rated = rateRows(rows);
  const notes = runNotes(rows);
  const settings = `${options.connections} connections, ${options.durationSeconds}s per scenario after ${options.warmupSeconds}s warm-up, F4 lists ${options.rows} rows`;
  process.stdout.write(
    `\n${formatMachine(machine)}\nload      ${settings}\n\n${formatTable(rated, machine)}\n\n${notes.map((n) => `- ${n}`).join("\n")}\n`,
  );
  if (options.jsonFile) {
    writeJsonReport(options.jsonFile, { machine, options, rows: rated, notes });
    log(`wrote ${options.jsonFile}`);
  }
  return ratiosOf(rated);
}

async function main(): Promise<void> {
  let options: BenchOptions | "help";
  try {
    options = parseOptions(process.argv.slice(2), process.env);
  } catch (error) {
    if (!(error instanceof UsageError) && !(error instanceof TypeError)) throw error;
    process.stderr.write(`${error.message}\n\n${USAGE}\n`);
    process.exit(2);
  }
  if (options === "help") {
    process.stdout.write(`${USAGE}\n`);
    return;
  }

  const cleanup = new Cleanup();
  const interrupt = (signal: NodeJS.Signals) => {
    log(`${signal}: stopping the servers and cleaning up`);
    void cleanup.runAll().finally(() => process.exit(130));
  };
  process.once("SIGINT", interrupt);
  process.once("SIGTERM", interrupt);
  // If everything else failed, still never leave a server behind.
  process.once("exit", killRunningChildren);

  try {
    await run(options, cleanup);
  } catch (error) {
    log(`failed: ${error instanceof Error ? error.message : String(error)}`);
    process.exitCode = 1;
  } finally {
    await cleanup.runAll();
  }
}

await main();
