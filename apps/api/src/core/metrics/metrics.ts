import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from "prom-client";

/**
 * The process's Prometheus metrics (issue 36), served at `/metrics` (http/metrics.ts). One registry
 * per process, like the PDF workers and the in-process limits: what is measured is this process.
 *
 * Labels are names the code chose — a route template, a job kind, a lane, an outcome — never a raw
 * path, an organization, a token or anything a patient typed, so a label cannot carry patient data
 * and a client cannot grow the series without end.
 */
export const metricsRegistry = new Registry();
collectDefaultMetrics({ register: metricsRegistry, prefix: "clinsign_" });

/** Seconds buckets from a fast API call to a slow seal with its TSA and OCSP round trips. */
const SECONDS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60];

export const httpRequests = new Counter({
  name: "clinsign_http_requests_total",
  help: "Requests answered, by method, route template and status code.",
  labelNames: ["method", "route", "status"] as const,
  registers: [metricsRegistry],
});

export const httpRequestSeconds = new Histogram({
  name: "clinsign_http_request_duration_seconds",
  help: "Time from a request's arrival to the end of its answer, by method, route template and status class.",
  labelNames: ["method", "route", "status_class"] as const,
  buckets: SECONDS,
  registers: [metricsRegistry],
});

export const rateLimitRefusals = new Counter({
  name: "clinsign_rate_limit_refusals_total",
  help: "Requests refused with 429 (a rate limit, a concurrency limit or a full PDF queue), by route template.",
  labelNames: ["route"] as const,
  registers: [metricsRegistry],
});

export const jobAttempts = new Counter({
  name: "clinsign_job_attempts_total",
  help: "Background job attempts, by kind and outcome (done, retry, failed for good).",
  labelNames: ["kind", "outcome"] as const,
  registers: [metricsRegistry],
});

export const jobSeconds = new Histogram({
  name: "clinsign_job_duration_seconds",
  help: "Time one background job attempt took, by kind.",
  labelNames: ["kind"] as const,
  buckets: SECONDS,
  registers: [metricsRegistry],
});

export const sealSeconds = new Histogram({
  name: "clinsign_seal_duration_seconds",
  help: "Time sealing one signed request took (stamping, CMS, time stamp, LTV data, storing), by PAdES level and outcome.",
  labelNames: ["level", "outcome"] as const,
  buckets: SECONDS,
  registers: [metricsRegistry],
});

export const outboundCalls = new Counter({
  name: "clinsign_outbound_calls_total",
  help: "Calls to other servers (TSA, OCSP, CRL, webhooks, FHIR, OIDC …), by purpose and outcome (HTTP status class or the refusal).",
  labelNames: ["purpose", "outcome"] as const,
  registers: [metricsRegistry],
});

export const outboundSeconds = new Histogram({
  name: "clinsign_outbound_call_duration_seconds",
  help: "Time a call to another server took until its answer's headers, by purpose.",
  labelNames: ["purpose"] as const,
  buckets: SECONDS,
  registers: [metricsRegistry],
});

export const deliveries = new Counter({
  name: "clinsign_deliveries_total",
  help: "Webhook and FHIR push delivery attempts, by channel and outcome (delivered, retry, failed).",
  labelNames: ["channel", "outcome"] as const,
  registers: [metricsRegistry],
});

export const pdfWorkerSeconds = new Histogram({
  name: "clinsign_pdf_worker_busy_seconds",
  help: "Time a PDF worker spent on one task, by task and outcome.",
  labelNames: ["task", "outcome"] as const,
  buckets: SECONDS,
  registers: [metricsRegistry],
});

export const pdfWorkerRefusals = new Counter({
  name: "clinsign_pdf_worker_refusals_total",
  help: "PDF tasks turned away because their lane's queue was full, by lane.",
  labelNames: ["lane"] as const,
  registers: [metricsRegistry],
});

/** The status class a histogram keeps (2xx … 5xx): few series, and the counter has the codes. */
export const statusClassOf = (status: number) => `${Math.floor(status / 100)}xx`;

/** Seconds since `started` (a `process.hrtime.bigint()`). */
export const secondsSince = (started: bigint) => Number(process.hrtime.bigint() - started) / 1e9;

/** Registers a gauge whose value is read when Prometheus scrapes (for state that lives elsewhere). */
export function gaugeOnScrape<L extends string>(
  name: string,
  help: string,
  labelNames: readonly L[],
  read: (gauge: Gauge<L>) => Promise<void> | void,
): Gauge<L> {
  return new Gauge<L>({
    name,
    help,
    labelNames,
    registers: [metricsRegistry],
    async collect() {
      this.reset();
      await read(this);
    },
  });
}
