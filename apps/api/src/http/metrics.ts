import { createServer as createHttpServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { Services } from "../core/context";
import { safeEqual } from "../core/crypto";
import {
  httpRequests,
  httpRequestSeconds,
  metricsRegistry,
  rateLimitRefusals,
  secondsSince,
  statusClassOf,
} from "../core/metrics/metrics";
import { endRequestSpan, type Span } from "../core/tracing/tracing";
import { appRouter } from "../trpc/root";
import { bearerToken, sendJson } from "../wire/io";

const TRPC_PROCEDURES = new Set(Object.keys(appRouter._def.procedures));

/**
 * The label a tRPC call is counted under: its procedure, or `batch` for several at once. A name
 * that is no procedure is `unknown`, so a client cannot add series by inventing names.
 */
export function trpcRouteLabel(pathname: string): string {
  // Not decoded: procedure names need no escaping, and a malformed escape must not throw here.
  const names = pathname.slice("/trpc/".length).split(",");
  if (names.length > 1) return "/trpc/(batch)";
  return TRPC_PROCEDURES.has(names[0]!) ? `/trpc/${names[0]}` : "/trpc/(unknown)";
}

/**
 * Counts the request under `routeOf()` (read when the answer ends, after routing named it) and ends
 * its span with the same route template and status; a connection closed before the answer ends the
 * span too.
 */
export function observeWhenFinished(
  req: IncomingMessage,
  res: ServerResponse,
  span: Span,
  routeOf: () => string,
): void {
  const started = process.hrtime.bigint();
  res.on("finish", () => {
    const route = routeOf();
    const method = req.method ?? "GET";
    httpRequests.inc({ method, route, status: String(res.statusCode) });
    httpRequestSeconds.observe({ method, route, status_class: statusClassOf(res.statusCode) }, secondsSince(started));
    if (res.statusCode === 429) rateLimitRefusals.inc({ route });
    endRequestSpan(span, { method, route, status: res.statusCode });
  });
  res.on("close", () => {
    if (!res.writableFinished) span.end();
  });
}

async function sendMetrics(res: ServerResponse): Promise<void> {
  const body = await metricsRegistry.metrics();
  res.writeHead(200, { "content-type": metricsRegistry.contentType });
  res.end(body);
}

/**
 * `/metrics` on the API's port: only with METRICS_TOKEN set and sent as a Bearer token; otherwise
 * it is no endpoint at all (404, as any unknown path), so nothing is public by default.
 */
export async function serveMetricsOnApi(
  config: Services["config"],
  req: IncomingMessage,
  res: ServerResponse,
): Promise<boolean> {
  const { token } = config.metrics;
  if (!token) return false;
  const sent = bearerToken(req);
  if (!sent || !safeEqual(sent, token)) {
    sendJson(res, 401, { error: "unauthorized", message: "metrics need the METRICS_TOKEN as a Bearer token" });
    return true;
  }
  await sendMetrics(res);
  return true;
}

/** METRICS_PORT: a listener of its own that serves `/metrics` and nothing else (keep it private). */
export function createMetricsServer(): Server {
  return createHttpServer((req, res) => {
    if (req.method !== "GET" || (req.url ?? "").split("?")[0] !== "/metrics") {
      res.writeHead(404, { "content-type": "text/plain" }).end("not found\n");
      return;
    }
    sendMetrics(res).catch(() => {
      if (!res.headersSent) res.writeHead(500, { "content-type": "text/plain" });
      res.end("metrics unavailable\n");
    });
  });
}
