"use client";

import type { FormValues } from "@clinsign/contracts";
import { useCallback, useEffect, useRef, useState } from "react";
import { isClientError, readApiError } from "../../trpc/errors";

/** What the patient sees beside the submit button. */
export type SaveState =
  | { kind: "idle" }
  | { kind: "saving" }
  | { kind: "saved"; at: Date }
  /** No connection: the answers are kept here and sent when it returns. */
  | { kind: "offline" }
  /** The server did not take them (yet): retried with backoff. */
  | { kind: "retrying" };

export const AUTOSAVE_INTERVAL_MS = 1_500;
const BACKOFF_MS = [2_000, 4_000, 8_000, 15_000, 30_000];

/**
 * After a failed save: how long to wait before the next try, or null when saving stops. A 4xx is a
 * refusal (the session ended, say), except 429: too many calls, so the answers wait for the
 * limit's window (Retry-After) and then go, instead of the page ending the recipient's access.
 */
export function nextSaveDelayMs(error: unknown, failures: number): number | null {
  const api = readApiError(error);
  const limited = api.code === "TOO_MANY_REQUESTS";
  if (isClientError(error) && !limited) return null;
  const backoff = BACKOFF_MS[Math.min(failures, BACKOFF_MS.length - 1)]!;
  const retryAfterSeconds = api.details.retryAfterSeconds;
  return Math.max(backoff, limited && typeof retryAfterSeconds === "number" ? retryAfterSeconds * 1000 : 0);
}

const isEmpty = (value: unknown) =>
  value === undefined || value === null || value === "" || (Array.isArray(value) && value.length === 0);

/**
 * Saves the changed answers of a form every 1.5 s while something changed (the interface
 * document's autosave), merged on the server (F7 merges keys). Never saves an empty form. A failed
 * save keeps its answers and is retried with backoff, at once when the browser is back online.
 * `settle()` waits for a save in flight and stops saving: a submission deletes the draft, which a
 * late save must not bring back.
 */
export function useDraftAutosave({
  save,
  onSaved,
  onRejected,
}: {
  /** Null: this form keeps no draft. */
  save: ((values: FormValues) => Promise<{ savedAt: string }>) | null;
  onSaved?(savedAt: Date): void;
  /** A 4xx answer other than 429 (the session ended, say): saving stops; the page explains. */
  onRejected?(error: unknown): void;
}) {
  const [state, setState] = useState<SaveState>({ kind: "idle" });
  const changed = useRef(new Map<string, unknown>());
  const latest = useRef<FormValues>({});
  const inFlight = useRef<Promise<void> | null>(null);
  const failures = useRef(0);
  const nextAttemptAt = useRef(0);
  const stopped = useRef(false);
  const callbacks = useRef({ save, onSaved, onRejected });
  callbacks.current = { save, onSaved, onRejected };

  const send = useCallback(() => {
    const saveNow = callbacks.current.save;
    if (
      !saveNow ||
      stopped.current ||
      inFlight.current ||
      changed.current.size === 0 ||
      Date.now() < nextAttemptAt.current
    )
      return;
    const batch = new Map(changed.current);
    changed.current.clear();
    let values: FormValues = Object.fromEntries([...batch].map(([key, value]) => [key, value ?? null]));
    if (Object.values(values).every(isEmpty)) {
      // Only cleared answers: send them with the rest, since an all-empty save is refused.
      const rest = Object.fromEntries(Object.entries(latest.current).filter(([, value]) => !isEmpty(value)));
      if (Object.keys(rest).length === 0) return;
      values = { ...values, ...rest };
    }
    setState({ kind: "saving" });
    inFlight.current = saveNow(values)
      .then(({ savedAt }) => {
        failures.current = 0;
        nextAttemptAt.current = 0;
        const at = new Date(savedAt);
        setState({ kind: "saved", at });
        callbacks.current.onSaved?.(at);
      })
      .catch((error: unknown) => {
        // Answers changed meanwhile are newer than the batch that failed.
        for (const [key, value] of batch) if (!changed.current.has(key)) changed.current.set(key, value);
        const delay = nextSaveDelayMs(error, failures.current);
        if (delay === null) {
          stopped.current = true;
          setState({ kind: "idle" });
          callbacks.current.onRejected?.(error);
          return;
        }
        nextAttemptAt.current = Date.now() + delay;
        failures.current += 1;
        setState({ kind: typeof navigator !== "undefined" && !navigator.onLine ? "offline" : "retrying" });
      })
      .finally(() => {
        inFlight.current = null;
      });
  }, []);

  useEffect(() => {
    const timer = window.setInterval(send, AUTOSAVE_INTERVAL_MS);
    const online = () => {
      nextAttemptAt.current = 0;
      send();
    };
    const offline = () =>
      setState((current) => (current.kind === "saving" || changed.current.size > 0 ? { kind: "offline" } : current));
    window.addEventListener("online", online);
    window.addEventListener("offline", offline);
    return () => {
      window.clearInterval(timer);
      window.removeEventListener("online", online);
      window.removeEventListener("offline", offline);
    };
  }, [send]);

  /** Records one changed answer; `values` is the whole form after the change. */
  const recordChange = useCallback((key: string, value: unknown, values: FormValues) => {
    latest.current = values;
    changed.current.set(key, value);
  }, []);

  const settle = useCallback(async () => {
    stopped.current = true;
    await inFlight.current;
  }, []);

  /** After a failed submission: saving goes on. */
  const resume = useCallback(() => {
    stopped.current = false;
  }, []);

  return { state, recordChange, settle, resume };
}
