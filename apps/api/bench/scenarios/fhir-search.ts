/**
 * `fhir-search-scale` (issue 34): FHIR search throughput per core. `GET /fhir/r4/QuestionnaireResponse
 * ?patient:identifier=<rnummer>&_count=20` with the organization's API token, the patient varied
 * per request, on an organization holding 10⁵ responses (and a table of 10⁶ with four other
 * organizations' rows), beside the bare baseline (bench/bare-server.ts): the same token lookup and
 * the same index range of submissions_org_rnummer_idx, the rows returned as plain JSON.
 *
 * Patients: 1,000 frequent ones with 50 responses each (a full first page of 20 and a full next
 * page through the Bundle's `next` link) and 25,000 occasional ones with 2 each, spread over the
 * table in random order as a clinic's year of forms would be. Every answer is checked before the
 * load: a searchset Bundle of 20 of the patient's own QuestionnaireResponses, newest first, with a
 * `next` link; the bare server's rows and cursor must match it.
 *
 * Goal: Medplum publishes 6,738 authenticated requests/s on 60 vCPUs (~112 per vCPU); ours should
 * reach at least that per core on 2 cores. Runs on PostgreSQL (DATABASE_URL, else the local
 * server) in a database and an API process of its own; skipped with a note when neither answers.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { availableParallelism, tmpdir } from "node:os";
import { join } from "node:path";
import postgres from "postgres";
import { CpuProbe } from "../cpu";
import { createBenchDatabase, LOCAL_POSTGRES_URL, redactUrl, type BenchDatabase } from "../database";
import { runLoad, type LoadResult } from "../load";
import type { BenchOptions } from "../options";
import {
  apiEnv,
  describeFailure,
  freePort,
  startApiServer,
  startTsServer,
  waitForOutput,
  waitUntilReady,
  API_DIR,
  type ServerProcess,
} from "../processes";
import type { RatedRow, ResultRow, Stack } from "../report";
import { PeakRssProbe } from "../rss";
import { createFillerOrgs } from "./bulk";
import type { Defer } from "./extended";
import { countRows, growSubmissions, OWN_SHARE } from "./staff-bulk";

type Log = (message: string) => void;

const OWN_RESPONSES = 100_000;
const FREQUENT_PATIENTS = 1_000;
const FREQUENT_RESPONSES = 50;
const OCCASIONAL_RESPONSES = 2;
const PAGE_SIZE = 20;
/** Medplum's published figure: 6,738 authenticated read/write/search requests/s on 60 vCPUs. */
export const MEDPLUM_PER_VCPU = 6_738 / 60;
const SEARCH_PATH = "/fhir/r4/QuestionnaireResponse";

type PageName = "first page" | "next page";

export interface FhirSearchResult {
  /** clinsign and bare rows of each page, with the same labels so rateRows pairs them; empty when skipped. */
  rows: ResultRow[];
  notes: string[];
  serverVersion: string | null;
}

/** The searches of one page, one per frequent patient, and the answers the API gave to them. */
interface PageSearches {
  page: PageName;
  paths: string[];
  /** The QuestionnaireResponse ids of each answer, in order, per path. */
  ids: string[][];
  /** The `_page` cursor of each answer's `next` link. */
  cursors: string[];
}

/** What is checked of a searchset Bundle (the JSON is read as this and every field checked). */
interface SearchBundle {
  resourceType?: unknown;
  type?: unknown;
  link?: { relation?: unknown; url?: unknown }[];
  entry?: {
    search?: { mode?: unknown };
    resource?: {
      resourceType?: unknown;
      id?: unknown;
      authored?: unknown;
      subject?: { identifier?: { value?: unknown } };
    };
  }[];
}

/** The bare server's answer: the page's rows as the driver returns them, and the next page's cursor. */
interface BareAnswer {
  rows?: { id?: unknown }[];
  next?: unknown;
}

const patientIdentifier = (n: number) => `R${String(n).padStart(7, "0")}`;
const firstPagePath = (patient: string) =>
  `${SEARCH_PATH}?${new URLSearchParams({ "patient:identifier": patient, _count: String(PAGE_SIZE) })}`;
const seconds = (since: number) => (Date.now() - since) / 1000;

async function withSql<T>(url: string, work: (sql: postgres.Sql) => Promise<T>): Promise<T> {
  const sql = postgres(url, { max: 1, onnotice: () => {} });
  try {
    return await work(sql);
  } finally {
    await sql.end({ timeout: 5 });
  }
}

/**
 * Gives the organization's responses their patients: frequent ones 1…1,000 (50 responses each),
 * then occasional ones (2 each). Rows are taken in id order (random), so a patient's responses lie
 * scattered over the table and its year, as they arrive in a clinic, not side by side on one page.
 * Every rnummer is one the service vouches for (the FHIR search leaves out patient-reported ones).
 */
async function assignPatients(sql: postgres.Sql, orgId: string): Promise<void> {
  const frequentRows = FREQUENT_PATIENTS * FREQUENT_RESPONSES;
  const occasionalPatients = Math.floor((OWN_RESPONSES - frequentRows) / OCCASIONAL_RESPONSES);
  await sql`
    update submissions s set rnummer = 'R' || lpad(p.patient::text, 7, '0'), rnummer_patient_reported = false
    from (
      select id, case when n <= ${frequentRows} then 1 + n % ${FREQUENT_PATIENTS}
        else ${FREQUENT_PATIENTS + 1} + n % ${occasionalPatients} end as patient
      from (select id, row_number() over (order by id) as n from submissions where organization_id = ${orgId}) numbered
    ) p
    where s.id = p.id`;
  // The update left a dead version of every row behind; the search should not wade through them.
  await sql`vacuum analyze submissions`;
}

/** 10⁵ responses of the organization under test among 10⁶ (staff-bulk's forms and answers), then their patients. */
async function loadResponses(databaseUrl: string, orgId: string, log: Log): Promise<string> {
  const started = Date.now();
  return withSql(databaseUrl, async (sql) => {
    const fillers = await createFillerOrgs(sql);
    const tableRows = await growSubmissions(sql, orgId, fillers, OWN_RESPONSES / OWN_SHARE);
    const [own] = await sql<
      { n: number }[]
    >`select count(*)::int as n from submissions where organization_id = ${orgId}`;
    if (own!.n !== OWN_RESPONSES) throw new Error(`the organization holds ${own!.n} submissions, not ${OWN_RESPONSES}`);
    log(`submissions now holds ${tableRows.toLocaleString("en")} rows; assigning patients`);
    await assignPatients(sql, orgId);
    return `FHIR search: submissions grown to ${(await countRows(sql, "submissions")).toLocaleString("en")} rows (${OWN_RESPONSES.toLocaleString("en")} of the organization under test, the rest of 4 others; staff-bulk's 6 forms), ${FREQUENT_PATIENTS.toLocaleString("en")} patients with ${FREQUENT_RESPONSES} responses and ${((OWN_RESPONSES - FREQUENT_PATIENTS * FREQUENT_RESPONSES) / OCCASIONAL_RESPONSES).toLocaleString("en")} with ${OCCASIONAL_RESPONSES}, in ${seconds(started).toFixed(0)} s (SQL insert, update, VACUUM ANALYZE).`;
  });
}

async function getJson(server: ServerProcess, path: string, token: string): Promise<unknown> {
  const response = await fetch(server.baseUrl + path, {
    headers: { authorization: `Bearer ${token}` },
    signal: AbortSignal.timeout(30_000),
  });
  const text = await response.text();
  if (response.status !== 200)
    throw describeFailure(server, `GET ${path} answered ${response.status}: ${text.slice(0, 300)}`);
  return JSON.parse(text);
}

/**
 * One of the API's answers, checked: a searchset Bundle of exactly 20 matches, each a
 * QuestionnaireResponse of `patient`, newest first, and a `next` link. Returns the ids and the
 * next page's path; throws otherwise, since a bench of wrong answers is worthless.
 */
async function checkedBundle(
  api: ServerProcess,
  path: string,
  patient: string,
  token: string,
): Promise<{ ids: string[]; nextPath: string; cursor: string }> {
  // Read as the shape it should have; every field used is checked below.
  const bundle = (await getJson(api, path, token)) as SearchBundle;
  const entries = bundle.entry ?? [];
  const fail = (why: string) =>
    describeFailure(api, `GET ${path}: ${why}; the answer began ${JSON.stringify(bundle).slice(0, 300)}`);
  if (bundle.resourceType !== "Bundle" || bundle.type !== "searchset") throw fail("not a searchset Bundle");
  if (entries.length !== PAGE_SIZE) throw fail(`${entries.length} entries, expected ${PAGE_SIZE}`);
  let previous = Infinity;
  const ids: string[] = [];
  for (const { search, resource } of entries) {
    if (search?.mode !== "match" || resource?.resourceType !== "QuestionnaireResponse")
      throw fail("an entry is not a matching QuestionnaireResponse");
    if (resource.subject?.identifier?.value !== patient) throw fail(`an entry's subject is not ${patient}`);
    const authored = typeof resource.authored === "string" ? Date.parse(resource.authored) : Number.NaN;
    if (!(authored <= previous)) throw fail("the entries are not newest first");
    previous = authored;
    if (typeof resource.id !== "string") throw fail("an entry has no id");
    ids.push(resource.id);
  }
  const next = bundle.link?.find((l) => l.relation === "next")?.url;
  if (typeof next !== "string") throw fail("no next link, though the patient has more responses");
  const nextUrl = new URL(next);
  return { ids, nextPath: nextUrl.pathname + nextUrl.search, cursor: nextUrl.searchParams.get("_page") ?? "" };
}

/**
 * The first and next pages of every frequent patient through the API, checked page by page, then
 * against the database: the 40,000 ids are the organization's own and the two pages never overlap.
 */
async function apiSearches(api: ServerProcess, databaseUrl: string, orgId: string, token: string) {
  const first: PageSearches = { page: "first page", paths: [], ids: [], cursors: [] };
  const next: PageSearches = { page: "next page", paths: [], ids: [], cursors: [] };
  for (let n = 1; n <= FREQUENT_PATIENTS; n++) {
    const patient = patientIdentifier(n);
    const one = await checkedBundle(api, firstPagePath(patient), patient, token);
    const two = await checkedBundle(api, one.nextPath, patient, token);
    if (two.ids.some((id) => one.ids.includes(id)))
      throw describeFailure(api, `${patient}'s next page repeats entries of the first`);
    first.paths.push(firstPagePath(patient));
    first.ids.push(one.ids);
    first.cursors.push(one.cursor);
    next.paths.push(one.nextPath);
    next.ids.push(two.ids);
    next.cursors.push(two.cursor);
  }
  const ids = [...first.ids, ...next.ids].flat();
  const own = await withSql(
    databaseUrl,
    async (sql) =>
      (
        await sql<
          { n: number }[]
        >`select count(*)::int as n from submissions where id = any(${ids}::uuid[]) and organization_id = ${orgId}`
      )[0]!.n,
  );
  if (own !== ids.length)
    throw describeFailure(api, `${ids.length - own} of ${ids.length} entries are not the organization's own`);
  // `subject:identifier` is the same search under its other name.
  const patient = patientIdentifier(1);
  const bySubject = await checkedBundle(
    api,
    `${SEARCH_PATH}?${new URLSearchParams({ "subject:identifier": patient, _count: String(PAGE_SIZE) })}`,
    patient,
    token,
  );
  if (bySubject.ids.join() !== first.ids[0]!.join())
    throw describeFailure(api, "subject:identifier found other responses than patient:identifier");
  return [first, next];
}

/** The bare server must find the same rows in the same order and hand out the same cursor. */
async function checkBare(bare: ServerProcess, searches: PageSearches, token: string): Promise<void> {
  for (const [i, path] of searches.paths.entries()) {
    // Read as the shape it should have; both fields are compared below.
    const answer = (await getJson(bare, path, token)) as BareAnswer;
    const ids = (answer.rows ?? []).map((r) => r.id);
    if (ids.join() !== searches.ids[i]!.join() || answer.next !== searches.cursors[i])
      throw describeFailure(bare, `GET ${path}: not the rows and cursor the API answered with`);
  }
}

/** The searches of `paths`, in turn, with the token, on `connections` connections. */
function driveSearches(
  server: ServerProcess,
  paths: string[],
  token: string,
  load: { connections: number; durationSeconds: number },
): Promise<LoadResult> {
  let n = 0;
  return runLoad(server.baseUrl, load, {
    requests: [
      {
        method: "GET",
        headers: { authorization: `Bearer ${token}` },
        setupRequest: (request) => ({ ...request, path: paths[n++ % paths.length] }),
      },
    ],
  });
}

const rowLabel = (page: PageName) =>
  `FHIR QR search ${page} (${PAGE_SIZE} of ${FREQUENT_RESPONSES}) @${OWN_RESPONSES.toLocaleString("en")}`;

/** Warm-up, then the measured run with RSS and CPU probes, as the other scenarios measure. */
async function measure(
  server: ServerProcess,
  stack: Stack,
  searches: PageSearches,
  token: string,
  options: BenchOptions,
  log: Log,
): Promise<ResultRow> {
  const label = rowLabel(searches.page);
  const load = { connections: options.connections, durationSeconds: options.durationSeconds };
  log(
    `${label} on ${stack}/postgres, ${load.connections} connections: ${options.warmupSeconds}s warm-up, ${load.durationSeconds}s measured`,
  );
  if (options.warmupSeconds > 0)
    await driveSearches(server, searches.paths, token, { ...load, durationSeconds: options.warmupSeconds });
  const rss = new PeakRssProbe(server.pid);
  const cpu = new CpuProbe(server.pid);
  rss.start();
  cpu.start();
  const result = await driveSearches(server, searches.paths, token, load);
  const cpuUse = cpu.stop();
  const peakRss = rss.stop();
  if (server.exited()) throw describeFailure(server, `exited during ${label}`);
  return { scenario: label, stack, engine: "postgres", load: result, peakRss, cpu: cpuUse };
}

/**
 * The plan and time of the first page's statement (as the bare server words it) for one frequent
 * patient: evidence that the search is one short range of submissions_org_rnummer_idx. The fastest
 * of five runs, since a busy neighbour can stretch any one of them tenfold.
 */
async function explainSearch(databaseUrl: string, orgId: string): Promise<string> {
  const patient = patientIdentifier(1);
  const runs = await withSql(databaseUrl, async (sql) => {
    const explained: { Plan: PlanNode; "Execution Time": number }[] = [];
    for (let run = 0; run < 5; run++) {
      const [row] = await sql<{ "QUERY PLAN": [{ Plan: PlanNode; "Execution Time": number }] }[]>`
        explain (analyze, buffers, timing off, format json)
        select *, to_char(created_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"') as cursor_at
        from submissions
        where organization_id = ${orgId} and rnummer = ${patient} and rnummer_patient_reported = false
        order by created_at desc, seq desc limit ${PAGE_SIZE + 1}`;
      explained.push(row!["QUERY PLAN"][0]);
    }
    return explained;
  });
  const { Plan: plan, "Execution Time": ms } = runs.reduce((a, b) =>
    b["Execution Time"] < a["Execution Time"] ? b : a,
  );
  const scan = findScan(plan);
  const direction = scan["Scan Direction"] === "Backward" ? " Backward" : "";
  const index = scan["Index Name"] ? ` using ${scan["Index Name"]}` : "";
  return `FHIR search: EXPLAIN ANALYZE of the first page's statement for ${patient} (fastest of 5): ${scan["Node Type"]}${direction}${index}, ${scan["Actual Rows"]} rows, buffers hit ${scan["Shared Hit Blocks"]} read ${scan["Shared Read Blocks"]}, ${ms.toFixed(3)} ms.`;
}

interface PlanNode {
  "Node Type": string;
  "Index Name"?: string;
  "Scan Direction"?: string;
  "Actual Rows": number;
  "Shared Hit Blocks": number;
  "Shared Read Blocks": number;
  Plans?: PlanNode[];
}

/** The plan's scan of submissions (below the Limit). */
const findScan = (plan: PlanNode): PlanNode =>
  plan.Plans?.length && !/Scan/.test(plan["Node Type"]) ? findScan(plan.Plans[0]!) : plan;

/** The database, or the note saying why the scenario is skipped: no PostgreSQL answers, and none was asked for. */
async function openDatabase(options: BenchOptions, defer: Defer, log: Log): Promise<BenchDatabase | string> {
  const serverUrl = options.databaseUrl ?? LOCAL_POSTGRES_URL;
  try {
    const database = await createBenchDatabase(serverUrl);
    defer(`drop database ${database.name}`, () => database.drop());
    log(`fhir-search-scale: database ${database.name} (PostgreSQL ${database.serverVersion})`);
    return database;
  } catch (error) {
    if (options.databaseUrl) throw error;
    return `fhir-search-scale skipped: it needs PostgreSQL and none answers at ${redactUrl(serverUrl)} (${error instanceof Error ? error.message : String(error)}).`;
  }
}

export async function runFhirSearchScale(options: BenchOptions, defer: Defer, log: Log): Promise<FhirSearchResult> {
  const database = await openDatabase(options, defer, log);
  if (typeof database === "string") {
    log(database);
    return { rows: [], notes: [database], serverVersion: null };
  }
  const dataDir = mkdtempSync(join(tmpdir(), "clinsign-bench-fhir-"));
  defer(`remove ${dataDir}`, () => rmSync(dataDir, { recursive: true, force: true }));
  const port = await freePort();
  const api = await startApiServer({
    name: "clinsign API on postgres (FHIR search)",
    args: ["--seed-demo"],
    env: apiEnv(port, dataDir, database.url),
    port,
  });
  defer(`stop ${api.name}`, () => api.stop());
  log(`started ${api.name} (pid ${api.pid}); waiting for /readyz`);
  await waitUntilReady(api, "/readyz");
  const [, orgId] = await waitForOutput(api, /^\s+orgId\s+([0-9a-f-]{36})\s*$/m);
  const [, token] = await waitForOutput(api, /^\s+API token\s+(\S+)\s*$/m);

  const notes = [await loadResponses(database.url, orgId!, log)];
  log(`checking the first and next page of ${FREQUENT_PATIENTS} patients on the API`);
  const searches = await apiSearches(api, database.url, orgId!, token!);
  const rows: ResultRow[] = [];
  for (const page of searches) rows.push(await measure(api, "clinsign", page, token!, options, log));
  // Stopped before the bare server starts, so the two never share the 2 cores.
  await api.stop();

  const barePort = await freePort();
  const bare = startTsServer({
    name: "bare baseline (FHIR search)",
    script: "bench/bare-server.ts",
    cwd: API_DIR,
    env: { ...process.env, BARE_DATABASE_URL: database.url, BARE_PORT: String(barePort) },
    port: barePort,
  });
  defer(`stop ${bare.name}`, () => bare.stop());
  await waitUntilReady(bare, "/healthz");
  for (const page of searches) await checkBare(bare, page, token!);
  for (const page of searches) rows.push(await measure(bare, "bare", page, token!, options, log));
  await bare.stop();

  notes.push(
    await explainSearch(database.url, orgId!),
    `FHIR search: each request asks for one of ${FREQUENT_PATIENTS.toLocaleString("en")} patients in turn (first page: patient:identifier=<rnummer>&_count=${PAGE_SIZE}; next page: the first page's next link, _page keyset cursor), with the API token as a Bearer header; every answer was checked beforehand (${PAGE_SIZE} entries, the patient's own, newest first, a next link) and the bare server's rows and cursors matched the API's. The bare server returns the rows as JSON, without mapping them to QuestionnaireResponses or a Bundle.`,
  );
  return { rows, notes, serverVersion: database.serverVersion };
}

/** Answered requests per CPU-second of `cpuPercent` (percent of one core, over the row's seconds). */
const perCpuSecond = (row: ResultRow, cpuPercent: number) =>
  cpuPercent > 0 ? row.load.ok / ((cpuPercent / 100) * row.cpu.seconds) : Number.NaN;

/**
 * Requests per core, three ways: per core of the whole machine (req/s ÷ cores, PostgreSQL, the
 * load generator and neighbours included: the goal's reading, "per core on 2 cores", against
 * Medplum's ~112 per vCPU), per CPU-second of the API process (CpuProbe), and per CPU-second of
 * the API and the bench database's PostgreSQL backends together.
 */
export function fhirSearchNotes(rows: RatedRow[]): string[] {
  const cores = availableParallelism();
  return rows.map((row) => {
    const perCore = row.load.requestsPerSecond / cores;
    const verdict = perCore >= MEDPLUM_PER_VCPU ? "goal met" : "goal MISSED";
    const ratio = row.stack === "bare" ? "" : `; ${row.ratioToBare?.toFixed(2) ?? "n/a"}× the bare baseline's req/s`;
    return `${row.scenario} on ${row.stack === "bare" ? "bare node:http" : "clinsign"}: ${row.load.requestsPerSecond.toFixed(0)} req/s = ${perCore.toFixed(0)} per core (÷${cores}), ${(perCore / MEDPLUM_PER_VCPU).toFixed(2)}× Medplum's ${MEDPLUM_PER_VCPU.toFixed(0)} per vCPU (${verdict}); ${perCpuSecond(row, row.cpu.server).toFixed(0)} per CPU-second of the server process, ${perCpuSecond(row, row.cpu.server + row.cpu.postgres).toFixed(0)} per CPU-second of server + PostgreSQL${ratio}.`;
  });
}
