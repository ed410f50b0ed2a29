import { randomBytes, randomUUID } from "node:crypto";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { enqueueJob } from "../core/jobs/queue";
import { guardedFetch } from "../core/outbound/guarded-fetch";
import { watchForMetrics } from "../core/metrics/scraped-state";
import { startTestApi, type TestApi, type TestOrg } from "../testing/harness";
import { createMetricsServer } from "./metrics";

const METRICS_TOKEN = randomBytes(24).toString("hex");

/** The value of one series in Prometheus' text format (0 when absent). */
function sample(text: string, name: string, labels: Record<string, string>): number {
  const wanted = Object.entries(labels).map(([key, value]) => `${key}="${value}"`);
  const line = text
    .split("\n")
    .find((l) => l.startsWith(`${name}{`) && wanted.every((label) => l.slice(0, l.lastIndexOf("} ")).includes(label)));
  return line ? Number(line.slice(line.lastIndexOf(" ") + 1)) : 0;
}

describe("/metrics", () => {
  let api: TestApi;
  let closedApi: TestApi;
  let org: TestOrg;
  const scrape = async () => {
    const res = await fetch(`${api.baseUrl}/metrics`, { headers: { authorization: `Bearer ${METRICS_TOKEN}` } });
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toContain("text/plain");
    return res.text();
  };

  beforeAll(async () => {
    [api, closedApi] = await Promise.all([startTestApi({ METRICS_TOKEN }), startTestApi()]);
    watchForMetrics(api.services);
    org = await api.createOrg();
  });
  afterAll(async () => {
    await Promise.all([api?.close(), closedApi?.close()]);
  });

  it("is no endpoint without METRICS_TOKEN, and wants the token when there is one", async () => {
    const absent = await closedApi.request("GET", "/metrics");
    expect(absent.status).toBe(404);
    expect(absent.body.error.code).toBe("not_found");
    expect((await api.request("GET", "/metrics")).status).toBe(401);
    const wrong = await api.request("GET", "/metrics", { headers: { authorization: `Bearer ${"x".repeat(48)}` } });
    expect(wrong.status).toBe(401);
    expect(await scrape()).toContain("clinsign_process_resident_memory_bytes");
  });

  it("counts requests by route template, never by the path or a patient's value", async () => {
    const documentId = randomUUID();
    const patientId = `PAT-${randomBytes(6).toString("hex")}`;
    const headers = { authorization: `Bearer ${org.token}` };
    const before = await scrape();
    const labels = { method: "DELETE", route: "/documents/{id}", status: "404" };
    expect((await api.request("DELETE", `/documents/${documentId}`, { headers })).status).toBe(404);
    await api.request("GET", `/signature-requests?patient_id=${patientId}`, { headers });
    await api.request("GET", `/no/such/${patientId}`);
    await api.request("POST", `/trpc/${patientId}`, { body: {} });
    const after = await scrape();

    expect(sample(after, "clinsign_http_requests_total", labels)).toBe(
      sample(before, "clinsign_http_requests_total", labels) + 1,
    );
    expect(sample(after, "clinsign_http_request_duration_seconds_count", { route: "/documents/{id}" })).toBeGreaterThan(
      0,
    );
    expect(after).toContain('route="/signature-requests"');
    expect(after).toContain('route="(unmatched)"');
    expect(after).toContain('route="/trpc/(unknown)"');
    expect(after).not.toContain(documentId);
    expect(after).not.toContain(patientId);
  });

  it("shows the job queue's depth and how long its oldest due job waited", async () => {
    const kind = `metrics.test.${randomBytes(3).toString("hex")}`;
    await enqueueJob(api.services.db, {
      organizationId: org.orgId,
      kind,
      payload: {},
      maxAttempts: 1,
      runAt: new Date(Date.now() - 90_000),
    });
    await enqueueJob(api.services.db, {
      organizationId: org.orgId,
      kind,
      payload: {},
      maxAttempts: 1,
      runAt: new Date(Date.now() + 3600_000),
    });
    const text = await scrape();
    expect(sample(text, "clinsign_job_queue_depth", { kind, state: "pending" })).toBe(2);
    expect(sample(text, "clinsign_job_queue_depth", { kind, state: "due" })).toBe(1);
    expect(sample(text, "clinsign_job_oldest_due_age_seconds", { kind })).toBeGreaterThanOrEqual(89);
    expect(text).toMatch(/clinsign_audit_chain_lag\{measure="entries"\} \d+/);
    expect(sample(text, "clinsign_db_connections", { state: "pool_size" })).toBe(api.services.database.poolSize);
    expect(text).toContain('clinsign_pdf_worker_tasks{lane="documents",state="running"}');
  });

  it("counts outbound calls by purpose and outcome, refusals included", async () => {
    const labels = { purpose: "webhook", outcome: "blocked_address" };
    const before = sample(await scrape(), "clinsign_outbound_calls_total", labels);
    await expect(
      guardedFetch("https://10.1.2.3/hook", { allowHosts: [] }, { timeoutMs: 1000, maxBytes: 10, purpose: "webhook" }),
    ).rejects.toThrow();
    expect(sample(await scrape(), "clinsign_outbound_calls_total", labels)).toBe(before + 1);
  });

  it("serves /metrics alone on METRICS_PORT's listener", async () => {
    const server = createMetricsServer();
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    try {
      const metrics = await fetch(`${base}/metrics`);
      expect(metrics.status).toBe(200);
      expect(await metrics.text()).toContain("clinsign_http_requests_total");
      expect((await fetch(`${base}/healthz`)).status).toBe(404);
      expect((await fetch(`${base}/metrics`, { method: "POST" })).status).toBe(404);
    } finally {
      server.close();
    }
  });
});
