import { createTRPCClient, httpBatchLink } from "@trpc/client";
import type { AppRouter } from "@clinsign/api/router";

/**
 * The tRPC client of the form pages: the plain client, without the query cache the admin UI
 * uses (a patient's phone downloads less). Queries go as POST so credentials stay out of URLs;
 * an embedded form's session travels in the `x-session-id` header.
 */
export function createPatientApi(sessionId?: string) {
  return createTRPCClient<AppRouter>({
    links: [httpBatchLink({ url: "/trpc", methodOverride: "POST", headers: () => (sessionId ? { "x-session-id": sessionId } : {}) })],
  });
}

export type PatientApi = ReturnType<typeof createPatientApi>;
