/**
 * `pnpm bench --only soak` (issue 36): a Monday morning. Ten organizations, each with a form and
 * a consent document, webhooks and a FHIR push going out; virtual users that are patients filling
 * forms (autosaves, an upload, the submission), patients signing (link opened, signed, sealed) and
 * staff listing requests, reading the audit log and exporting a patient, for `--soak-minutes`
 * (default 10) at a steady load. Reported: p50/p99 and errors per route, the server's RSS over
 * time (flat after warm-up is the goal), the job queue's depth and lag as /metrics shows them, how
 * long the queue took to drain, and — on PostgreSQL — F7 under the soak against the bare upsert.
 */
import { execFile } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { randomBytes } from "node:crypto";
import type { BenchDatabase } from "../database";
import { runLoad } from "../load";
import type { BenchOptions } from "../options";
import {
  API_DIR,
  apiEnv,
  buildApiBundle,
  describeFailure,
  freePort,
  startApiServer,
  startTsServer,
  waitUntilReady,
  type ServerProcess,
} from "../processes";
import type { Defer } from "./extended";
import { makePdf, startFileServer, startWebhookReceiver, type LocalServer, type WebhookReceiver } from "./fixtures";

const run = promisify(execFile);
type Log = (message: string) => void;

const ORGANIZATIONS = 10;
const SAMPLE_EVERY_MS = 5000;
const WARM_UP_MS = 60_000;
const DRAIN_LIMIT_MS = 180_000;
const METRICS_TOKEN = randomBytes(24).toString("hex");

/** One organization as the virtual users see it. */
interface Clinic {
  orgId: string;
  token: string;
  template: string;
  documentId: string;
}

interface Timing {
  route: string;
  ms: number;
  ok: boolean;
}

export interface SoakRoute {
  route: string;
  count: number;
  errors: number;
  p50Ms: number;
  p99Ms: number;
}

export interface SoakSample {
  atSeconds: number;
  rssBytes: number;
  /** Jobs due now or running, over every kind (webhooks, FHIR pushes, seals, notices …). */
  queueDepth: number;
  /** The oldest due job's wait past its run time, in seconds. */
  queueLagSeconds: number;
}

export interface SoakResult {
  engine: "pglite" | "postgres";
  minutes: number;
  users: number;
  organizations: number;
  routes: SoakRoute[];
  errors: number;
  errorSamples: string[];
  journeys: { forms: number; signatures: number; staff: number };
  samples: SoakSample[];
  rss: { afterWarmUpMiB: number; endMiB: number; maxMiB: number; slopeMiBPerMinute: number };
  queue: { maxDepth: number; maxLagSeconds: number; drainSeconds: number };
  deliveries: { webhooks: number; fhirBundles: number; failedDeliveries: number; failedJobs: number };
  bare: { f7SoakP50Ms: number; f7BareP50Ms: number; ratio: number } | null;
}

const percentile = (sorted: number[], p: number) =>
  sorted.length === 0
    ? Number.NaN
    : sorted[Math.min(sorted.length, Math.max(1, Math.ceil((p / 100) * sorted.length))) - 1]!;

/** The sum (or max) of one metric's samples in Prometheus' text format. */
function metricValues(text: string, name: string): number[] {
  return text
    .split("\n")
    .filter((line) => line.startsWith(`${name}{`) || line.startsWith(`${name} `))
    .map((line) => Number(line.slice(line.lastIndexOf(" ") + 1)));
}

class SoakRun {
  private api!: ServerProcess;
  private env!: NodeJS.ProcessEnv;
  private files!: LocalServer;
  private hooks!: WebhookReceiver;
  private readonly clinics: Clinic[] = [];
  private readonly timings: Timing[] = [];
  private readonly errorSamples: string[] = [];
  private readonly samples: SoakSample[] = [];
  private readonly journeys = { forms: 0, signatures: 0, staff: 0 };
  private pdf!: Buffer;
  private started = 0;

  constructor(
    private readonly options: BenchOptions,
    private readonly database: BenchDatabase | null,
    private readonly defer: Defer,
    private readonly log: Log,
  ) {}

  private get engine() {
    return this.options.databaseUrl ? ("postgres" as const) : ("pglite" as const);
  }

  private cli(...args: string[]) {
    return run(process.execPath, [join(API_DIR, "dist", "cli.js"), ...args, "--json"], {
      cwd: API_DIR,
      env: this.env,
      timeout: 120_000,
    }).then(({ stdout }) => JSON.parse(stdout) as Record<string, string>);
  }

  /** Organizations, their webhook and FHIR server, through the CLI before the API starts (PGlite allows one process). */
  async setUp(): Promise<void> {
    await buildApiBundle();
    this.pdf = await makePdf(1);
    this.files = await startFileServer({ "/consent.pdf": this.pdf });
    this.defer("close the PDF file server", () => this.files.close());
    this.hooks = await startWebhookReceiver();
    this.defer("close the webhook receiver", () => this.hooks.close());
    const dataDir = mkdtempSync(join(tmpdir(), "clinsign-bench-soak-"));
    this.defer(`remove ${dataDir}`, () => rmSync(dataDir, { recursive: true, force: true }));
    const port = await freePort();
    this.env = {
      ...apiEnv(port, dataDir, this.database?.url, [this.files.host, this.hooks.host]),
      METRICS_TOKEN,
      PAGE_IMAGES: "false",
    };
    for (let i = 1; i <= ORGANIZATIONS; i++) {
      const { orgId, token } = await this.cli("org", "create", "--name", `Soak Klinik ${i}`);
      await this.cli("org", "configure", "--org", orgId!, "--webhook-url", this.hooks.url("/hook"));
      await this.cli("fhir-push", "set", "--org", orgId!, "--base-url", this.hooks.url("/fhir"), "--auth", "none");
      this.clinics.push({ orgId: orgId!, token: token!, template: "", documentId: "" });
    }
    this.api = await startApiServer({ name: `clinsign API on ${this.engine} (soak)`, env: this.env, port });
    this.defer(`stop ${this.api.name}`, () => this.api.stop());
    await waitUntilReady(this.api, "/readyz");
    for (const clinic of this.clinics) await this.seed(clinic);
    this.log(`soak: ${ORGANIZATIONS} organizations seeded on ${this.engine}`);
  }

  private async seed(clinic: Clinic): Promise<void> {
    const field = (key: string, type = "text") => ({ id: key, key, label: key, type });
    const template = await this.call("setup", "POST", "/api/embed/templates", {
      token: clinic.token,
      orgId: clinic.orgId,
      title: "Anamnese",
      status: "active",
      schema: {
        version: 1,
        fields: [field("name"), field("notes"), { ...field("findings", "file"), accept: "application/pdf" }],
      },
    });
    clinic.template = (template.template as { identifier: string }).identifier;
    const document = await this.call(
      "setup",
      "POST",
      "/documents",
      {
        document_name: "Einwilligung",
        document_description: "soak",
        account_name: "soak",
        signingfield_koordinates: { page: 1, x: 350, y: 700, width: 180, height: 50 },
        document_bloburl: this.files.url("/consent.pdf"),
      },
      { authorization: `Bearer ${clinic.token}` },
    );
    clinic.documentId = document.document_id as string;
  }

  /** One timed call; an unexpected status counts as an error of its route (and stops a setup). */
  private async call(
    route: string,
    method: "GET" | "POST",
    path: string,
    body?: unknown,
    headers: Record<string, string> = {},
  ): Promise<Record<string, unknown>> {
    const started = performance.now();
    let status = 0;
    let text = "";
    try {
      const response = await fetch(this.api.baseUrl + path, {
        method,
        // A FormData body sets its own multipart content type.
        headers: {
          ...(body !== undefined && !(body instanceof FormData) && { "content-type": "application/json" }),
          ...headers,
        },
        ...(body !== undefined && { body: body instanceof FormData ? body : JSON.stringify(body) }),
        signal: AbortSignal.timeout(60_000),
      });
      status = response.status;
      text = await response.text();
    } catch (error) {
      text = error instanceof Error ? error.message : String(error);
    }
    const ok = status >= 200 && status < 300;
    if (route === "setup") {
      if (!ok)
        throw describeFailure(this.api, `${method} ${path.split("?")[0]} answered ${status}: ${text.slice(0, 300)}`);
      return JSON.parse(text) as Record<string, unknown>;
    }
    this.timings.push({ route, ms: performance.now() - started, ok });
    if (!ok && this.errorSamples.length < 10) this.errorSamples.push(`${route}: ${status} ${text.slice(0, 200)}`);
    return ok && text.startsWith("{") ? (JSON.parse(text) as Record<string, unknown>) : {};
  }

  private trpc(procedure: string, input: unknown) {
    return this.call(`tRPC ${procedure}`, "POST", `/trpc/${procedure}`, input);
  }

  /** A patient fills the form: four autosaves, a PDF upload, the submission (webhook and FHIR push follow). */
  private async formJourney(clinic: Clinic, n: number): Promise<void> {
    const credentials = { token: clinic.token, orgId: clinic.orgId, templateIdentifier: clinic.template };
    const draftKey = `soak-${n}`;
    for (let typed = 1; typed <= 4; typed++) {
      await this.call("F7 save draft", "POST", "/api/embed/drafts", {
        ...credentials,
        draftKey,
        values: { name: `Patient ${n}`, notes: "x".repeat(typed * 40) },
      });
    }
    const form = new FormData();
    for (const [key, value] of Object.entries(credentials)) form.append(key, value);
    form.append("files", new Blob([new Uint8Array(this.pdf)], { type: "application/pdf" }), "befund.pdf");
    const uploaded = await this.call("upload", "POST", "/api/embed/uploads", form);
    const files = (uploaded.files as { name: string; path: string; size: number; type: string }[] | undefined) ?? [];
    await this.call("F10 submit", "POST", "/api/embed/submit", {
      ...credentials,
      draftKey,
      rnummer: `R-${n}`,
      values: {
        name: `Patient ${n}`,
        notes: "fertig",
        findings: files.map(({ name, path, size, type }) => ({ name, path, size, type })),
      },
    });
    this.journeys.forms++;
  }

  /** A patient signs: A1 by the clinic, the link opened on a phone, a typed signature, sealed inline. */
  private async signingJourney(clinic: Clinic, n: number): Promise<void> {
    const created = await this.call(
      "A1 create request",
      "POST",
      "/signature-requests",
      {
        patient_id: `soak-patient-${n}`,
        document_id: clinic.documentId,
        institution_id: "soak",
        expiration_date: new Date(Date.now() + 86_400_000).toISOString(),
        order_by: "dr.soak",
      },
      { authorization: `Bearer ${clinic.token}` },
    );
    const link = created.signing_link as string | undefined;
    if (!link) return;
    const opened = await this.trpc("signing.open", { token: link.slice(link.lastIndexOf("/") + 1) });
    const view = (opened.result as { data?: { sessionToken?: string } } | undefined)?.data;
    if (!view?.sessionToken) return;
    await this.trpc("signing.sign", {
      sessionToken: view.sessionToken,
      consent: true,
      signature: { kind: "typed", name: `Patient ${n}` },
    });
    this.journeys.signatures++;
  }

  /** Staff at the desk: the patient's requests, the audit log, now and then a patient's export. */
  private async staffJourney(clinic: Clinic, n: number): Promise<void> {
    const bearer = { authorization: `Bearer ${clinic.token}` };
    const patient = `soak-patient-${Math.max(0, n - 7)}`;
    await this.call("A2 list requests", "GET", `/signature-requests?patient_id=${patient}`, undefined, bearer);
    const query = new URLSearchParams({ token: clinic.token, orgId: clinic.orgId, limit: "50" });
    await this.call("F13 audit log", "GET", `/api/embed/audit-logs?${query}`);
    await this.call("F4 templates", "GET", `/api/embed/templates?${query}`);
    // Every fifth round also exports a patient who signed (the access export's ZIP, streamed).
    if (this.journeys.staff % 5 === 0)
      await this.call("patient export", "POST", "/patients/export", { patient_id: patient }, bearer);
    this.journeys.staff++;
  }

  private async user(index: number, until: number): Promise<void> {
    for (let n = index; Date.now() < until; n += this.options.soakUsers) {
      const clinic = this.clinics[n % this.clinics.length]!;
      const roll = n % 20;
      if (roll < 10) await this.formJourney(clinic, n);
      else if (roll < 13) await this.signingJourney(clinic, n);
      else await this.staffJourney(clinic, n);
    }
  }

  private async scrape(): Promise<string> {
    const response = await fetch(`${this.api.baseUrl}/metrics`, {
      headers: { authorization: `Bearer ${METRICS_TOKEN}` },
    });
    return response.text();
  }

  private async sample(): Promise<void> {
    const status = readFileSync(`/proc/${this.api.pid}/status`, "utf8");
    const rssKb = Number(/^VmRSS:\s+(\d+) kB$/m.exec(status)?.[1] ?? 0);
    const text = await this.scrape();
    const depth = text
      .split("\n")
      .filter((line) => line.startsWith("clinsign_job_queue_depth{") && /state="(due|running)"/.test(line))
      .reduce((sum, line) => sum + Number(line.slice(line.lastIndexOf(" ") + 1)), 0);
    this.samples.push({
      atSeconds: Math.round((Date.now() - this.started) / 1000),
      rssBytes: rssKb * 1024,
      queueDepth: depth,
      queueLagSeconds: Math.max(0, ...metricValues(text, "clinsign_job_oldest_due_age_seconds")),
    });
  }

  async load(): Promise<void> {
    const minutes = this.options.soakMinutes;
    this.log(`soak: ${this.options.soakUsers} virtual users for ${minutes} min on ${this.engine}`);
    this.started = Date.now();
    const until = this.started + minutes * 60_000;
    const sampler = setInterval(() => void this.sample().catch(() => {}), SAMPLE_EVERY_MS);
    try {
      await Promise.all(Array.from({ length: this.options.soakUsers }, (_, i) => this.user(i, until)));
    } finally {
      clearInterval(sampler);
    }
    if (this.api.exited()) throw describeFailure(this.api, "exited during the soak");
  }

  /** Waits until no job is due or running; answers how long that took. */
  async drain(): Promise<number> {
    const started = Date.now();
    while (Date.now() - started < DRAIN_LIMIT_MS) {
      await this.sample();
      if (this.samples.at(-1)!.queueDepth === 0) return (Date.now() - started) / 1000;
      await new Promise((resolve) => setTimeout(resolve, 1000));
    }
    return Number.NaN;
  }

  async deliveries(): Promise<SoakResult["deliveries"]> {
    const text = await this.scrape();
    const failed = (name: string) =>
      text
        .split("\n")
        .filter((line) => line.startsWith(`${name}{`) && line.includes('outcome="failed"'))
        .reduce((sum, line) => sum + Number(line.slice(line.lastIndexOf(" ") + 1)), 0);
    return {
      webhooks: this.hooks.receivedOn("/hook"),
      fhirBundles: this.hooks.receivedOn("/fhir/"),
      failedDeliveries: failed("clinsign_deliveries_total"),
      failedJobs: failed("clinsign_job_attempts_total"),
    };
  }

  /** PostgreSQL only: the same F7 load on the bare upsert, on the same database, with the API stopped. */
  async bare(): Promise<SoakResult["bare"]> {
    if (!this.database) return null;
    const soakF7 = this.timings
      .filter((t) => t.route === "F7 save draft" && t.ok)
      .map((t) => t.ms)
      .sort((a, b) => a - b);
    await this.api.stop();
    const port = await freePort();
    const bare = startTsServer({
      name: "bare baseline (soak F7)",
      script: "bench/bare-server.ts",
      cwd: API_DIR,
      env: { ...process.env, BARE_DATABASE_URL: this.database.url, BARE_PORT: String(port) },
      port,
    });
    this.defer(`stop ${bare.name}`, () => bare.stop());
    await waitUntilReady(bare, "/healthz");
    const clinic = this.clinics[0]!;
    let n = 0;
    const result = await runLoad(
      bare.baseUrl,
      { connections: this.options.soakUsers, durationSeconds: 20 },
      {
        requests: [
          {
            method: "POST",
            path: "/api/embed/drafts",
            headers: { "content-type": "application/json" },
            setupRequest: (req) => ({
              ...req,
              body: JSON.stringify({
                token: clinic.token,
                orgId: clinic.orgId,
                templateIdentifier: clinic.template,
                draftKey: `bare-${n++ % 500}`,
                values: { name: "Patient", notes: "x".repeat(80) },
              }),
            }),
          },
        ],
      },
    );
    await bare.stop();
    const f7SoakP50Ms = percentile(soakF7, 50);
    return { f7SoakP50Ms, f7BareP50Ms: result.p50Ms, ratio: result.p50Ms / f7SoakP50Ms };
  }

  result(drainSeconds: number, deliveries: SoakResult["deliveries"], bare: SoakResult["bare"]): SoakResult {
    const byRoute = new Map<string, Timing[]>();
    for (const timing of this.timings) byRoute.set(timing.route, [...(byRoute.get(timing.route) ?? []), timing]);
    const routes = [...byRoute].map(([route, timings]) => {
      const sorted = timings
        .filter((t) => t.ok)
        .map((t) => t.ms)
        .sort((a, b) => a - b);
      return {
        route,
        count: timings.length,
        errors: timings.filter((t) => !t.ok).length,
        p50Ms: percentile(sorted, 50),
        p99Ms: percentile(sorted, 99),
      };
    });
    return {
      engine: this.engine,
      minutes: this.options.soakMinutes,
      users: this.options.soakUsers,
      organizations: ORGANIZATIONS,
      routes,
      errors: routes.reduce((sum, r) => sum + r.errors, 0),
      errorSamples: this.errorSamples,
      journeys: this.journeys,
      samples: this.samples,
      rss: rssSummary(this.samples),
      queue: {
        maxDepth: Math.max(0, ...this.samples.map((s) => s.queueDepth)),
        maxLagSeconds: Math.max(0, ...this.samples.map((s) => s.queueLagSeconds)),
        drainSeconds,
      },
      deliveries,
      bare,
    };
  }
}

/** RSS after the warm-up, at the end, its maximum, and its least-squares slope after the warm-up. */
function rssSummary(samples: SoakSample[]): SoakResult["rss"] {
  const MiB = 1024 * 1024;
  const steady = samples.filter((s) => s.atSeconds * 1000 >= WARM_UP_MS);
  const points = steady.length >= 2 ? steady : samples;
  const xs = points.map((s) => s.atSeconds / 60);
  const ys = points.map((s) => s.rssBytes / MiB);
  const meanX = xs.reduce((a, b) => a + b, 0) / xs.length;
  const meanY = ys.reduce((a, b) => a + b, 0) / ys.length;
  const covariance = xs.reduce((sum, x, i) => sum + (x - meanX) * (ys[i]! - meanY), 0);
  const variance = xs.reduce((sum, x) => sum + (x - meanX) ** 2, 0);
  return {
    afterWarmUpMiB: ys[0] ?? Number.NaN,
    endMiB: ys.at(-1) ?? Number.NaN,
    maxMiB: Math.max(...samples.map((s) => s.rssBytes / MiB)),
    slopeMiBPerMinute: variance > 0 ? covariance / variance : 0,
  };
}

export async function runSoak(
  options: BenchOptions,
  database: BenchDatabase | null,
  defer: Defer,
  log: Log,
): Promise<SoakResult> {
  const soak = new SoakRun(options, database, defer, log);
  await soak.setUp();
  await soak.load();
  const drainSeconds = await soak.drain();
  const deliveries = await soak.deliveries();
  const bare = await soak.bare();
  return soak.result(drainSeconds, deliveries, bare);
}

const fixed = (value: number, digits = 1) => (Number.isFinite(value) ? value.toFixed(digits) : "–");

export function formatSoak(result: SoakResult): string {
  const lines = [
    `Soak (issue 36): ${result.minutes} min, ${result.users} virtual users, ${result.organizations} organizations, ${result.engine}`,
    `journeys: ${result.journeys.forms} forms (4 autosaves, upload, submit), ${result.journeys.signatures} signatures (A1, open, sign, seal), ${result.journeys.staff} staff rounds`,
    "",
    "| route | calls | errors | p50 ms | p99 ms |",
    "| --- | ---: | ---: | ---: | ---: |",
    ...result.routes.map((r) => `| ${r.route} | ${r.count} | ${r.errors} | ${fixed(r.p50Ms)} | ${fixed(r.p99Ms)} |`),
    "",
    `errors: ${result.errors}${result.errorSamples.length ? ` — first: ${result.errorSamples.join(" / ")}` : ""}`,
    `RSS: ${fixed(result.rss.afterWarmUpMiB)} MiB after warm-up, ${fixed(result.rss.endMiB)} MiB at the end, max ${fixed(result.rss.maxMiB)} MiB; slope after warm-up ${fixed(result.rss.slopeMiBPerMinute, 2)} MiB/min`,
    `queue: max ${result.queue.maxDepth} jobs due or running, max lag ${fixed(result.queue.maxLagSeconds)} s, drained ${fixed(result.queue.drainSeconds)} s after the load`,
    `deliveries: ${result.deliveries.webhooks} webhooks and ${result.deliveries.fhirBundles} FHIR Bundles received; ${result.deliveries.failedDeliveries} deliveries and ${result.deliveries.failedJobs} jobs failed for good`,
    result.bare
      ? `F7 under the soak p50 ${fixed(result.bare.f7SoakP50Ms)} ms vs the bare upsert alone p50 ${fixed(result.bare.f7BareP50Ms)} ms at ${result.users} connections: ${fixed(result.bare.ratio, 2)}×`
      : "bare baseline: PostgreSQL runs only (DATABASE_URL)",
    "RSS over time (s: MiB, queue depth, lag s): " +
      result.samples
        .filter((_, i) => i % 12 === 0)
        .map(
          (s) => `${s.atSeconds}: ${fixed(s.rssBytes / 1048576, 0)}, ${s.queueDepth}, ${fixed(s.queueLagSeconds, 0)}`,
        )
        .join(" · "),
  ];
  return lines.join("\n");
}
