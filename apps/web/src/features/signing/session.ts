import type { SigningView } from "@clinsign/contracts";

/** What opened a signing page: the signing link's token, or a one-time A4 ticket. */
export type SigningCredential = { token: string } | { ticket: string };

/** The API accepts 16–200 characters; anything else cannot be one of ours. */
export function isPlausibleSecret(value: string): boolean {
  return /^[A-Za-z0-9_-]{16,200}$/.test(value);
}

export function credentialKey(credential: SigningCredential): string {
  return "ticket" in credential ? `ticket:${credential.ticket}` : `token:${credential.token}`;
}

const pending = new Map<string, Promise<SigningView>>();

/**
 * Calls `open` at most once per credential while it is in flight or after it succeeded (React
 * runs effects twice in development, and a ticket is single-use: a second call would answer
 * `unknown`). A failed call is forgotten so that "Try again" asks again.
 */
export function openOnce(
  credential: SigningCredential,
  open: (credential: SigningCredential) => Promise<SigningView>,
): Promise<SigningView> {
  const key = credentialKey(credential);
  let promise = pending.get(key);
  if (!promise) {
    promise = open(credential);
    pending.set(key, promise);
    promise.catch(() => pending.delete(key));
  }
  return promise;
}

/** Opening the link again is a new call (a signing link only: a ticket opens once). */
export function forgetOpenCall(credential: SigningCredential): void {
  pending.delete(credentialKey(credential));
}

/** For tests. */
export function forgetOpenCalls(): void {
  pending.clear();
}

const STORAGE_PREFIX = "clinsign.signing.";

export interface StoredSigning {
  view: SigningView;
  sessionToken: string;
}

/**
 * The signing session, kept in this tab's sessionStorage so a reload continues where the patient
 * was (a ticket cannot be exchanged twice) and the confirmation can still download the signed
 * PDF. It ends with the tab, and the API ends the session after 60 minutes anyway.
 */
export function loadStoredSigning(
  credential: SigningCredential,
  storage: Pick<Storage, "getItem"> | undefined = safeSessionStorage(),
): StoredSigning | null {
  try {
    const raw = storage?.getItem(STORAGE_PREFIX + credentialKey(credential));
    if (!raw) return null;
    const parsed = JSON.parse(raw) as StoredSigning;
    if (typeof parsed?.sessionToken !== "string" || typeof parsed.view !== "object" || parsed.view === null)
      return null;
    if (parsed.view.sessionExpiresAt && Date.parse(parsed.view.sessionExpiresAt) <= Date.now()) return null;
    return parsed;
  } catch {
    return null;
  }
}

export function storeSigning(
  credential: SigningCredential,
  value: StoredSigning,
  storage: Pick<Storage, "setItem"> | undefined = safeSessionStorage(),
): void {
  try {
    storage?.setItem(STORAGE_PREFIX + credentialKey(credential), JSON.stringify(value));
  } catch {
    // Private mode or a full quota: the page still works, only a reload starts over.
  }
}

function safeSessionStorage(): Storage | undefined {
  try {
    return typeof window === "undefined" ? undefined : window.sessionStorage;
  } catch {
    return undefined;
  }
}

/**
 * Removes every signing pass and document view this browser kept (both storages: the signing
 * page writes sessionStorage only, localStorage is cleared in case an older page wrote there), so
 * that nothing of the patient outlives the signing at the desk.
 */
export function forgetStoredSignings(storages: Storage[] = browserStorages()): void {
  for (const storage of storages) {
    try {
      const keys = Array.from({ length: storage.length }, (_, i) => storage.key(i)).filter(
        (key): key is string => key?.startsWith(STORAGE_PREFIX) ?? false,
      );
      for (const key of keys) storage.removeItem(key);
    } catch {
      // A storage the browser refuses holds nothing of ours either.
    }
  }
}

function browserStorages(): Storage[] {
  const storages: Storage[] = [];
  const tabStorage = safeSessionStorage();
  if (tabStorage) storages.push(tabStorage);
  try {
    if (typeof window !== "undefined") storages.push(window.localStorage);
  } catch {
    // Private mode without localStorage.
  }
  return storages;
}
