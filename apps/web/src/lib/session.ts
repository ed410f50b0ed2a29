import { me as meSchema, type Me } from "@clinsign/contracts";
import { cookies } from "next/headers";
import { queryApi } from "./api-server";
import { STAFF_SESSION_COOKIE } from "./cookies";

export type SessionCheck = { status: "signed-in"; me: Me } | { status: "signed-out" } | { status: "unknown" };

/**
 * Asks the API who the request's session cookie belongs to (server side, before rendering).
 * `unknown` when the API could not answer: the page then renders and the client retries.
 */
export async function checkSession(): Promise<SessionCheck> {
  const staffSessionCookie = (await cookies()).get(STAFF_SESSION_COOKIE)?.value;
  if (!staffSessionCookie) return { status: "signed-out" };
  const answer = await queryApi("auth.me", undefined, meSchema, {
    cookie: `${STAFF_SESSION_COOKIE}=${staffSessionCookie}`,
    timeoutMs: 5_000,
  });
  if (answer.kind === "ok") return { status: "signed-in", me: answer.data };
  if (answer.kind === "refused" && answer.status === 401) return { status: "signed-out" };
  return { status: "unknown" };
}
