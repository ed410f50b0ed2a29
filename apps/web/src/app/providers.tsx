"use client";

import { MutationCache, QueryCache, QueryClient, QueryClientProvider } from "@tanstack/react-query";
import { createTRPCClient, httpBatchLink } from "@trpc/client";
import type { AppRouter } from "@clinsign/api/router";
import { useState, type ReactNode } from "react";
import { I18nProvider } from "../i18n/I18nProvider";
import type { Lang } from "../i18n";
import { dictionaries } from "../i18n/dictionaries";
import { loginPath } from "../lib/paths";
import { isClientError, isUnauthorized } from "../trpc/errors";
import { TRPCProvider } from "../trpc/client";

/**
 * The signed-out pages (sign-in, an organization's sign-in, connecting a provider, an invitation)
 * answer their own 401s: a wrong password there is that page's message, not an ended session.
 */
const isSignedOutPage = (path: string) => path === "/login" || path.startsWith("/login/") || path === "/invite";

/** A session that ended while a page was open: go to the sign-in page and come back afterwards. */
function redirectToLoginOnUnauthorized(error: unknown) {
  if (!isUnauthorized(error) || isSignedOutPage(window.location.pathname)) return;
  window.location.assign(loginPath(window.location.pathname + window.location.search, "expired"));
}

function makeQueryClient() {
  return new QueryClient({
    queryCache: new QueryCache({ onError: redirectToLoginOnUnauthorized }),
    mutationCache: new MutationCache({ onError: redirectToLoginOnUnauthorized }),
    defaultOptions: {
      queries: {
        staleTime: 30_000,
        refetchOnWindowFocus: false,
        retry: (failureCount, error) => !isClientError(error) && failureCount < 2,
      },
      mutations: { retry: false },
    },
  });
}

export function Providers({ lang, children }: { lang: Lang; children: ReactNode }) {
  const [queryClient] = useState(makeQueryClient);
  // Same origin: the web server proxies /trpc to the API (app/trpc/[...trpc]/route.ts).
  const [trpcClient] = useState(() => createTRPCClient<AppRouter>({ links: [httpBatchLink({ url: "/trpc" })] }));
  return (
    <QueryClientProvider client={queryClient}>
      <TRPCProvider trpcClient={trpcClient} queryClient={queryClient}>
        <I18nProvider lang={lang} scope="staff" dictionaries={dictionaries}>
          {children}
        </I18nProvider>
      </TRPCProvider>
    </QueryClientProvider>
  );
}
