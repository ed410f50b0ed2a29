import { me as meSchema, type Me } from "@clinsign/contracts";
import { cookies, headers } from "next/headers";
import { apiOrigin } from "./api-origin";
import { STAFF_SESSION_COOKIE } from "./cookies";

export type SessionCheck = { status: "signed-in"; me: Me } | { status: "signed-out" } | { status: "unknown" };

/**
 * Asks the API who the request's session cookie belongs to (server side, before rendering).
 * `unknown` when the API could not answer: the page then renders and the client retries.
 */
export async function checkSession(): Promise<SessionCheck> {
  const session = (await cookies()).get(STAFF_SESSION_COOKIE)?.value;
  if (!session) return { status: "signed-out" };
  const incoming = await headers();
  const forwarded: Record<string, string> = {
    cookie: `${STAFF_SESSION_COOKIE}=${session}`,
    accept: "application/json",
  };
  for (const name of ["user-agent", "accept-language", "x-forwarded-for"]) {
    const value = incoming.get(name);
    if (value) forwarded[name] = value;
  }
  try {
    const response = await fetch(`${apiOrigin()}/trpc/auth.me`, {
      headers: forwarded,
      cache: "no-store",
      signal: AbortSignal.timeout(5_000),
    });
    if (response.status === 401) return { status: "signed-out" };
    if (!response.ok) return { status: "unknown" };
    const body = (await response.json()) as { result?: { data?: unknown } };
    const parsed = meSchema.safeParse(body.result?.data);
    return parsed.success ? { status: "signed-in", me: parsed.data } : { status: "unknown" };
  } catch {
    return { status: "unknown" };
  }
}
