import type { WebauthnCredentialJson } from "@clinsign/contracts";
import type { Dictionary } from "../../i18n";
import { browserSupportsWebAuthn, startAuthentication, startRegistration } from "@simplewebauthn/browser";

export type PasskeyOutcome<T> =
  { ok: true; response: T } | { ok: false; reason: "cancelled" | "unsupported" | "failed" };

/** Runs a browser WebAuthn ceremony; a closed prompt (NotAllowedError, AbortError) is "cancelled", not an error. */
async function ceremony<T>(run: () => Promise<T>): Promise<PasskeyOutcome<T>> {
  if (!browserSupportsWebAuthn()) return { ok: false, reason: "unsupported" };
  try {
    return { ok: true, response: await run() };
  } catch (error) {
    const name = error instanceof Error ? error.name : "";
    return { ok: false, reason: name === "NotAllowedError" || name === "AbortError" ? "cancelled" : "failed" };
  }
}

type CreationOptions = Parameters<typeof startRegistration>[0]["optionsJSON"];
type RequestOptions = Parameters<typeof startAuthentication>[0]["optionsJSON"];

/**
 * Options as the API sent them (JSON through tRPC, so the DOM's literal types are lost on the way),
 * and the answer as the API takes it: the contract keeps the inner objects open (the server's
 * WebAuthn verification checks them), which the browser library's closed types cannot name.
 */
const asCredentialJson = (answer: object) => answer as WebauthnCredentialJson;
export const createPasskey = (options: object) =>
  ceremony(async () => asCredentialJson(await startRegistration({ optionsJSON: options as CreationOptions })));
export const getPasskeyAssertion = (options: object) =>
  ceremony(async () => asCredentialJson(await startAuthentication({ optionsJSON: options as RequestOptions })));

/** What to tell the person when a ceremony did not complete: signing in (`login`) or adding a passkey (`security`). */
export function passkeyProblem(
  reason: "cancelled" | "unsupported" | "failed",
  t: Pick<Dictionary, "login" | "security">,
  purpose: "login" | "security",
): string {
  if (reason === "unsupported") return t.login.passkeyUnsupported;
  if (reason === "cancelled") return purpose === "login" ? t.login.passkeyCancelled : t.security.passkeyCancelled;
  return purpose === "login" ? t.login.passkeyFailed : t.security.passkeyFailed;
}
