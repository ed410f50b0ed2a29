import { expect, test, type BrowserContext, type Page } from "@playwright/test";
import { expectAccessible, staffSignIn, type Staff } from "./forms-support";
import { drawWithMouse, makeConsentPdf, requestSignature, startFileServer, type FileServer } from "./signing-support";
import { hasHorizontalScroll, signIn, WEB_PORT } from "./support";

const FIELD = { page: 1, x: 60, y: 640, width: 240, height: 80 };
const run = Date.now();
const TITLE = `Kiosk consent ${run}`;
const PATIENT = `P-kiosk-${run}`;
const TABLET = { width: 820, height: 1180 };

let staff: Staff;
let files: FileServer;
let signatureId: string;

test.beforeAll(async ({ browser, request }) => {
  files = await startFileServer({ "/consent.pdf": await makeConsentPdf(FIELD) });
  staff = await staffSignIn(browser, "E2E kiosk");
  ({ signatureId } = await requestSignature(request, staff.token, {
    pdfUrl: files.url("/consent.pdf"),
    field: FIELD,
    title: TITLE,
    patientId: PATIENT,
    institutionId: `e2e-kiosk-${run}`,
  }));
});
test.afterAll(async () => {
  await files?.close();
  await staff?.context.close();
});

/**
 * Nothing of this patient in the page's text: no id, no document, no request id. With `url`, not
 * in the address either (a typed console address keeps its own path in the login's `next`).
 */
async function expectNoPatientData(page: Page, { url = true } = {}) {
  const text = await page.locator("body").innerText();
  for (const secret of [PATIENT, TITLE, signatureId]) expect(text).not.toContain(secret);
  if (url) for (const secret of [PATIENT, signatureId]) expect(page.url()).not.toContain(secret);
}

/** Both storages of the context's origin, as one string. */
async function storedText(page: Page): Promise<string> {
  return page.evaluate(() =>
    JSON.stringify([Object.entries(window.localStorage), Object.entries(window.sessionStorage)]),
  );
}

/** How many links' keys for holding a signature offline the device keeps (IndexedDB, issue 35). */
async function heldKeys(page: Page): Promise<number> {
  return page.evaluate(
    () =>
      new Promise<number>((resolve) => {
        const open = indexedDB.open("clinsign-held");
        open.onerror = () => resolve(0);
        open.onsuccess = () => {
          const db = open.result;
          if (!db.objectStoreNames.contains("keys")) return resolve(0);
          const count = db.transaction("keys").objectStore("keys").count();
          count.onsuccess = () => resolve(count.result);
        };
      }),
  );
}

test("sign at the desk: the patient signs on the tablet, then it locks and shows nothing of them", async ({
  browser,
}) => {
  test.setTimeout(120_000);
  const tablet: BrowserContext = await browser.newContext({
    baseURL: `http://localhost:${WEB_PORT}`,
    locale: "en-GB",
    viewport: TABLET,
    hasTouch: true,
  });
  const page = await tablet.newPage();
  await signIn(page);

  // Staff open the request and hand the tablet over.
  await page.goto(`/signature-requests/${signatureId}`);
  await expect(page.getByRole("heading", { level: 1, name: "Signature request" })).toBeVisible();
  await expect(page.getByText(PATIENT).first()).toBeVisible();
  await page.getByRole("button", { name: "Sign at this device" }).click();
  const dialog = page.getByRole("alertdialog", { name: "Sign at this device?" });
  await expect(dialog).toBeVisible();
  await expectAccessible(page, "kiosk hand-over dialog");
  await dialog.getByRole("button", { name: "Sign out and hand over" }).click();

  // The signing page of this one request; the staff cookie is gone.
  await expect(page).toHaveURL(/\/kiosk\/[A-Za-z0-9_-]+$/);
  const kioskUrl = page.url();
  await expect(page.getByRole("heading", { level: 1, name: TITLE })).toBeVisible();
  expect((await tablet.cookies()).map((c) => c.name)).not.toContain("clinsign_session");
  const signingAnswer = await page.request.get(kioskUrl);
  expect(signingAnswer.headers()["cache-control"]).toContain("no-store");
  await expectAccessible(page, "kiosk signing page");
  expect(await hasHorizontalScroll(page)).toBe(false);

  const canvas = page.getByRole("img", { name: /^Signature area/ });
  await canvas.scrollIntoViewIfNeeded();
  await drawWithMouse(page, canvas);
  await page.getByLabel("I have read the document and agree to sign it electronically.").check();
  await page.getByRole("button", { name: "Sign document" }).click();

  // Locked: the clinic's screen, nothing of the patient.
  await expect(page).toHaveURL(/\/kiosk\?ended=signed$/, { timeout: 30_000 });
  await expect(page.getByRole("heading", { level: 1, name: "Please hand the device back to the staff" })).toBeVisible();
  await expect(page.getByText("Thank you. Your signature has been recorded.")).toBeVisible();
  await expectNoPatientData(page);
  await expectAccessible(page, "kiosk locked screen");
  // Nothing kept for holding a signature offline either (the link's key goes with the signing).
  await expect.poll(() => heldKeys(page)).toBe(0);
  const lockedAnswer = await page.request.get("/kiosk?ended=signed");
  expect(lockedAnswer.headers()["cache-control"]).toContain("no-store");
  expect(await storedText(page)).not.toMatch(new RegExp(`${PATIENT}|${TITLE}|${signatureId}|sessionToken`));

  // The back button does not return to the signing page or the console.
  await page.goBack();
  await page.waitForLoadState("load");
  await expectNoPatientData(page);
  await expect(page).not.toHaveURL(/\/kiosk\/[A-Za-z0-9_-]+$/);

  // Loading the previous addresses again shows nothing of the patient either.
  await page.goto(kioskUrl);
  await expect(page.getByRole("heading", { level: 1, name: "Please hand the device back to the staff" })).toBeVisible({
    timeout: 30_000,
  });
  await expectNoPatientData(page);
  await page.goto(`/signature-requests/${signatureId}`);
  await expect(page).toHaveURL(/\/login/);
  await expect(page.getByLabel("E-mail address")).toBeVisible();
  await expectNoPatientData(page, { url: false });
  await page.goto("/documents");
  await expect(page).toHaveURL(/\/login/);
  await expectNoPatientData(page);
  expect(await storedText(page)).not.toMatch(new RegExp(`${PATIENT}|${TITLE}|${signatureId}|sessionToken`));

  // "Staff sign-in" leads to the console's login.
  await page.goto("/kiosk");
  await page.getByRole("link", { name: "Staff sign-in" }).click();
  await expect(page).toHaveURL(/\/login/);
  await expect(page.getByLabel("E-mail address")).toBeVisible();

  // The console (another staff session) sees the request signed and the hand-over in the audit.
  await staff.page.goto(`/signature-requests/${signatureId}`);
  await expect(staff.page.getByText("Signed", { exact: true }).first()).toBeVisible({ timeout: 30_000 });
  await tablet.close();
});

test("the locked screen in German", async ({ browser }) => {
  const context = await browser.newContext({
    baseURL: `http://localhost:${WEB_PORT}`,
    locale: "de-DE",
    viewport: TABLET,
  });
  await context.addCookies([{ name: "lang", value: "de", url: `http://localhost:${WEB_PORT}` }]);
  const page = await context.newPage();
  await page.goto("/kiosk?ended=timeout");
  await expect(
    page.getByRole("heading", { level: 1, name: "Bitte geben Sie das Gerät an das Personal zurück" }),
  ).toBeVisible();
  await expect(page.getByRole("link", { name: "Anmeldung für Mitarbeitende" })).toBeVisible();
  await expectAccessible(page, "kiosk locked screen (de)");
  await context.close();
});
