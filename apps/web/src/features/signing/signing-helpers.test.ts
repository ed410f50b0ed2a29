import { afterEach, describe, expect, it, vi } from "vitest";
import type { SigningView } from "@clinsign/contracts";
import { base64ToBytes, signedFileName } from "./download";
import { anchoredScroll, clampZoom, MAX_ZOOM, MIN_ZOOM, stepZoom } from "./zoom";
import {
  forgetOpenCalls,
  forgetStoredSignings,
  isPlausibleSecret,
  loadStoredSigning,
  openOnce,
  storeSigning,
} from "./session";

const view = (overrides: Partial<SigningView> = {}): SigningView => ({
  state: "ready",
  sessionToken: "s".repeat(43),
  sessionExpiresAt: new Date(Date.now() + 60_000).toISOString(),
  documentTitle: "Einwilligung",
  documentDescription: null,
  institutionId: "clinic-a",
  organizationName: "Klinik Nord",
  branding: null,
  pageCount: 1,
  pageSizes: [{ width: 595, height: 842 }],
  fields: [{ page: 1, x: 50, y: 600, width: 200, height: 60 }],
  expiresAt: new Date(Date.now() + 3_600_000).toISOString(),
  signedCopy: null,
  signedCopyUntil: null,
  ...overrides,
});

function memoryStorage() {
  const map = new Map<string, string>();
  return { getItem: (k: string) => map.get(k) ?? null, setItem: (k: string, v: string) => void map.set(k, v), map };
}

afterEach(() => forgetOpenCalls());

describe("openOnce", () => {
  it("exchanges a ticket only once, however often the effect runs", async () => {
    const open = vi.fn(async () => view());
    const [a, b] = await Promise.all([
      openOnce({ ticket: "t".repeat(43) }, open),
      openOnce({ ticket: "t".repeat(43) }, open),
    ]);
    expect(open).toHaveBeenCalledTimes(1);
    expect(a).toBe(b);
    await openOnce({ ticket: "t".repeat(43) }, open);
    expect(open).toHaveBeenCalledTimes(1);
  });

  it("asks again after a failure (the Try again button)", async () => {
    const open = vi.fn().mockRejectedValueOnce(new Error("offline")).mockResolvedValueOnce(view());
    await expect(openOnce({ token: "k".repeat(43) }, open)).rejects.toThrow("offline");
    await expect(openOnce({ token: "k".repeat(43) }, open)).resolves.toMatchObject({ state: "ready" });
    expect(open).toHaveBeenCalledTimes(2);
  });
});

describe("stored signing sessions", () => {
  it("round-trips per credential and forgets ended sessions", () => {
    const storage = memoryStorage();
    const credential = { ticket: "t".repeat(43) };
    storeSigning(credential, { view: view(), sessionToken: "s".repeat(43) }, storage);
    expect(loadStoredSigning(credential, storage)?.sessionToken).toBe("s".repeat(43));
    expect(loadStoredSigning({ token: "t".repeat(43) }, storage)).toBeNull();
    storeSigning(
      credential,
      { view: view({ sessionExpiresAt: new Date(Date.now() - 1).toISOString() }), sessionToken: "s".repeat(43) },
      storage,
    );
    expect(loadStoredSigning(credential, storage)).toBeNull();
    storage.map.set([...storage.map.keys()][0]!, "{not json");
    expect(loadStoredSigning(credential, storage)).toBeNull();
  });

  it("recognises values that cannot be a link token", () => {
    expect(isPlausibleSecret("A".repeat(43))).toBe(true);
    expect(isPlausibleSecret("short")).toBe(false);
    expect(isPlausibleSecret("a".repeat(30) + "/..")).toBe(false);
  });
});

describe("download helpers", () => {
  it("names the file signed-<title>.pdf with a safe title", () => {
    expect(signedFileName("Einwilligung Narkose")).toBe("signed-Einwilligung Narkose.pdf");
    expect(signedFileName('a/b\\c:d*e?"f<g>h|i')).toBe("signed-a b c d e f g h i.pdf");
    expect(signedFileName("..hidden")).toBe("signed-hidden.pdf");
    expect(signedFileName(null)).toBe("signed-document.pdf");
    expect(signedFileName("   ")).toBe("signed-document.pdf");
  });

  it("decodes base64 to bytes", () => {
    expect([...base64ToBytes(Buffer.from("%PDF-1.7").toString("base64"))]).toEqual([...Buffer.from("%PDF-1.7")]);
  });
});

describe("document zoom", () => {
  it("steps between fit-to-width and 300 %, from any zoom a pinch left", () => {
    expect(stepZoom(MIN_ZOOM, 1)).toBe(1.5);
    expect(stepZoom(1.5, 1)).toBe(2);
    expect(stepZoom(1.7, 1)).toBe(2);
    expect(stepZoom(1.7, -1)).toBe(1.5);
    expect(stepZoom(MAX_ZOOM, 1)).toBe(MAX_ZOOM);
    expect(stepZoom(MIN_ZOOM, -1)).toBe(MIN_ZOOM);
  });

  it("clamps pinches and keeps the zoomed point in place", () => {
    expect(clampZoom(0.4)).toBe(MIN_ZOOM);
    expect(clampZoom(7)).toBe(MAX_ZOOM);
    expect(clampZoom(Number.NaN)).toBe(MIN_ZOOM);
    expect(clampZoom(1.234)).toBe(1.23);
    // At 2x, the point 100 px into a viewer scrolled by 50 px moves from 150 to 300: scroll 200.
    expect(anchoredScroll(50, 100, 2)).toBe(200);
    expect(anchoredScroll(0, 100, 0.5)).toBe(0);
  });
});

describe("forgetStoredSignings (signing at the desk)", () => {
  /** The part of the Storage interface forgetStoredSignings walks. */
  function walkableStorage(entries: Record<string, string>) {
    const map = new Map(Object.entries(entries));
    return {
      get length() {
        return map.size;
      },
      key: (i: number) => [...map.keys()][i] ?? null,
      getItem: (k: string) => map.get(k) ?? null,
      setItem: (k: string, v: string) => void map.set(k, v),
      removeItem: (k: string) => void map.delete(k),
      clear: () => map.clear(),
      map,
    };
  }

  it("removes every signing pass and view from both storages and keeps what is not the signing page's", () => {
    const tabStorage = walkableStorage({ lang: "de", "clinsign.kiosk.brand": "{}" });
    storeSigning({ ticket: "t".repeat(43) }, { view: view(), sessionToken: "s".repeat(43) }, tabStorage);
    storeSigning({ token: "k".repeat(43) }, { view: view(), sessionToken: "u".repeat(43) }, tabStorage);
    const local = walkableStorage({ "clinsign.signing.token:old": "{}" });
    forgetStoredSignings([tabStorage as unknown as Storage, local as unknown as Storage]);
    expect([...tabStorage.map.keys()]).toEqual(["lang", "clinsign.kiosk.brand"]);
    expect(local.map.size).toBe(0);
    expect(JSON.stringify([...tabStorage.map.values()])).not.toContain("Einwilligung");
  });
});
