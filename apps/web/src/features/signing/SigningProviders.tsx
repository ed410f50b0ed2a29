"use client";

import { QueryClient, QueryClientProvider } from "@tanstack/react-query";
import { createTRPCClient, httpBatchLink } from "@trpc/client";
import type { AppRouter } from "@clinsign/api/router";
import { useState, type ReactNode } from "react";
import { TRPCProvider } from "../../trpc/client";
import { isClientError } from "../../trpc/errors";

/**
 * The signing portal's own query client. The app-wide one sends UNAUTHORIZED answers to the staff
 * sign-in page; for a patient, UNAUTHORIZED means the signing session ended, which the signing
 * page explains itself.
 */
function makePatientQueryClient() {
  return new QueryClient({
    defaultOptions: {
      queries: {
        staleTime: Infinity,
        refetchOnWindowFocus: false,
        retry: (failureCount, error) => !isClientError(error) && failureCount < 2,
      },
      mutations: { retry: false },
    },
  });
}

export function SigningProviders({ children }: { children: ReactNode }) {
  const [queryClient] = useState(makePatientQueryClient);
  // POST for queries too: the signing-session token travels in the body, never in a URL that proxies log.
  const [trpcClient] = useState(() =>
    createTRPCClient<AppRouter>({ links: [httpBatchLink({ url: "/trpc", methodOverride: "POST" })] }),
  );
  return (
    <QueryClientProvider client={queryClient}>
      <TRPCProvider trpcClient={trpcClient} queryClient={queryClient}>
        {children}
      </TRPCProvider>
    </QueryClientProvider>
  );
}
