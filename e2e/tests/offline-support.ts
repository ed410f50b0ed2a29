import type { Page } from "@playwright/test";

/** A record the patient pages hold on the device (IndexedDB `clinsign-held`, as held.ts stores it), its bytes as base64. */
export interface HeldRecord {
  id: string;
  kind: string;
  link: string;
  heldAt: string;
  until: string | null;
  data: string;
}

/**
 * What the device holds for patient links: the held records as stored and the number of link
 * keys. Read the way the page stores them, so a test sees exactly what stays on the device.
 */
export async function heldOnDevice(page: Page): Promise<{ actions: HeldRecord[]; keys: number }> {
  return page.evaluate(
    () =>
      new Promise((resolve, reject) => {
        const open = indexedDB.open("clinsign-held", 1);
        open.onerror = () => reject(open.error);
        open.onupgradeneeded = () => {
          open.result.createObjectStore("held", { keyPath: "id" }).createIndex("link", "link");
          open.result.createObjectStore("keys", { keyPath: "link" });
        };
        open.onsuccess = () => {
          const tx = open.result.transaction(["held", "keys"], "readonly");
          const actions = tx.objectStore("held").getAll();
          const keys = tx.objectStore("keys").count();
          tx.oncomplete = () => {
            open.result.close();
            const described = (actions.result as (Omit<HeldRecord, "data"> & { data: ArrayBuffer })[]).map(
              (action) => ({
                ...action,
                // Stored bytes as text, to show what they are not (a signature, the answers).
                data: btoa(String.fromCharCode(...new Uint8Array(action.data))),
              }),
            );
            resolve({ actions: described, keys: keys.result });
          };
        };
      }),
  );
}

/** Whether the service worker keeps a copy of the page as it is open now. */
export async function pageKeptOnDevice(page: Page): Promise<boolean> {
  return page.evaluate(async () => Boolean(await caches.match(location.href, { ignoreVary: true })));
}
