import type { SsoLookupOutput } from "@clinsign/contracts";
import { useQuery } from "@tanstack/react-query";
import { useEffect, useState } from "react";
import { useTRPC } from "../../trpc/client";

/** A single sign-on provider the login page offers: whose it is, and the name on its button. */
export type SsoProvider = NonNullable<SsoLookupOutput["provider"]>;

/** The domain of a typed address once it looks complete (`name@host.tld`), else null. */
function typedDomain(email: string): string | null {
  const match = /^[^\s@]+@([^\s@]+\.[a-z]{2,})$/i.exec(email.trim());
  return match ? match[1]!.toLowerCase() : null;
}

/** Where the provider's button leads: its organization, and the typed address as a hint once complete. */
export function ssoStartUrl(organizationId: string, email: string): string {
  const params = new URLSearchParams({ org: organizationId });
  if (typedDomain(email)) params.set("login_hint", email.trim());
  return `/sso/start?${params}`;
}

/**
 * The provider to offer: the organization's of the login URL, else the one whose e-mail domain the
 * typed address has (asked once typing pauses). Only domains named for single sign-on answer, so
 * this reveals nothing about accounts.
 */
export function useSsoProvider(organizationId: string | null, email: string): SsoProvider | null {
  const trpc = useTRPC();
  const [domain, setDomain] = useState<string | null>(null);
  useEffect(() => {
    const timer = setTimeout(() => setDomain(typedDomain(email)), 300);
    return () => clearTimeout(timer);
  }, [email]);
  const byOrganization = useQuery({
    ...trpc.auth.ssoProvider.queryOptions({ organizationId: organizationId ?? "" }),
    enabled: organizationId !== null,
    staleTime: 60_000,
  });
  const byDomain = useQuery({
    ...trpc.auth.ssoProvider.queryOptions({ email: `x@${domain ?? ""}` }),
    enabled: domain !== null,
    staleTime: 60_000,
  });
  return byDomain.data?.provider ?? byOrganization.data?.provider ?? null;
}
