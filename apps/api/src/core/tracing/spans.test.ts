import { randomBytes } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Database } from "@clinsign/db";
import {
  cliJson,
  freePort,
  killApiProcess,
  processEnvironment,
  signalApiProcess,
  startApiProcess,
  waitFor,
} from "../../testing/api-process";
import { startReceiver, type Receiver } from "../../testing/receiver";

/** A span as OTLP/JSON carries it, with its attributes flattened. */
interface ExportedSpan {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  attributes: Record<string, unknown>;
}

type OtlpValue = { stringValue?: string; intValue?: string | number; boolValue?: boolean };
interface OtlpExport {
  resourceSpans: {
    scopeSpans: {
      spans: (Omit<ExportedSpan, "attributes"> & { attributes?: { key: string; value: OtlpValue }[] })[];
    }[];
  }[];
}

function spansOf(bodies: string[]): ExportedSpan[] {
  return bodies.flatMap((body) =>
    (JSON.parse(body) as OtlpExport).resourceSpans.flatMap((resource) =>
      resource.scopeSpans.flatMap((scope) =>
        scope.spans.map((span) => ({
          ...span,
          attributes: Object.fromEntries(
            (span.attributes ?? []).map(({ key, value }) => [
              key,
              value.stringValue ?? value.intValue ?? value.boolValue,
            ]),
          ),
        })),
      ),
    ),
  );
}

describe("traces (OTLP over HTTP)", () => {
  const dataDir = mkdtempSync(join(tmpdir(), "clinsign-traces-"));
  let collector: Receiver;
  let hooks: Receiver;
  let database: (Database & { url?: string }) | undefined;
  const logs: string[] = [];
  const secrets = {
    patientId: `PAT-${randomBytes(5).toString("hex")}`,
    patientName: `Erika Mustermann ${randomBytes(3).toString("hex")}`,
    hookPath: `/hook-${randomBytes(5).toString("hex")}`,
  };
  const traceId = randomBytes(16).toString("hex");
  const parentSpanId = randomBytes(8).toString("hex");
  let spans: ExportedSpan[] = [];
  let exported = "";
  let token = "";

  beforeAll(async () => {
    [collector, hooks] = await Promise.all([startReceiver(), startReceiver()]);
    let env: Record<string, string>;
    ({ env, database } = await processEnvironment(dataDir, {
      LOG_LEVEL: "info",
      ALLOW_INSECURE_HTTP: "true",
      OUTBOUND_ALLOW_HOSTS: `127.0.0.1:${hooks.port}`,
      OTEL_EXPORTER_OTLP_ENDPOINT: collector.url,
      OTEL_BSP_SCHEDULE_DELAY: "100",
    }));
    const org = await cliJson(env, "org", "create", "--name", "Trace Klinik");
    token = org.token!;
    await cliJson(env, "org", "configure", "--org", org.orgId!, "--webhook-url", `${hooks.url}${secrets.hookPath}`);

    const port = await freePort();
    const api = await startApiProcess(env, port, (text) => logs.push(...text.split("\n").filter(Boolean)));
    try {
      const base = `http://127.0.0.1:${port}`;
      const bearer = { authorization: `Bearer ${token}` };
      const traced = await fetch(`${base}/signature-requests?patient_id=${secrets.patientId}`, {
        headers: { ...bearer, traceparent: `00-${traceId}-${parentSpanId}-01` },
      });
      expect(traced.status).toBe(200);
      const created = await fetch(`${base}/api/embed/templates`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ token, orgId: org.orgId, title: "Anamnese", status: "active" }),
      }).then((r) => r.json() as Promise<{ template: { identifier: string } }>);
      const event = await fetch(`${base}/api/embed/webhook-event`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({
          token,
          orgId: org.orgId,
          templateIdentifier: created.template.identifier,
          event: "form.opened",
          data: { name: secrets.patientName },
        }),
      });
      expect(event.status).toBe(200);
      expect(hooks.requests).toHaveLength(1);
      // SIGTERM flushes the spans not yet exported.
      expect((await signalApiProcess(api, "SIGTERM")).code).toBe(0);
    } finally {
      await killApiProcess(api);
    }
    await waitFor(() => collector.requests.some((r) => r.path === "/v1/traces"), 10_000);
    const bodies = collector.requests.filter((r) => r.path === "/v1/traces").map((r) => r.body);
    exported = bodies.join("\n");
    spans = spansOf(bodies);
  }, 90_000);

  afterAll(async () => {
    await Promise.all([collector?.close(), hooks?.close()]);
    await database?.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it("makes each request a span named by its route template, continuing the caller's trace", () => {
    const request = spans.find((span) => span.traceId === traceId && span.parentSpanId === parentSpanId);
    expect(request).toMatchObject({
      name: "GET /signature-requests",
      attributes: { "http.route": "/signature-requests", "http.response.status_code": 200 },
    });
    expect(spans.map((span) => span.name)).toContain("POST /api/embed/templates");
  });

  it("shows each SQL statement of a request by its kind and table, beneath the request", () => {
    const request = spans.find((span) => span.traceId === traceId && span.parentSpanId === parentSpanId)!;
    const statements = spans.filter((span) => span.traceId === traceId && span.name.startsWith("db "));
    expect(statements.map((span) => span.name)).toContain("db select from signature_requests");
    expect(statements.every((span) => span.attributes["db.system.name"] === "postgresql")).toBe(true);
    // Beneath the request: directly, or inside another span of it.
    const ids = new Set(spans.filter((span) => span.traceId === traceId).map((span) => span.spanId));
    expect(statements.every((span) => span.parentSpanId && ids.has(span.parentSpanId))).toBe(true);
    expect(ids.has(request.spanId)).toBe(true);
  });

  it("traces the webhook's job and its outbound call beneath it", () => {
    const job = spans.find((span) => span.name === "job webhook.deliver");
    const call = spans.find((span) => span.name === "outbound webhook");
    expect(job?.attributes).toMatchObject({ "clinsign.job.kind": "webhook.deliver", "clinsign.job.outcome": "done" });
    expect(call).toMatchObject({ traceId: job!.traceId, parentSpanId: job!.spanId });
    expect(call!.attributes).toMatchObject({
      "clinsign.outbound.purpose": "webhook",
      "http.response.status_code": 200,
    });
  });

  it("writes the trace id into the log lines of a traced request", () => {
    const lines = logs.map((line) => JSON.parse(line) as { msg?: string; trace_id?: string; path?: string });
    expect(lines.find((line) => line.msg === "request" && line.path === "/signature-requests")?.trace_id).toBe(traceId);
  });

  it("exports no patient data, credential or customer URL in any span", () => {
    expect(spans.length).toBeGreaterThan(3);
    for (const value of [secrets.patientId, secrets.patientName, secrets.hookPath, token]) {
      expect(exported).not.toContain(value);
    }
  });
});
