/**
 * autocannon with a body (or path) built per request, for the write scenarios (A1, F7, F10) that
 * need a unique patient, draftKey or rnummer on every call, measured by ../load.ts.
 */
import autocannon from "autocannon";
import { runLoad, type LoadResult } from "../load";

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

export async function runRequestLoad(
  baseUrl: string,
  spec: RequestSpec,
  options: RequestLoadOptions,
): Promise<LoadResult> {
  let counter = 0;
  const headers = { ...(spec.body ? { "content-type": "application/json" } : {}), ...spec.headers };
  const request: autocannon.Request = {
    method: spec.method,
    path: spec.path,
    headers,
    ...(spec.body && {
      setupRequest: (req: autocannon.Request) => ({ ...req, body: JSON.stringify(spec.body!(counter++)) }),
    }),
  };
  return runLoad(baseUrl, options, {
    requests: [request],
    ...(options.maxRequests !== undefined && { maxOverallRequests: options.maxRequests }),
  });
}
