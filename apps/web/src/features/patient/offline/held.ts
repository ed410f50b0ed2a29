/**
 * What a patient did offline, held on the device until it can be sent (issue 35): one IndexedDB
 * database, `held` for the actions and `keys` for the key each link's actions are encrypted with.
 *
 * - An action (a signature, a form's answers, a file picked for it) is stored only encrypted
 *   (AES-256-GCM, a new IV each time), never in clear, and never with the link's secret or the
 *   signing pass: it is found by the SHA-256 of the link's credential.
 * - The key comes from the server's first answer for the link (`holdKey`, derived there per link,
 *   the same at every opening). The browser keeps it as a non-extractable CryptoKey: scripts of
 *   this origin can use it, none can read it out.
 * - Sent, refused for good (the link expired or was withdrawn) or wiped: the action and the key go.
 */

const DATABASE = "clinsign-held";
const HELD = "held";
const KEYS = "keys";

/**
 * A signature; a form page's opened form (to open it again offline), a file picked offline, and a
 * submission waiting for the network.
 */
export type HeldKind = "signature" | "form" | "file" | "submission";

/** What a held action says about itself without its key. */
export interface HeldAction {
  /** Made on the device when the patient acted; sent along as the action's idempotency key. */
  id: string;
  kind: HeldKind;
  /** When the patient acted, by the device's clock. */
  heldAt: string;
  /** When it can no longer be sent (its pass or link ends): past it, the device deletes it unsent. */
  until: string | null;
}

/** A held action and the link it belongs to (the desk's locked screen sends every link's). */
export interface HeldActionOfLink extends HeldAction {
  link: string;
}

interface StoredAction extends HeldAction {
  link: string;
  iv: Uint8Array<ArrayBuffer>;
  data: ArrayBuffer;
}

interface StoredKey {
  link: string;
  key: CryptoKey;
}

/** The SHA-256 (hex) of a link's credential: how held actions are found without keeping the secret. */
export async function linkId(credential: string): Promise<string> {
  const digest = await crypto.subtle.digest("SHA-256", new TextEncoder().encode(`clinsign-held:${credential}`));
  return Array.from(new Uint8Array(digest), (byte) => byte.toString(16).padStart(2, "0")).join("");
}

export function heldStorageAvailable(): boolean {
  return typeof indexedDB !== "undefined" && typeof crypto !== "undefined" && Boolean(crypto.subtle);
}

function openDatabase(): Promise<IDBDatabase> {
  return new Promise((resolve, reject) => {
    const request = indexedDB.open(DATABASE, 1);
    request.onupgradeneeded = () => {
      const db = request.result;
      db.createObjectStore(HELD, { keyPath: "id" }).createIndex("link", "link");
      db.createObjectStore(KEYS, { keyPath: "link" });
    };
    request.onsuccess = () => resolve(request.result);
    request.onerror = () => reject(request.error);
  });
}

/** Runs `work` in one transaction over both stores and resolves with its result once it committed. */
async function inTransaction<T>(
  mode: IDBTransactionMode,
  work: (stores: { held: IDBObjectStore; keys: IDBObjectStore }) => IDBRequest<T> | void,
): Promise<T | undefined> {
  const db = await openDatabase();
  try {
    return await new Promise<T | undefined>((resolve, reject) => {
      const tx = db.transaction([HELD, KEYS], mode);
      const request = work({ held: tx.objectStore(HELD), keys: tx.objectStore(KEYS) });
      tx.oncomplete = () => resolve(request ? request.result : undefined);
      tx.onerror = () => reject(tx.error);
      tx.onabort = () => reject(tx.error);
    });
  } finally {
    db.close();
  }
}

function base64UrlBytes(value: string): Uint8Array<ArrayBuffer> {
  const binary = atob(value.replace(/-/g, "+").replace(/_/g, "/"));
  return Uint8Array.from(binary, (char) => char.charCodeAt(0));
}

/** Keeps the link's key (from the server's answer) as a key the browser can use but not give out. */
export async function rememberHoldKey(link: string, holdKey: string): Promise<void> {
  const key = await crypto.subtle.importKey("raw", base64UrlBytes(holdKey), "AES-GCM", false, ["encrypt", "decrypt"]);
  await inTransaction("readwrite", ({ keys }) => keys.put({ link, key } satisfies StoredKey));
}

async function keyOf(link: string): Promise<CryptoKey | null> {
  const stored = await inTransaction<StoredKey | undefined>("readonly", ({ keys }) => keys.get(link));
  return stored?.key ?? null;
}

/** Whether an action of this link can be held on this device now (its key is here). */
export async function canHold(link: string): Promise<boolean> {
  return heldStorageAvailable() && (await keyOf(link).catch(() => null)) !== null;
}

/**
 * Holds an action, encrypted; throws when the link's key is not on the device. `made` is the
 * action's id and time when the page tried to send it first (the same id then goes with the resend).
 */
export async function holdAction(
  link: string,
  kind: HeldKind,
  payload: unknown,
  made: { id: string; heldAt: string; until: string | null } = {
    id: crypto.randomUUID(),
    heldAt: new Date().toISOString(),
    until: null,
  },
): Promise<HeldAction> {
  const key = await keyOf(link);
  if (!key) throw new Error("no key to hold this link's actions with");
  const action: HeldAction = { ...made, kind };
  const iv = crypto.getRandomValues(new Uint8Array(12));
  const plain = new TextEncoder().encode(JSON.stringify(payload));
  const data = await crypto.subtle.encrypt({ name: "AES-GCM", iv, additionalData: aad(link, action) }, key, plain);
  await inTransaction("readwrite", ({ held }) => held.put({ ...action, link, iv, data } satisfies StoredAction));
  return action;
}

/** The action's identity is bound to its ciphertext: a record moved to another link or kind does not open. */
const aad = (link: string, action: HeldAction) =>
  new TextEncoder().encode(`${link}\n${action.id}\n${action.kind}\n${action.heldAt}\n${action.until ?? ""}`);

/** The link's held actions (every link's without one), oldest first, without their contents. */
export async function heldActions(link?: string): Promise<HeldActionOfLink[]> {
  if (!heldStorageAvailable()) return [];
  const stored = await inTransaction<StoredAction[]>("readonly", ({ held }) =>
    link === undefined ? held.getAll() : held.index("link").getAll(link),
  );
  return (stored ?? [])
    .map(({ id, kind, heldAt, until, link }) => ({ id, kind, heldAt, until: until ?? null, link }))
    .sort((a, b) => a.heldAt.localeCompare(b.heldAt));
}

/** One held action's contents; null when it is gone or does not open with the link's key. */
export async function openHeldAction<T>(link: string, id: string): Promise<T | null> {
  const [key, stored] = await Promise.all([
    keyOf(link),
    inTransaction<StoredAction | undefined>("readonly", ({ held }) => held.get(id)),
  ]);
  if (!key || !stored || stored.link !== link) return null;
  try {
    const plain = await crypto.subtle.decrypt(
      { name: "AES-GCM", iv: stored.iv, additionalData: aad(link, stored) },
      key,
      stored.data,
    );
    return JSON.parse(new TextDecoder().decode(plain)) as T;
  } catch {
    return null;
  }
}

/** Deletes the keys of links that hold nothing (the desk's locked screen: nothing of the last patient stays). */
export async function forgetIdleKeys(): Promise<void> {
  if (!heldStorageAvailable()) return;
  const busy = new Set((await heldActions()).map((action) => action.link));
  await inTransaction("readwrite", ({ keys }) => {
    const cursor = keys.openKeyCursor();
    cursor.onsuccess = () => {
      if (!cursor.result) return;
      if (!busy.has(String(cursor.result.primaryKey))) keys.delete(cursor.result.primaryKey);
      cursor.result.continue();
    };
  });
}

/** Deletes everything this device holds for a link: its actions and its key. */
export async function forgetLink(link: string): Promise<void> {
  if (!heldStorageAvailable()) return;
  await inTransaction("readwrite", ({ held, keys }) => {
    const cursor = held.index("link").openKeyCursor(IDBKeyRange.only(link));
    cursor.onsuccess = () => {
      if (!cursor.result) return;
      held.delete(cursor.result.primaryKey);
      cursor.result.continue();
    };
    keys.delete(link);
  });
}

/**
 * Deletes what form pages held past its end (`until`: the session's or link's), and the key of a
 * link left with nothing: a form opened on a shared device and never finished or sent must not
 * stay there (run once by every patient page when idle). Signatures are left to their pages, which
 * say so when they delete one (the desk's locked screen).
 */
export async function forgetExpiredForms(now: number = Date.now()): Promise<void> {
  if (!heldStorageAvailable()) return;
  const forms: HeldKind[] = ["form", "file", "submission"];
  const all = await heldActions();
  const expired = all.filter((action) => forms.includes(action.kind) && action.until && Date.parse(action.until) < now);
  if (expired.length === 0) return;
  const gone = new Set(expired.map((action) => action.id));
  const emptied = new Set(expired.map((action) => action.link));
  for (const action of all) if (!gone.has(action.id)) emptied.delete(action.link);
  await inTransaction("readwrite", ({ held, keys }) => {
    for (const id of gone) held.delete(id);
    for (const link of emptied) keys.delete(link);
  });
}
