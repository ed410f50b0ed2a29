import type { StartedVisitorSession } from "@clinsign/contracts";

/**
 * A public embed's visitor session lives in this browser's storage only, under the embed's code,
 * and only when the embed offers to resume (`visitor.mode` `resume`): never in a URL, never shared
 * with another browser. Otherwise (`fresh`, `shared_device`) it lives in the open page alone, and
 * the next visit starts empty. Cleared storage means a fresh, empty form, and so does a session
 * that ended (24 h, or the clinic turned the embed off).
 */
const storageKey = (code: string) => `clinsign.visitor-session.${code}`;

/** A session that ends within a minute is not worth resuming: the next save would fail. */
const MIN_REMAINING_MS = 60_000;

function storage(): Storage | null {
  try {
    return window.localStorage;
  } catch {
    // Storage blocked (a strict privacy setting in a third-party frame): the session lives in memory.
    return null;
  }
}

export function storedVisitorSession(code: string): string | null {
  try {
    const stored = JSON.parse(storage()?.getItem(storageKey(code)) ?? "null") as Partial<StartedVisitorSession> | null;
    if (typeof stored?.sessionId !== "string" || typeof stored.expiresAt !== "string") return null;
    return Date.parse(stored.expiresAt) - Date.now() > MIN_REMAINING_MS ? stored.sessionId : null;
  } catch {
    return null;
  }
}

export function rememberVisitorSession(code: string, started: StartedVisitorSession): void {
  if (started.visitor.mode !== "resume") return;
  try {
    storage()?.setItem(storageKey(code), JSON.stringify(started));
  } catch {
    // Full or blocked storage: the form still works, a reload just starts afresh.
  }
}

/** After a submit, a start over, when the session ended, or when the embed no longer offers to resume. */
export function forgetVisitorSession(code: string): void {
  try {
    storage()?.removeItem(storageKey(code));
  } catch {
    // Nothing stored.
  }
}
