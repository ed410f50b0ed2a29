import { createTRPCClient, httpLink } from "@trpc/client";
import type { AppRouter } from "../trpc/root";

/** What a test reads of an answer: status, parsed JSON body (or the text) and headers. */
export interface TestResponse {
  status: number;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- tests assert on arbitrary JSON
  body: any;
  headers: Headers;
}

export type TestRequest = (
  method: string,
  path: string,
  options?: { body?: unknown; headers?: Record<string, string> },
) => Promise<TestResponse>;

/** JSON requests to an API at `baseUrl` (in this process or its own). */
export function jsonRequests(baseUrl: string): TestRequest {
  return async (method, path, options = {}) => {
    const response = await fetch(`${baseUrl}${path}`, {
      method,
      headers: { ...(options.body !== undefined && { "content-type": "application/json" }), ...options.headers },
      body:
        options.body === undefined
          ? undefined
          : typeof options.body === "string"
            ? options.body
            : JSON.stringify(options.body),
    });
    const text = await response.text();
    let body: unknown = text;
    try {
      body = JSON.parse(text);
    } catch {
      // not JSON; keep the text
    }
    return { status: response.status, body, headers: response.headers };
  };
}

/** A tRPC client of the API at `baseUrl`, acting with the given bearer token, cookie or embed session. */
export function trpcClient(baseUrl: string, credentials: { bearer?: string; cookie?: string; sessionId?: string }) {
  return createTRPCClient<AppRouter>({
    links: [
      httpLink({
        url: `${baseUrl}/trpc`,
        headers: () => ({
          ...(credentials.bearer && { authorization: `Bearer ${credentials.bearer}` }),
          ...(credentials.cookie && { cookie: credentials.cookie }),
          ...(credentials.sessionId && { "x-session-id": credentials.sessionId }),
        }),
      }),
    ],
  });
}
