/**
 * `staff-lists-scale` (issues 9 and 10, "Performance, in pnpm bench"): the staff console's lists
 * through their tRPC procedures with a staff cookie, as the admin UI calls them, with the tables
 * at 10⁵ and then 10⁶ rows, and the CSV export of 100,000 submissions.
 *
 * - Lists: `submissions.list` (all, by template) and `audit.entries` (all, by template, by actor
 *   type). For each, the first page, page 5 (reached by following `nextCursor`) and a deep page
 *   near the end of the list (the cursor the oldest-first list gives after its 100 oldest rows,
 *   used newest first: the page after it is the last full page but one). The goal is p99 at 10⁶
 *   within 1.2× of p99 at 10⁵ for each (keyset pages cost one index range however deep).
 * - Issue 10: `signatures.list` unfiltered and under each filter (status, visibility, patient,
 *   document, institution, date range), first page and page 5.
 * - Export: `GET /staff/submissions/export?format=csv` of the organization's 100,000 submissions
 *   (with 900,000 foreign ones in the table), peak RSS growth of the API ≤ 100 MiB, rows/s, and
 *   the downloaded CSV's record count checked.
 *
 * Runs in a database and an API process of its own, so the other scale scenarios (A2, F13), which
 * grow some of the same tables to their own sizes, never change what these rows measure.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import postgres from "postgres";
import { CpuProbe } from "../cpu";
import { createBenchDatabase, LOCAL_POSTGRES_URL } from "../database";
import type { BenchOptions } from "../options";
import {
  apiEnv,
  describeFailure,
  freePort,
  startApiServer,
  waitForOutput,
  waitUntilReady,
  type ServerProcess,
} from "../processes";
import type { ResultRow } from "../report";
import { PeakRssProbe, type RssMethod } from "../rss";
import { createFillerOrgs, type BulkOrg } from "./bulk";
import type { Defer } from "./extended";
import { runRequestLoad } from "./request-load";
import {
  createRequestParents,
  FILTER_ACTOR_TYPE,
  FILTER_INSTITUTION,
  FILTER_TEMPLATE,
  FREQUENT_PATIENT,
  growSignatureRequestList,
  growStaffAuditLog,
  growSubmissions,
  OWN_SHARE,
  type RequestParents,
} from "./staff-bulk";

type Log = (message: string) => void;

/** Rows in each table when measured: 10⁵ first, then 9·10⁵ more added to the same tables. */
export const STAFF_LIST_STEPS = [100_000, 1_000_000] as const;
/** One connection per core: p99 is the query's time, not a queue (as the A2/F13 scale rows). */
const CONNECTIONS = 2;
/**
 * Requests per page, the same at both steps so the two p99s come from equally large samples
 * (the 5th slowest of 500); `--warmup`/`--duration` cap them in seconds on a very slow machine.
 */
const WARMUP_REQUESTS = 50;
const MEASURED_REQUESTS = 500;
/** The staff UI's page size (the list contract's default). */
const PAGE_SIZE = 50;
const LATER_PAGE = 5;
/** The export's goal (issue 9). */
const EXPORT_RSS_GOAL_BYTES = 100 * 1024 * 1024;
export const LIST_RATIO_GOAL = 1.2;

type ListProcedure = "submissions.list" | "audit.entries" | "signatures.list";
type ListTable = "submissions" | "audit_log" | "signature_requests";
type PageName = "first" | `page ${number}` | "deep";
const LATER: PageName = `page ${LATER_PAGE}`;

interface ListCase {
  procedure: ListProcedure;
  /** The table its items come from, to check they all belong to the organization under test. */
  table: ListTable;
  filterLabel: string;
  filter: Record<string, string>;
  pages: PageName[];
}

const DAY_MS = 86_400_000;

/**
 * Issue 9 asks for the first and later pages of the submissions and audit lists (page 5 and one
 * near the end); issue 10 for the first and a later page of the request list under each filter.
 */
function listCases(requestDocumentId: string, now: number): ListCase[] {
  const forms: PageName[] = ["first", LATER, "deep"];
  const requests: PageName[] = ["first", LATER];
  const request = (filterLabel: string, filter: Record<string, string>): ListCase => ({
    procedure: "signatures.list",
    table: "signature_requests",
    filterLabel,
    filter,
    pages: requests,
  });
  return [
    { procedure: "submissions.list", table: "submissions", filterLabel: "all", filter: {}, pages: forms },
    {
      procedure: "submissions.list",
      table: "submissions",
      filterLabel: `template=${FILTER_TEMPLATE}`,
      filter: { templateIdentifier: FILTER_TEMPLATE },
      pages: forms,
    },
    { procedure: "audit.entries", table: "audit_log", filterLabel: "all", filter: {}, pages: forms },
    {
      procedure: "audit.entries",
      table: "audit_log",
      filterLabel: `template=${FILTER_TEMPLATE}`,
      filter: { templateIdentifier: FILTER_TEMPLATE },
      pages: forms,
    },
    {
      procedure: "audit.entries",
      table: "audit_log",
      filterLabel: `actorType=${FILTER_ACTOR_TYPE}`,
      filter: { actorType: FILTER_ACTOR_TYPE },
      pages: forms,
    },
    request("all", {}),
    request("status=pending", { status: "pending" }),
    request("visibility=draft", { visibility: "draft" }),
    request("patientId (frequent patient)", { patientId: FREQUENT_PATIENT }),
    request("documentId (1 of 5)", { documentId: requestDocumentId }),
    request(`institutionId=${FILTER_INSTITUTION}`, { institutionId: FILTER_INSTITUTION }),
    request("created 120 to 30 days ago", {
      createdFrom: new Date(now - 120 * DAY_MS).toISOString(),
      createdTo: new Date(now - 30 * DAY_MS).toISOString(),
    }),
  ];
}

/** One list page measured at both steps. */
export interface ListRatio {
  procedure: string;
  filter: string;
  page: PageName;
  /** Table rows and p99 (ms) at each step, smallest step first. */
  steps: { tableRows: number; ownRows: number; p99Ms: number; postgresMsPerRequest: number; otherCpuPercent: number }[];
  /** p99 at the largest step over p99 at the smallest. */
  ratio: number;
}

export interface ExportMeasurement {
  tableRows: number;
  csvRows: number;
  bytes: number;
  seconds: number;
  rowsPerSecond: number;
  rssBeforeBytes: number;
  rssPeakBytes: number;
  rssGrowthBytes: number;
  rssMethod: RssMethod;
  otherCpuPercent: number;
}

export interface StaffListsResult {
  rows: ResultRow[];
  ratios: ListRatio[];
  exports: ExportMeasurement[];
  notes: string[];
  serverVersion: string;
}

interface Page {
  items: { id: string }[];
  nextCursor: string | null;
  hasMore: boolean;
}

const trpcPath = (procedure: string, input: Record<string, unknown>) =>
  `/trpc/${procedure}?input=${encodeURIComponent(JSON.stringify(input))}`;
const mib = (bytes: number) => bytes / 1024 / 1024;

/** Counts CSV records as RFC 4180 reads them (a line break inside quotes is part of a cell), chunk by chunk. */
class CsvRecordCounter {
  records = 0;
  private inQuotes = false;

  push(text: string): void {
    for (let i = 0; i < text.length; i++) {
      const c = text.charCodeAt(i);
      if (c === 34 /* " */) this.inQuotes = !this.inQuotes;
      else if (c === 10 /* \n */ && !this.inQuotes) this.records++;
    }
  }
}

class StaffListsRun {
  readonly rows: ResultRow[] = [];
  readonly notes: string[] = [];
  readonly exports: ExportMeasurement[] = [];
  private readonly measured: {
    listCase: ListCase;
    page: PageName;
    tableRows: number;
    ownRows: number;
    row: ResultRow;
  }[] = [];
  private api!: ServerProcess;
  private orgId = "";
  private cookie = "";
  private fillers: BulkOrg[] = [];
  private requestParents: RequestParents[] = [];
  private cases: ListCase[] = [];

  constructor(
    private readonly options: BenchOptions,
    private readonly databaseUrl: string,
    private readonly defer: Defer,
    private readonly log: Log,
  ) {}

  private async withSql<T>(work: (sql: postgres.Sql) => Promise<T>): Promise<T> {
    const sql = postgres(this.databaseUrl, { max: 1, onnotice: () => {} });
    try {
      return await work(sql);
    } finally {
      await sql.end({ timeout: 5 });
    }
  }

  /** The API with the demo organization; signs in as its admin through `auth.login`, as the web app does. */
  async start(): Promise<void> {
    const dataDir = mkdtempSync(join(tmpdir(), "clinsign-bench-lists-"));
    this.defer(`remove ${dataDir}`, () => rmSync(dataDir, { recursive: true, force: true }));
    const port = await freePort();
    this.api = await startApiServer({
      name: "clinsign API on postgres (staff lists)",
      args: ["--seed-demo"],
      env: apiEnv(port, dataDir, this.databaseUrl),
      port,
    });
    this.defer(`stop ${this.api.name}`, () => this.api.stop());
    this.log(`started ${this.api.name} (pid ${this.api.pid}); waiting for /readyz`);
    await waitUntilReady(this.api, "/readyz");
    const [, orgId] = await waitForOutput(this.api, /^\s+orgId\s+([0-9a-f-]{36})\s*$/m);
    const [, email, password] = await waitForOutput(this.api, /^\s+Login\s+(\S+) \/ (\S+)\s*$/m);
    this.orgId = orgId!;
    const response = await fetch(`${this.api.baseUrl}/trpc/auth.login`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ email, password }),
      signal: AbortSignal.timeout(30_000),
    });
    const staffSessionCookie = response.headers.getSetCookie().find((c) => c.startsWith("clinsign_session="));
    if (response.status !== 200 || !staffSessionCookie)
      throw describeFailure(
        this.api,
        `auth.login answered ${response.status}: ${(await response.text()).slice(0, 300)}`,
      );
    this.cookie = staffSessionCookie.split(";")[0]!;
    this.fillers = await this.withSql(createFillerOrgs);
    this.requestParents = await this.withSql(async (sql) => {
      const parents: RequestParents[] = [];
      for (const orgId of [this.orgId, ...this.fillers.map((f) => f.id)])
        parents.push(await createRequestParents(sql, orgId));
      return parents;
    });
    // Fixed once, so both steps ask for the same date range.
    this.cases = listCases(this.requestParents[0]!.documentIds[1]!, Date.now());
  }

  async stop(): Promise<void> {
    await this.api.stop();
  }

  private async query<T>(procedure: string, input: Record<string, unknown>): Promise<T> {
    const response = await fetch(this.api.baseUrl + trpcPath(procedure, input), {
      headers: { cookie: this.cookie },
      signal: AbortSignal.timeout(60_000),
    });
    const text = await response.text();
    if (response.status !== 200)
      throw describeFailure(this.api, `${procedure} answered ${response.status}: ${text.slice(0, 300)}`);
    return (JSON.parse(text) as { result: { data: T } }).result.data;
  }

  /** A full page of the organization's own rows and more after it, or the run stops: a bench of wrong answers is worthless. */
  private async checkPage(listCase: ListCase, page: PageName, answer: Page): Promise<void> {
    const where = `${listCase.procedure} ${listCase.filterLabel} ${page}`;
    if (answer.items.length !== PAGE_SIZE || !answer.hasMore || !answer.nextCursor) {
      throw describeFailure(
        this.api,
        `${where}: ${answer.items.length} items, hasMore ${answer.hasMore}; expected a full page with more after it`,
      );
    }
    const ids = answer.items.map((i) => i.id);
    const own = await this.withSql(
      async (sql) =>
        (
          await sql<
            { n: number }[]
          >`select count(*)::int as n from ${sql(listCase.table)} where id = any(${ids}::uuid[]) and organization_id = ${this.orgId}`
        )[0]!.n,
    );
    if (own !== PAGE_SIZE)
      throw describeFailure(
        this.api,
        `${where}: ${PAGE_SIZE - own} of ${PAGE_SIZE} items are not the organization's own`,
      );
  }

  /**
   * The three pages of one list, as inputs. Page 5 follows `nextCursor` from the first page, as
   * "Load more" does. The deep page uses the cursor the oldest-first list returns after its 100
   * oldest rows (a cursor carries the last row's key, not the direction), so newest first it
   * continues with the 99 oldest rows: the last full page but one, obtained without walking
   * thousands of pages.
   */
  private async pageInputs(listCase: ListCase): Promise<{ page: PageName; input: Record<string, unknown> }[]> {
    const first = { ...listCase.filter };
    let cursor: string | null = null;
    for (let n = 1; n < LATER_PAGE; n++) {
      const page: Page = await this.query<Page>(listCase.procedure, cursor ? { ...first, cursor } : first);
      await this.checkPage(listCase, n === 1 ? "first" : `page ${n}`, page);
      cursor = page.nextCursor;
    }
    const oldest = listCase.pages.includes("deep")
      ? await this.query<Page>(listCase.procedure, { ...first, sort: "oldest", limit: 2 * PAGE_SIZE })
      : null;
    const inputs: { page: PageName; input: Record<string, unknown> }[] = [
      { page: "first", input: first },
      { page: LATER, input: { ...first, cursor } },
      { page: "deep", input: { ...first, cursor: oldest?.nextCursor } },
    ];
    const wanted = inputs.filter((i) => listCase.pages.includes(i.page));
    for (const { page, input } of wanted.slice(1))
      await this.checkPage(listCase, page, await this.query<Page>(listCase.procedure, input));
    return wanted;
  }

  private async measurePage(label: string, path: string): Promise<ResultRow> {
    const spec = { method: "GET" as const, path, headers: { cookie: this.cookie } };
    if (this.options.warmupSeconds > 0) {
      await runRequestLoad(this.api.baseUrl, spec, {
        connections: CONNECTIONS,
        durationSeconds: this.options.warmupSeconds,
        maxRequests: WARMUP_REQUESTS,
      });
    }
    const rss = new PeakRssProbe(this.api.pid);
    const cpu = new CpuProbe(this.api.pid);
    rss.start();
    cpu.start();
    const load = await runRequestLoad(this.api.baseUrl, spec, {
      connections: CONNECTIONS,
      durationSeconds: this.options.durationSeconds,
      maxRequests: MEASURED_REQUESTS,
    });
    const cpuUse = cpu.stop();
    const peakRss = rss.stop();
    if (this.api.exited()) throw describeFailure(this.api, `exited during ${label}`);
    const row: ResultRow = { scenario: label, stack: "clinsign", engine: "postgres", load, peakRss, cpu: cpuUse };
    this.rows.push(row);
    return row;
  }

  private async ownRows(table: ListTable): Promise<number> {
    return this.withSql(
      async (sql) =>
        (
          await sql<{ n: number }[]>`select count(*)::int as n from ${sql(table)} where organization_id = ${this.orgId}`
        )[0]!.n,
    );
  }

  async measureLists(tableRows: number): Promise<void> {
    const own = {
      submissions: await this.ownRows("submissions"),
      audit_log: await this.ownRows("audit_log"),
      signature_requests: await this.ownRows("signature_requests"),
    };
    for (const listCase of this.cases) {
      for (const { page, input } of await this.pageInputs(listCase)) {
        const label = `${listCase.procedure} ${listCase.filterLabel} ${page} @${tableRows.toLocaleString("en")} (${CONNECTIONS} conn)`;
        this.log(`${label}: ${WARMUP_REQUESTS} warm-up + ${MEASURED_REQUESTS} measured requests`);
        const row = await this.measurePage(label, trpcPath(listCase.procedure, input));
        this.measured.push({ listCase, page, tableRows, ownRows: own[listCase.table], row });
      }
    }
  }

  /** The three tables topped up to `total` rows, with the time it took. */
  async grow(total: number): Promise<void> {
    for (const [table, grow] of [
      ["submissions", (sql: postgres.Sql) => growSubmissions(sql, this.orgId, this.fillers, total)],
      ["audit_log", (sql: postgres.Sql) => growStaffAuditLog(sql, this.orgId, this.fillers, total)],
      ["signature_requests", (sql: postgres.Sql) => growSignatureRequestList(sql, this.requestParents, total)],
    ] as const) {
      const started = Date.now();
      const rows = await this.withSql(grow);
      const seconds = (Date.now() - started) / 1000;
      this.log(`${table} now holds ${rows.toLocaleString("en")} rows (${seconds.toFixed(1)} s incl. ANALYZE)`);
      this.notes.push(
        `staff lists: ${table} grown to ${rows.toLocaleString("en")} rows in ${seconds.toFixed(0)} s (SQL insert + ANALYZE).`,
      );
    }
  }

  /**
   * The organization's whole submissions list as CSV, read as a stream by this process and
   * counted record by record; the API's RSS is sampled from just before the request to the
   * last byte. No warm-up export: its heap would be counted as "before".
   */
  async measureCsvExport(tableRows: number): Promise<void> {
    const expected = await this.ownRows("submissions");
    this.log(
      `CSV export of ${expected.toLocaleString("en")} submissions (${tableRows.toLocaleString("en")} in the table)`,
    );
    const rss = new PeakRssProbe(this.api.pid);
    const cpu = new CpuProbe(this.api.pid);
    rss.start();
    cpu.start();
    const started = performance.now();
    const response = await fetch(`${this.api.baseUrl}/staff/submissions/export?format=csv`, {
      headers: { cookie: this.cookie },
      signal: AbortSignal.timeout(15 * 60_000),
    });
    if (response.status !== 200 || !response.body)
      throw describeFailure(
        this.api,
        `the CSV export answered ${response.status}: ${(await response.text()).slice(0, 300)}`,
      );
    const counter = new CsvRecordCounter();
    // ignoreBOM keeps the byte order mark in the text, so the check below sees it.
    const decoder = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true });
    let bytes = 0;
    let head = "";
    for await (const chunk of response.body) {
      bytes += chunk.byteLength;
      const text = decoder.decode(chunk, { stream: true });
      if (head.length < 200) head += text.slice(0, 200);
      counter.push(text);
    }
    counter.push(decoder.decode());
    const seconds = (performance.now() - started) / 1000;
    const cpuUse = cpu.stop();
    const peak = rss.stop();
    if (!head.startsWith("\uFEFFsubmission_id,submitted_at,template,"))
      throw describeFailure(this.api, `the CSV export starts with ${JSON.stringify(head.slice(0, 80))}`);
    const csvRows = counter.records - 1;
    if (csvRows !== expected)
      throw describeFailure(this.api, `the CSV export has ${csvRows} rows, the organization ${expected} submissions`);
    this.exports.push({
      tableRows,
      csvRows,
      bytes,
      seconds,
      rowsPerSecond: csvRows / seconds,
      rssBeforeBytes: peak.startBytes,
      rssPeakBytes: peak.bytes,
      rssGrowthBytes: peak.bytes - peak.startBytes,
      rssMethod: peak.method,
      otherCpuPercent: cpuUse.other,
    });
  }

  ratios(): ListRatio[] {
    const ratios: ListRatio[] = [];
    for (const listCase of this.cases) {
      for (const page of listCase.pages) {
        const steps = this.measured
          .filter((m) => m.listCase === listCase && m.page === page)
          .sort((a, b) => a.tableRows - b.tableRows)
          .map((m) => ({
            tableRows: m.tableRows,
            ownRows: m.ownRows,
            p99Ms: m.row.load.p99Ms,
            postgresMsPerRequest:
              m.row.load.ok > 0 ? ((m.row.cpu.postgres / 100) * m.row.cpu.seconds * 1000) / m.row.load.ok : Number.NaN,
            otherCpuPercent: m.row.cpu.other,
          }));
        if (steps.length < 2) continue;
        ratios.push({
          procedure: listCase.procedure,
          filter: listCase.filterLabel,
          page,
          steps,
          ratio: steps.at(-1)!.p99Ms / steps[0]!.p99Ms,
        });
      }
    }
    return ratios;
  }
}

/** The `staff-lists-scale` group: its own database and API, both steps, then the export. */
export async function runStaffListsScale(options: BenchOptions, defer: Defer, log: Log): Promise<StaffListsResult> {
  const database = await createBenchDatabase(options.databaseUrl ?? LOCAL_POSTGRES_URL);
  defer(`drop database ${database.name}`, () => database.drop());
  log(`staff-lists-scale: database ${database.name} (PostgreSQL ${database.serverVersion})`);
  const bench = new StaffListsRun(options, database.url, defer, log);
  await bench.start();
  for (const step of STAFF_LIST_STEPS) {
    await bench.grow(step);
    await bench.measureLists(step);
  }
  await bench.measureCsvExport(STAFF_LIST_STEPS.at(-1)!);
  await bench.stop();
  return {
    rows: bench.rows,
    ratios: bench.ratios(),
    exports: bench.exports,
    notes: [
      ...bench.notes,
      `staff lists: the organization under test holds ${OWN_SHARE * 100}% of each table, 4 other organizations the rest; pages of ${PAGE_SIZE}, ${WARMUP_REQUESTS} warm-up + ${MEASURED_REQUESTS} measured requests each on ${CONNECTIONS} connections, sent with the staff cookie.`,
    ],
    serverVersion: database.serverVersion,
  };
}

const pad = (cells: string[][], right: Set<number>) => {
  const widths = cells[0]!.map((_, i) => Math.max(...cells.map((row) => row[i]!.length)));
  const line = (row: string[]) =>
    row
      .map((cell, i) => (right.has(i) ? cell.padStart(widths[i]!) : cell.padEnd(widths[i]!)))
      .join("  ")
      .trimEnd();
  return [line(cells[0]!), widths.map((w) => "-".repeat(w)).join("  "), ...cells.slice(1).map(line)].join("\n");
};

/** The p99 ratio per list page (goal ≤ 1.2×), and the export's memory and speed. */
export function formatStaffLists(result: StaffListsResult): string {
  const sections: string[] = [];
  if (result.ratios.length > 0) {
    const [small, large] = [result.ratios[0]!.steps[0]!.tableRows, result.ratios[0]!.steps.at(-1)!.tableRows];
    const header = [
      "list",
      "filter",
      "page",
      `p99 ms @${small.toLocaleString("en")}`,
      `p99 ms @${large.toLocaleString("en")}`,
      "ratio",
      `goal ≤${LIST_RATIO_GOAL}×`,
      "pg ms/req",
      "other CPU %",
    ];
    const body = result.ratios.map((r) => [
      r.procedure,
      r.filter,
      r.page,
      r.steps[0]!.p99Ms.toFixed(2),
      r.steps.at(-1)!.p99Ms.toFixed(2),
      `${r.ratio.toFixed(2)}×`,
      r.ratio <= LIST_RATIO_GOAL ? "met" : "MISSED",
      r.steps.map((s) => s.postgresMsPerRequest.toFixed(2)).join(" / "),
      r.steps.map((s) => s.otherCpuPercent.toFixed(0)).join(" / "),
    ]);
    sections.push(
      `staff lists at ${small.toLocaleString("en")} vs ${large.toLocaleString("en")} table rows (p99 of each page, ratio = large / small; pg ms/req = PostgreSQL CPU per request, small / large)\n${pad([header, ...body], new Set([3, 4, 5, 7, 8]))}`,
    );
  }
  if (result.exports.length > 0) {
    const header = [
      "export",
      "table rows",
      "CSV rows",
      "MiB",
      "s",
      "rows/s",
      "RSS before MiB",
      "peak MiB",
      "growth MiB",
      "goal ≤100 MiB",
      "other CPU %",
    ];
    const body = result.exports.map((e) => [
      "submissions CSV",
      e.tableRows.toLocaleString("en"),
      e.csvRows.toLocaleString("en"),
      mib(e.bytes).toFixed(1),
      e.seconds.toFixed(1),
      Math.round(e.rowsPerSecond).toLocaleString("en"),
      mib(e.rssBeforeBytes).toFixed(0),
      `${mib(e.rssPeakBytes).toFixed(0)}${e.rssMethod === "sampled" ? "~" : ""}`,
      mib(e.rssGrowthBytes).toFixed(1),
      e.rssGrowthBytes <= EXPORT_RSS_GOAL_BYTES ? "met" : "MISSED",
      e.otherCpuPercent.toFixed(0),
    ]);
    sections.push(
      `CSV export through GET /staff/submissions/export (API process RSS; growth = peak − before)\n${pad([header, ...body], new Set([1, 2, 3, 4, 5, 6, 7, 8, 10]))}`,
    );
  }
  return sections.join("\n\n");
}
