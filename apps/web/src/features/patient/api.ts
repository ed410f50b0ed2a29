import type { AppRouter } from "@clinsign/api/router";
import type { inferRouterInputs, inferRouterOutputs } from "@trpc/server";

/**
 * The form pages' door to the API: tRPC's HTTP protocol over `fetch`, typed from the router.
 * Patient phones download this instead of the tRPC client and query cache the admin UI uses
 * (the pages have a 150 KB budget). Every call is a POST, so credentials stay out of URLs; an
 * embedded form's session travels in the `x-session-id` header, and the SMS portal calls through
 * `/f/trpc`, the path its HTTP-only access cookie is scoped to.
 */

type Inputs = inferRouterInputs<AppRouter>;
type Outputs = inferRouterOutputs<AppRouter>;
type Procedure = { [R in keyof Inputs & string]: `${R}.${keyof Inputs[R] & string}` }[keyof Inputs & string];
type InputOf<P extends Procedure> = P extends `${infer R extends keyof Inputs & string}.${infer N}`
  ? N extends keyof Inputs[R]
    ? Inputs[R][N]
    : never
  : never;
type OutputOf<P extends Procedure> = P extends `${infer R extends keyof Outputs & string}.${infer N}`
  ? N extends keyof Outputs[R]
    ? Outputs[R][N]
    : never
  : never;

/** A refusal or failure, with the error data the API's formatter sends (see trpc/errors.ts). */
export class ApiCallError extends Error {
  constructor(
    message: string,
    readonly data: Record<string, unknown> | undefined,
  ) {
    super(message);
  }
}

export interface PatientApi {
  call<P extends Procedure>(procedure: P, input: InputOf<P>): Promise<OutputOf<P>>;
}

export function createPatientApi(options: { sessionId?: string; url?: "/trpc" | "/f/trpc" } = {}): PatientApi {
  const { sessionId, url = "/trpc" } = options;
  return {
    async call(procedure, input) {
      const response = await fetch(`${url}/${procedure}`, {
        method: "POST",
        headers: { "content-type": "application/json", ...(sessionId ? { "x-session-id": sessionId } : {}) },
        body: input === undefined ? undefined : JSON.stringify(input),
        cache: "no-store",
      });
      const body = (await response.json().catch(() => null)) as {
        result?: { data: unknown };
        error?: { message?: string; data?: Record<string, unknown> };
      } | null;
      // The procedure's output type (the router's, at the call site); the wire says nothing of it.
      if (response.ok && body?.result) return body.result.data as never;
      // No error body: the web server's proxy or the network answered, not the API.
      throw new ApiCallError(
        body?.error?.message ?? `HTTP ${response.status}`,
        body?.error?.data ?? (response.status >= 500 ? { code: "BAD_GATEWAY" } : undefined),
      );
    },
  };
}
