import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { expect, test, type Page } from "@playwright/test";
import { expectAxeClean, expectPageLanguage, useLanguage } from "./axe-support";
import { staffSignIn, type Staff } from "./forms-support";
import { heldOnDevice, pageKeptOnDevice } from "./offline-support";
import { patientTexts } from "./patient-texts";
import {
  drawWithMouse,
  makeConsentPdf,
  requestSignature,
  startFileServer,
  waitForPageImages,
  type FileServer,
} from "./signing-support";
import { API_URL, hasHorizontalScroll, shot, signIn } from "./support";

// Issue 35: the network drops while a patient signs. The page and its document stay (the service
// worker kept them), the signature is held on the device, encrypted, and sent by itself once the
// network returns: it arrives once, and the sealed PDF says when it was signed on the device and
// when it arrived. A link that closed meanwhile refuses it, and the device forgets it.

const FIELD = { page: 1, x: 60, y: 640, width: 240, height: 80 };
const TITLE = "Consent to anaesthesia (offline)";

let staff: Staff;
let files: FileServer;
let work: string;

test.beforeAll(async ({ browser }) => {
  files = await startFileServer({ "/consent.pdf": await makeConsentPdf(FIELD) });
  staff = await staffSignIn(browser, "E2E offline signing");
  work = mkdtempSync(join(tmpdir(), "clinsign-e2e-offline-"));
});
test.afterAll(async () => {
  await Promise.all([files?.close(), staff?.context.close()]);
  if (work) rmSync(work, { recursive: true, force: true });
});

/**
 * The page has loaded what it loads by itself (the signature pad comes once the browser is idle),
 * the service worker answers it and has kept it (and its assets) for a visit without network.
 */
async function untilKeptOnDevice(page: Page): Promise<void> {
  await expect(page.getByTestId("signature-canvas")).toBeAttached();
  await page.waitForFunction(() => navigator.serviceWorker?.controller !== null, undefined, { timeout: 20_000 });
  await expect
    .poll(() => pageKeptOnDevice(page), {
      message: "the page kept on the device",
    })
    .toBe(true);
}

async function metadataOf(signatureId: string) {
  const response = await staff.context.request.get(`${API_URL}/signature-requests/${signatureId}/metadata.json`, {
    headers: { authorization: `Bearer ${staff.token}` },
  });
  expect(response.status()).toBe(200);
  return (await response.json()) as {
    timestamps: { signed: string; signed_on_device?: string };
    events: { action: string }[];
  };
}

test.describe("signing on a phone while the network is gone", () => {
  test.use({ viewport: { width: 390, height: 844 }, deviceScaleFactor: 2 });

  test("the page reloads offline, the signature is held encrypted, survives a closed tab, and arrives once when the network returns", async ({
    page,
    context,
    request,
  }) => {
    const en = patientTexts.en;
    const signing = await requestSignature(request, staff.token, {
      pdfUrl: files.url("/consent.pdf"),
      field: FIELD,
      title: TITLE,
      patientId: `P-offline-${Date.now()}`,
    });
    await waitForPageImages(request, signing.signingLink);
    await useLanguage(context, "en");
    await page.goto(signing.signingLink);
    await expect(page.getByRole("heading", { level: 1, name: TITLE })).toBeVisible();
    await expect(page.locator('figure[data-page="1"]')).toHaveAttribute("data-rendered", "true");
    await untilKeptOnDevice(page);

    // The network goes; the page says what that means before anything is lost.
    await context.setOffline(true);
    await expect(page.getByText(en.signing.offlineTitle)).toBeVisible();
    // A reload without network: the page and its document come from the device.
    await page.reload();
    await expect(page.getByRole("heading", { level: 1, name: TITLE })).toBeVisible();
    await expect(page.locator('figure[data-page="1"]')).toHaveAttribute("data-rendered", "true");
    await expect(page.getByText(en.signing.offlineTitle)).toBeVisible();
    await expectAxeClean(page, "signing page offline (390, en)");
    await shot(page, "offline-ready-390-en");

    const canvas = page.getByRole("img", { name: en.signing.padLabel });
    await canvas.scrollIntoViewIfNeeded();
    await drawWithMouse(page, canvas);
    await page.getByRole("checkbox", { name: en.signing.consent }).check();
    await page.getByRole("button", { name: en.signing.signButton }).click();

    await expect(page.getByRole("heading", { level: 1, name: en.signing.heldTitle })).toBeVisible();
    await expect(page.getByRole("status").filter({ hasText: en.signing.heldWaiting })).toBeVisible();
    expect(await hasHorizontalScroll(page)).toBe(false);
    await expectAxeClean(page, "signature held offline (390, en)");
    await shot(page, "offline-held-390-en");

    // Held encrypted: no signature image, no signing pass, no link in what the device stores.
    const held = await heldOnDevice(page);
    expect(held.actions).toHaveLength(1);
    expect(held.keys).toBe(1);
    const stored = JSON.stringify(held.actions);
    expect(stored).not.toContain("iVBORw0KGgo"); // a PNG's first bytes in base64
    expect(stored).not.toContain("data:image");
    expect(stored).not.toContain(signing.signingLink.slice(signing.signingLink.lastIndexOf("/") + 1));
    // The signing pass this tab keeps (sessionStorage, for a reload) is not in what the device holds.
    const passes = await page.evaluate(() =>
      Object.values(sessionStorage).flatMap((value) => {
        const parsed = JSON.parse(value) as { sessionToken?: string };
        return parsed.sessionToken ? [parsed.sessionToken] : [];
      }),
    );
    expect(passes.length).toBeGreaterThan(0);
    for (const pass of passes) expect(stored).not.toContain(pass);

    // The tab is closed and opened again, still offline: the signature waits there.
    await page.close();
    const again = await context.newPage();
    await again.goto(signing.signingLink);
    await expect(again.getByRole("heading", { level: 1, name: en.signing.heldTitle })).toBeVisible();
    // Nothing arrived meanwhile.
    const before = await request.get(`${API_URL}/signature-requests/${signing.signatureId}/metadata.json`, {
      headers: { authorization: `Bearer ${staff.token}` },
    });
    expect(before.status()).toBe(404);

    // The network returns: the signature is sent by itself, once, and the device forgets it.
    await context.setOffline(false);
    await expect(again.getByRole("heading", { level: 1, name: en.signing.completedTitle })).toBeVisible({
      timeout: 30_000,
    });
    expect(await heldOnDevice(again)).toEqual({ actions: [], keys: 0 });
    expect(await pageKeptOnDevice(again)).toBe(false);

    const metadata = await metadataOf(signing.signatureId);
    expect(metadata.events.filter((event) => event.action === "signature.signed")).toHaveLength(1);
    expect(Date.parse(metadata.timestamps.signed_on_device!)).toBeLessThan(Date.parse(metadata.timestamps.signed));

    // The sealed PDF's audit page tells both times.
    const pdf = await staff.context.request.get(`${API_URL}/signature-requests/${signing.signatureId}/signed.pdf`, {
      headers: { authorization: `Bearer ${staff.token}` },
    });
    const file = join(work, "offline.pdf");
    writeFileSync(file, await pdf.body());
    expect(spawnSync("pdfsig", [file], { encoding: "utf8" }).stdout).toContain("Signature is Valid");
    const text = spawnSync("pdftotext", [file, "-"], { encoding: "utf8" }).stdout.replace(/\s+/g, " ");
    expect(text).toContain("Signed offline (UTC)");
    expect(text).toContain(`on the device at ${metadata.timestamps.signed_on_device}`);
    expect(text).toContain(`received at ${metadata.timestamps.signed}`);
  });
});

test.describe("signing on a tablet in German while the network is gone", () => {
  test.use({ viewport: { width: 820, height: 1180 } });

  test("a link that expired meanwhile refuses the held signature, says so, and the device forgets it", async ({
    page,
    context,
    request,
  }) => {
    const de = patientTexts.de;
    const signing = await requestSignature(request, staff.token, {
      pdfUrl: files.url("/consent.pdf"),
      field: FIELD,
      title: TITLE,
      patientId: `P-offline-expired-${Date.now()}`,
      expiresInMs: 30_000,
    });
    const expiresAt = Date.now() + 30_000;
    await waitForPageImages(request, signing.signingLink);
    await useLanguage(context, "de");
    await page.goto(signing.signingLink);
    await expectPageLanguage(page, "de");
    await expect(page.getByRole("heading", { level: 1, name: TITLE })).toBeVisible();
    await untilKeptOnDevice(page);

    await context.setOffline(true);
    await expect(page.getByText(de.signing.offlineTitle)).toBeVisible();
    await page.getByRole("radio", { name: de.signing.methodType }).check();
    await page.getByRole("textbox", { name: de.signing.typedLabel }).fill("Erika Mustermann");
    await page.getByRole("checkbox", { name: de.signing.consent }).check();
    await page.getByRole("button", { name: de.signing.signButton }).click();
    await expect(page.getByRole("heading", { level: 1, name: de.signing.heldTitle })).toBeVisible();
    await expect(page.getByRole("status").filter({ hasText: de.signing.heldWaiting })).toBeVisible();
    await expectAxeClean(page, "signature held offline (820, de)");
    await shot(page, "offline-held-820-de");

    // The link expires while the tablet is offline; then the network returns.
    await page.waitForTimeout(Math.max(0, expiresAt - Date.now() + 1_000));
    await context.setOffline(false);
    await expect(page.getByRole("heading", { level: 1, name: de.signing.expiredTitle })).toBeVisible({
      timeout: 30_000,
    });
    await expect(page.getByText(de.signing.heldDiscarded)).toBeVisible();
    expect(await heldOnDevice(page)).toEqual({ actions: [], keys: 0 });
    await expectAxeClean(page, "held signature refused, link expired (820, de)");
    await shot(page, "offline-expired-820-de");

    // Nothing was signed.
    const metadata = await request.get(`${API_URL}/signature-requests/${signing.signatureId}/metadata.json`, {
      headers: { authorization: `Bearer ${staff.token}` },
    });
    expect(metadata.status()).toBe(404);
  });
});

test.describe("signing at the desk while the network is gone", () => {
  test.use({ viewport: { width: 820, height: 1180 }, hasTouch: true });

  /** Staff hand the tablet over for the request; the kiosk's signing page is kept on the device. */
  async function handOver(page: Page, signatureId: string, title: string): Promise<void> {
    await signIn(page);
    await page.goto(`/signature-requests/${signatureId}`);
    await page.getByRole("button", { name: "Sign at this device" }).click();
    await page
      .getByRole("alertdialog", { name: "Sign at this device?" })
      .getByRole("button", { name: "Sign out and hand over" })
      .click();
    await expect(page).toHaveURL(/\/kiosk\/[A-Za-z0-9_-]+$/);
    await expect(page.getByRole("heading", { level: 1, name: title })).toBeVisible();
    await untilKeptOnDevice(page);
  }

  /** The patient signs (drawn) while the tablet is offline; the device locks in place. */
  async function signOffline(page: Page): Promise<void> {
    const en = patientTexts.en;
    await page.context().setOffline(true);
    await expect(page.getByText(en.signing.offlineTitle)).toBeVisible();
    const canvas = page.getByRole("img", { name: en.signing.padLabel });
    await canvas.scrollIntoViewIfNeeded();
    await drawWithMouse(page, canvas);
    await page.getByRole("checkbox", { name: en.signing.consent }).check();
    await page.getByRole("button", { name: en.signing.signButton }).click();
    await expect(page.getByRole("heading", { level: 1, name: en.signing.kioskLockedTitle })).toBeVisible();
  }

  test("the tablet locks at once, keeps nothing readable of the patient, and sends the signature when the network returns", async ({
    page,
    request,
  }) => {
    const en = patientTexts.en;
    const title = `Kiosk consent offline ${Date.now()}`;
    const patientId = `P-kiosk-offline-${Date.now()}`;
    const signing = await requestSignature(request, staff.token, {
      pdfUrl: files.url("/consent.pdf"),
      field: FIELD,
      title,
      patientId,
    });
    await waitForPageImages(request, signing.signingLink);
    await handOver(page, signing.signatureId, title);
    const passes = await page.evaluate(() =>
      Object.values(sessionStorage).flatMap((value) => {
        try {
          const parsed = JSON.parse(value) as { sessionToken?: string };
          return parsed.sessionToken ? [parsed.sessionToken] : [];
        } catch {
          return [];
        }
      }),
    );
    expect(passes).toHaveLength(1);

    await signOffline(page);
    await expect(page.getByRole("status").filter({ hasText: en.signing.kioskHeldWaiting })).toBeVisible();
    const body = await page.locator("body").innerText();
    for (const secret of [title, patientId, signing.signatureId]) expect(body).not.toContain(secret);
    await expectAxeClean(page, "kiosk locked, a signature kept offline (820, en)");
    await shot(page, "offline-kiosk-locked-820-en");
    // Kept encrypted, the pass inside the encryption; nothing left in the tab's storages.
    const held = await heldOnDevice(page);
    expect(held.actions).toHaveLength(1);
    expect(JSON.stringify(held.actions)).not.toContain(passes[0]);
    expect(await page.evaluate(() => sessionStorage.length + localStorage.length)).toBeLessThanOrEqual(1);
    expect(await page.evaluate(() => JSON.stringify(Object.entries(sessionStorage)))).not.toContain("sessionToken");

    // Staff see that the device has not reported back.
    await staff.page.setViewportSize({ width: 1280, height: 800 });
    await staff.page.goto(`/signature-requests/${signing.signatureId}`);
    await expect(staff.page.getByText("Waiting for the device").first()).toBeVisible();
    await expect(
      staff.page.getByText(/A signature made there without a network arrives once the device/),
    ).toBeVisible();
    await shot(staff.page, "offline-kiosk-staff-waiting-1280-en");
    await staff.page.goto(`/signature-requests?patient=${encodeURIComponent(patientId)}`);
    await expect(staff.page.getByRole("row").filter({ hasText: patientId })).toContainText("Waiting for the device");

    // The network returns: the locked screen sends it, forgets it, and locks as after any signing.
    await page.context().setOffline(false);
    await expect(page).toHaveURL(/\/kiosk\?ended=signed$/, { timeout: 30_000 });
    await expect(page.getByText(en.signing.kioskSignedBody)).toBeVisible();
    expect(await heldOnDevice(page)).toEqual({ actions: [], keys: 0 });
    const kept = await page.evaluate(async () =>
      (await caches.open("clinsign-pages-v1").then((cache) => cache.keys())).map((key) => key.url),
    );
    expect(kept.filter((url) => url.includes("/kiosk/"))).toEqual([]);
    const metadata = await metadataOf(signing.signatureId);
    expect(metadata.events.filter((event) => event.action === "signature.signed")).toHaveLength(1);
    expect(metadata.timestamps.signed_on_device).toBeDefined();
    await staff.page.goto(`/signature-requests/${signing.signatureId}`);
    await expect(staff.page.getByText("Completed").first()).toBeVisible();
    await expect(staff.page.getByText("Waiting for the device")).toHaveCount(0);

    // The next patient on the same tablet finds nothing of the first: not on the page, not kept.
    const nextTitle = `Kiosk consent next patient ${Date.now()}`;
    const next = await requestSignature(request, staff.token, {
      pdfUrl: files.url("/consent.pdf"),
      field: FIELD,
      title: nextTitle,
      patientId: `P-kiosk-next-${Date.now()}`,
    });
    await handOver(page, next.signatureId, nextTitle);
    const nextBody = await page.locator("body").innerText();
    for (const secret of [title, patientId, signing.signatureId]) expect(nextBody).not.toContain(secret);
    // Nothing held; the one key is this patient's link's (the first one's went when it was sent).
    expect(await heldOnDevice(page)).toEqual({ actions: [], keys: 1 });
    const keptNow = await page.evaluate(async () =>
      (await caches.open("clinsign-pages-v1").then((cache) => cache.keys())).map((key) => key.url),
    );
    expect(keptNow.filter((url) => url.includes("/kiosk/"))).toEqual([page.url()]);
    expect(await page.evaluate(() => JSON.stringify(Object.entries(sessionStorage)))).not.toContain(
      signing.signatureId,
    );
  });

  test("a tablet that stays offline deletes the kept signature once it can no longer be sent, and says so", async ({
    page,
    request,
  }) => {
    test.setTimeout(120_000);
    const en = patientTexts.en;
    const title = `Kiosk consent never sent ${Date.now()}`;
    const signing = await requestSignature(request, staff.token, {
      pdfUrl: files.url("/consent.pdf"),
      field: FIELD,
      title,
      patientId: `P-kiosk-wiped-${Date.now()}`,
      expiresInMs: 40_000,
    });
    const expiresAt = Date.now() + 40_000;
    await waitForPageImages(request, signing.signingLink);
    await handOver(page, signing.signatureId, title);
    await signOffline(page);
    expect((await heldOnDevice(page)).actions).toHaveLength(1);
    // Its pass ends with the request's expiry; the locked screen looks again every 30 s.
    await page.waitForTimeout(Math.max(0, expiresAt - Date.now()));
    await expect(page.getByRole("status").filter({ hasText: en.signing.kioskHeldDeleted })).toBeVisible({
      timeout: 40_000,
    });
    expect(await heldOnDevice(page)).toEqual({ actions: [], keys: 0 });
    await shot(page, "offline-kiosk-deleted-820-en");
  });
});
