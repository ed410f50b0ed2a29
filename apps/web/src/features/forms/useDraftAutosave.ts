"use client";

import type { FormValues } from "@clinsign/contracts";
import { useCallback, useEffect, useRef, useState, type Dispatch, type RefObject, type SetStateAction } from "react";
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

/** The answers waiting to be saved, and where the saving stands. */
interface SaveQueue {
  /** Answers changed since the last save that went out, by key. */
  changed: Map<string, unknown>;
  /** The whole form after the last change. */
  latest: FormValues;
  inFlight: Promise<void> | null;
  /** Failed saves in a row. */
  failures: number;
  /** No save before this time (ms): a backoff or a rate limit's window. */
  nextAttemptAt: number;
  /** A submission (or a refusal) stopped saving. */
  stopped: boolean;
}

const mayStartSave = (queue: SaveQueue) =>
  !queue.stopped && !queue.inFlight && queue.changed.size > 0 && Date.now() >= queue.nextAttemptAt;

/** Takes the changed answers out of the queue, as the values to save (cleared ones as null). */
function takeBatch(queue: SaveQueue): Map<string, unknown> {
  const batch = new Map(queue.changed);
  queue.changed.clear();
  return batch;
}

/**
 * The values a batch saves; null when there is nothing worth saving. Only cleared answers: they go
 * with the rest, since an all-empty save is refused.
 */
function batchValues(batch: Map<string, unknown>, latest: FormValues): FormValues | null {
  const values: FormValues = Object.fromEntries([...batch].map(([key, value]) => [key, value ?? null]));
  if (!Object.values(values).every(isEmpty)) return values;
  const rest = Object.fromEntries(Object.entries(latest).filter(([, value]) => !isEmpty(value)));
  if (Object.keys(rest).length === 0) return null;
  return { ...values, ...rest };
}

/**
 * After a failed save: its answers go back in the queue, and the next try waits (the delay is
 * returned); null when the server refused them for good, which stops saving.
 */
function requeueFailedBatch(queue: SaveQueue, batch: Map<string, unknown>, error: unknown): number | null {
  // Answers changed meanwhile are newer than the batch that failed.
  for (const [key, value] of batch) if (!queue.changed.has(key)) queue.changed.set(key, value);
  const delay = nextSaveDelayMs(error, queue.failures);
  if (delay === null) {
    queue.stopped = true;
    return null;
  }
  queue.nextAttemptAt = Date.now() + delay;
  queue.failures += 1;
  return delay;
}

/** Tries a save every 1.5 s, and at once when the browser is back online; says so when it goes offline. */
function useSaveTriggers(send: () => void, queue: RefObject<SaveQueue>, setState: Dispatch<SetStateAction<SaveState>>) {
  useEffect(() => {
    const timer = window.setInterval(send, AUTOSAVE_INTERVAL_MS);
    const online = () => {
      queue.current.nextAttemptAt = 0;
      send();
    };
    const offline = () =>
      setState((current) =>
        current.kind === "saving" || queue.current.changed.size > 0 ? { kind: "offline" } : current,
      );
    window.addEventListener("online", online);
    window.addEventListener("offline", offline);
    return () => {
      window.clearInterval(timer);
      window.removeEventListener("online", online);
      window.removeEventListener("offline", offline);
    };
  }, [send, queue, setState]);
}

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
  const queue = useRef<SaveQueue>({
    changed: new Map(),
    latest: {},
    inFlight: null,
    failures: 0,
    nextAttemptAt: 0,
    stopped: false,
  });
  const callbacks = useRef({ save, onSaved, onRejected });
  callbacks.current = { save, onSaved, onRejected };

  const send = useCallback(() => {
    const saveNow = callbacks.current.save;
    const pending = queue.current;
    if (!saveNow || !mayStartSave(pending)) return;
    const batch = takeBatch(pending);
    const values = batchValues(batch, pending.latest);
    if (!values) return;
    setState({ kind: "saving" });
    pending.inFlight = saveNow(values)
      .then(({ savedAt }) => {
        pending.failures = 0;
        pending.nextAttemptAt = 0;
        const at = new Date(savedAt);
        setState({ kind: "saved", at });
        callbacks.current.onSaved?.(at);
      })
      .catch((error: unknown) => {
        if (requeueFailedBatch(pending, batch, error) === null) {
          setState({ kind: "idle" });
          callbacks.current.onRejected?.(error);
          return;
        }
        setState({ kind: typeof navigator !== "undefined" && !navigator.onLine ? "offline" : "retrying" });
      })
      .finally(() => {
        pending.inFlight = null;
      });
  }, []);

  useSaveTriggers(send, queue, setState);

  /** Records one changed answer; `values` is the whole form after the change. */
  const recordChange = useCallback((key: string, value: unknown, values: FormValues) => {
    queue.current.latest = values;
    queue.current.changed.set(key, value);
  }, []);

  const settle = useCallback(async () => {
    queue.current.stopped = true;
    await queue.current.inFlight;
  }, []);

  /** After a failed submission: saving goes on. */
  const resume = useCallback(() => {
    queue.current.stopped = false;
  }, []);

  return { state, recordChange, settle, resume };
}
