/**
 * autocannon with a body (or path) built per request, for the write scenarios (A1, F7, F10) that
 * need a unique patient, draftKey or rnummer on every call. Latencies are taken from the
 * `response` events, as in ../load.ts, so p50/p99 keep sub-millisecond resolution.
 */
import autocannon from "autocannon";
import { percentile, type LoadResult } from "../load";

export interface RequestSpec {
  method: "GET" | "POST";
  path: string;
  headers?: Record<string, string>;
  /** Called once per request with a counter unique within this run; returns the JSON body. */
  body?: (n: number) => unknown;
}

export interface RequestLoadOptions {
  connections: number;
  durationSeconds: number;
  /** Hard cap on requests, so even a very fast server ends the loop by count as well as by time. */
  maxRequests?: number;
}

export async function runRequestLoad(baseUrl: string, spec: RequestSpec, options: RequestLoadOptions): Promise<LoadResult> {
  let counter = 0;
  const headers = { ...(spec.body ? { "content-type": "application/json" } : {}), ...spec.headers };
  const latencies: number[] = [];
  const request: autocannon.Request = {
    method: spec.method,
    path: spec.path,
    headers,
    ...(spec.body && { setupRequest: (req: autocannon.Request) => ({ ...req, body: JSON.stringify(spec.body!(counter++)) }) }),
  };
  const result = await new Promise<autocannon.Result>((resolveResult, reject) => {
    const instance = autocannon(
      {
        url: baseUrl,
        connections: options.connections,
        duration: options.durationSeconds,
        ...(options.maxRequests !== undefined && { maxOverallRequests: options.maxRequests }),
        pipelining: 1,
        timeout: 10,
        requests: [request],
      },
      (error: unknown, finished: autocannon.Result) => (error ? reject(error) : resolveResult(finished)),
    );
    instance.on("response", (_client, statusCode, _bytes, responseTime) => {
      if (statusCode >= 200 && statusCode < 300) latencies.push(responseTime);
    });
  });
  const sorted = Float64Array.from(latencies).sort();
  return {
    requestsPerSecond: result["2xx"] / result.duration,
    p50Ms: percentile(sorted, 50),
    p99Ms: percentile(sorted, 99),
    ok: result["2xx"],
    failed: result.non2xx + result.errors,
    durationSeconds: result.duration,
  };
}
