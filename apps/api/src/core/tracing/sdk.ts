import type { Config } from "../../env";
import { traceDatabaseStatements } from "./database-spans";

/**
 * Starts OpenTelemetry's Node SDK when OTEL_EXPORTER_OTLP_ENDPOINT is set: spans go to that
 * collector over OTLP/HTTP (`/v1/traces`; OTEL_EXPORTER_OTLP_HEADERS and the other OTEL_*
 * variables as the SDK reads them). No automatic instrumentation: the spans are ours
 * (core/tracing/tracing.ts, and a span per SQL statement named by its kind and table:
 * database-spans.ts), so no library writes a URL, a query or a statement's values into one.
 * Answers the function that flushes and stops it.
 */
export async function startTracing(config: Pick<Config, "tracing" | "databaseUrl">): Promise<() => Promise<void>> {
  if (!config.tracing.endpoint) return async () => {};
  const [{ NodeSDK }, { OTLPTraceExporter }] = await Promise.all([
    import("@opentelemetry/sdk-node"),
    import("@opentelemetry/exporter-trace-otlp-http"),
  ]);
  const sdk = new NodeSDK({
    serviceName: config.tracing.serviceName,
    traceExporter: new OTLPTraceExporter({ url: `${config.tracing.endpoint.replace(/\/+$/, "")}/v1/traces` }),
    instrumentations: [],
  });
  sdk.start();
  traceDatabaseStatements(config.databaseUrl ? "postgresql" : "pglite");
  return () => sdk.shutdown();
}
