import { createTRPCClient, httpBatchLink } from "@trpc/client";
import type { AppRouter } from "@clinsign/api/router";

/**
 * The tRPC client of the form pages: the plain client, without the query cache the admin UI
 * uses (a patient's phone downloads less). Queries go as POST so credentials stay out of URLs;
 * an embedded form's session travels in the `x-session-id` header. The SMS portal calls through
 * `/f/trpc`, the path its HTTP-only access cookie is scoped to.
 */
export function createPatientApi(options: { sessionId?: string; url?: "/trpc" | "/f/trpc" } = {}) {
  const { sessionId, url = "/trpc" } = options;
  return createTRPCClient<AppRouter>({
    links: [httpBatchLink({ url, methodOverride: "POST", headers: () => (sessionId ? { "x-session-id": sessionId } : {}) })],
  });
}

export type PatientApi = ReturnType<typeof createPatientApi>;
