import autocannon from "autocannon";

export interface LoadResult {
  /** 2xx responses per second over the measured time. */
  requestsPerSecond: number;
  p50Ms: number;
  p99Ms: number;
  /** 2xx responses in total. */
  ok: number;
  /** Non-2xx answers plus connection errors and timeouts; anything but 0 makes the row suspect. */
  failed: number;
  durationSeconds: number;
}

/** Nearest-rank percentile of an ascending array. */
function percentile(sorted: Float64Array, p: number): number {
  if (sorted.length === 0) return Number.NaN;
  const rank = Math.ceil((p / 100) * sorted.length);
  return sorted[Math.min(sorted.length, Math.max(1, rank)) - 1]!;
}

/**
 * Drives `url` with autocannon for `durationSeconds` on `connections` keep-alive connections.
 * Latencies are collected from the `response` events rather than autocannon's histogram,
 * which stores whole milliseconds: /healthz answers well under 1 ms, and p50 would read 0 or 1.
 */
export async function runLoad(
  url: string,
  options: { connections: number; durationSeconds: number },
  /** More autocannon options (per-request bodies, a request cap) for the write scenarios. */
  extra: Partial<autocannon.Options> = {},
): Promise<LoadResult> {
  const latencies: number[] = [];
  const result = await new Promise<autocannon.Result>((resolveResult, reject) => {
    const instance = autocannon(
      {
        url,
        connections: options.connections,
        duration: options.durationSeconds,
        pipelining: 1,
        timeout: 10,
        ...extra,
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
