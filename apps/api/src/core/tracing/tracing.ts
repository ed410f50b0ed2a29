import {
  context,
  isSpanContextValid,
  propagation,
  SpanKind,
  SpanStatusCode,
  trace,
  type Attributes,
  type Span,
} from "@opentelemetry/api";

/**
 * Traces (issue 36): one trace per request and per job, with spans for storage, the PDF worker,
 * calls to other servers and SQL statements (database-spans.ts). Off unless OTEL_EXPORTER_OTLP_ENDPOINT is set (http/tracing-sdk.ts starts
 * the SDK); until then every call here is OpenTelemetry's no-op and costs next to nothing.
 *
 * Attributes are names the code chose (a route template, a job kind, a purpose, a task) and
 * outcomes: never an id, a path, a URL, a query, an address or anything a patient or a customer
 * typed. `spans.test.ts` scans every exported attribute for the values a test sent.
 */
const tracer = trace.getTracer("clinsign");

/** Runs `work` inside a span named `name`; an error marks the span failed and passes on. */
export async function inSpan<T>(
  name: string,
  attributes: Attributes,
  work: (span: Span) => Promise<T>,
  kind: SpanKind = SpanKind.INTERNAL,
): Promise<T> {
  return tracer.startActiveSpan(name, { kind, attributes }, async (span) => {
    try {
      return await work(span);
    } catch (error) {
      // The error's class only: its message may quote what a caller sent.
      span.setStatus({ code: SpanStatusCode.ERROR, message: error instanceof Error ? error.name : "error" });
      throw error;
    } finally {
      span.end();
    }
  });
}

/**
 * A request's span, continuing the caller's trace when it sent a W3C `traceparent`: `run(work)`
 * runs the handling in its context; the caller ends the span when the answer is sent.
 */
export function startRequestSpan(
  headers: Record<string, string | string[] | undefined>,
  method: string,
): { span: Span; run<T>(work: () => T): T } {
  const parent = propagation.extract(context.active(), headers);
  const span = tracer.startSpan(
    `HTTP ${method}`,
    { kind: SpanKind.SERVER, attributes: { "http.request.method": method } },
    parent,
  );
  const spanContext = trace.setSpan(parent, span);
  return { span, run: (work) => context.with(spanContext, work) };
}

/** Ends a request's span once answered, named and labelled by its route template (never its path). */
export function endRequestSpan(span: Span, answer: { method: string; route: string; status: number }): void {
  span.updateName(`${answer.method} ${answer.route}`);
  span.setAttributes({ "http.route": answer.route, "http.response.status_code": answer.status });
  if (answer.status >= 500) span.setStatus({ code: SpanStatusCode.ERROR });
  span.end();
}

/** The active trace's ids for a log line (pino's mixin), or nothing outside a trace. */
export function traceFields(): { trace_id?: string; span_id?: string } {
  const span = trace.getActiveSpan();
  if (!span) return {};
  const spanContext = span.spanContext();
  // Tracing off: the no-op span's ids are invalid (all zeros), nothing to correlate.
  if (!isSpanContextValid(spanContext)) return {};
  return { trace_id: spanContext.traceId, span_id: spanContext.spanId };
}

export { SpanKind, type Span };
