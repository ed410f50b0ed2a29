import { expect, test, type BrowserContext, type Page } from "@playwright/test";
import { expectAxeClean, useLanguage } from "./axe-support";
import {
  createActiveTemplate,
  createEmbedSession,
  latestSms,
  organizationName,
  requestFormBySms,
  setSmsOtp,
  smsFormLink,
  staffQuery,
  staffSignIn,
  startSmsGateway,
  type FieldSpec,
  type SmsGateway,
  type Staff,
} from "./forms-support";
import { heldOnDevice, pageKeptOnDevice } from "./offline-support";
import { patientTexts } from "./patient-texts";
import { hasHorizontalScroll, shot } from "./support";

// Issue 35: the network drops while a patient fills in a form. The page and its form stay (the
// service worker kept the page, the form page kept the opened form on the device, encrypted),
// the answers typed offline survive a reload, a file picked offline and the submission are held
// and sent by themselves once the network returns: the submission arrives once, with its file. A
// link that closed meanwhile refuses it, says so, and the device forgets it.

const FIELDS: FieldSpec[] = [
  { id: "1", type: "text", key: "fullName", label: "Full name", required: true },
  { id: "2", type: "textarea", key: "notes", label: "Anything else we should know?" },
  { id: "3", type: "file", key: "insuranceCard", label: "Insurance card", accept: "application/pdf", maxSizeMb: 2 },
  { id: "4", type: "checkbox", key: "privacy", label: "I agree that the clinic processes my answers", required: true },
];
const CARD = { name: "insurance-card.pdf", mimeType: "application/pdf", buffer: Buffer.from("%PDF-1.4\n%%EOF\n") };

let staff: Staff;
let sms: SmsGateway;

test.beforeAll(async ({ browser }) => {
  sms = await startSmsGateway();
  staff = await staffSignIn(browser, "E2E offline forms");
  await setSmsOtp(staff, true);
});
test.afterAll(async () => {
  await staff?.context.close();
  await sms?.close();
});

interface StoredSubmission {
  id: string;
  values: Record<string, unknown>;
}

async function submissionsOf(templateIdentifier: string): Promise<StoredSubmission[]> {
  const { items } = await staffQuery<{ items: { id: string }[] }>(staff, "submissions.list", {
    templateIdentifier,
    limit: 10,
  });
  return Promise.all(items.map((item) => staffQuery<StoredSubmission>(staff, "submissions.get", { id: item.id })));
}

/** When the device last wrote its copy of the opened form; null before it kept one. */
async function keptFormAt(page: Page): Promise<string | null> {
  return (await heldOnDevice(page)).actions.find((action) => action.kind === "form")?.heldAt ?? null;
}

/** The service worker answers the page and has kept it; the form page has kept its opened form. */
async function untilKeptOnDevice(page: Page): Promise<void> {
  await page.waitForFunction(() => navigator.serviceWorker?.controller !== null, undefined, { timeout: 20_000 });
  await expect
    .poll(() => pageKeptOnDevice(page), {
      message: "the page kept on the device",
    })
    .toBe(true);
  await expect.poll(() => keptFormAt(page), { message: "the opened form kept on the device" }).not.toBeNull();
}

/** Types into a field offline and waits until the device's copy of the form has it. */
async function typeOffline(page: Page, label: string, text: string): Promise<void> {
  const before = await keptFormAt(page);
  await page.getByLabel(label).fill(text);
  await expect.poll(() => keptFormAt(page), { message: "the answer kept on the device" }).not.toBe(before);
}

async function expectNothingHeld(page: Page): Promise<void> {
  expect(await heldOnDevice(page)).toEqual({ actions: [], keys: 0 });
  expect(await pageKeptOnDevice(page)).toBe(false);
}

/** Agrees and sends the form without network: it is held on the device, and the page says so. */
async function submitOffline(page: Page, texts: (typeof patientTexts)["en"]): Promise<void> {
  await page.getByRole("checkbox", { name: /I agree that the clinic processes my answers/ }).check();
  await page.getByRole("button", { name: texts.forms.submit }).click();
  await expect(page.getByRole("heading", { level: 1, name: texts.forms.heldTitle })).toBeVisible();
  await expect(page.getByRole("status").filter({ hasText: texts.forms.heldWaiting })).toBeVisible();
}

async function reopenOffline(context: BrowserContext, page: Page, url: string): Promise<Page> {
  await page.close();
  const again = await context.newPage();
  await again.goto(url);
  return again;
}

test.describe("an embedded form on a phone while the network is gone", () => {
  test.use({ viewport: { width: 390, height: 844 }, deviceScaleFactor: 2, isMobile: true, hasTouch: true });

  test("answers typed offline survive a reload, a file picked offline and the submission are held encrypted, survive a closed tab, and arrive once when the network returns", async ({
    page,
    context,
    request,
  }) => {
    const en = patientTexts.en;
    const title = `Admission questionnaire offline ${Date.now()}`;
    const identifier = await createActiveTemplate(request, staff, title, FIELDS);
    const { embedUrl, sessionId } = await createEmbedSession(request, staff, identifier);
    await useLanguage(context, "en");
    await page.goto(embedUrl);
    await expect(page.getByRole("heading", { level: 1, name: title })).toBeVisible();
    await page.getByLabel(/^Full name/).fill("Erika Offline");
    await expect(page.getByRole("status").filter({ hasText: /^Saved/ })).toBeVisible();
    await untilKeptOnDevice(page);

    // The network goes: the form says what happens to what is typed now.
    await context.setOffline(true);
    await expect(page.getByText(en.forms.offlineNote)).toBeVisible();
    await typeOffline(page, "Anything else we should know?", "Typed in the basement");

    // A reload without network: the form opens from the device with everything typed so far.
    await page.reload();
    await expect(page.getByRole("heading", { level: 1, name: title })).toBeVisible();
    await expect(page.getByLabel(/^Full name/)).toHaveValue("Erika Offline");
    await expect(page.getByLabel("Anything else we should know?")).toHaveValue("Typed in the basement");
    await expect(page.getByText(en.forms.offlineNote)).toBeVisible();
    await expectAxeClean(page, "embedded form offline (390, en)");
    await shot(page, "offline-form-ready-390-en");

    // A file picked offline is kept on the device and listed with the form.
    const cardField = page.getByRole("group", { name: /^Insurance card/ });
    await cardField.locator("input[type=file]").setInputFiles(CARD);
    await expect(cardField.getByRole("list", { name: "Uploaded files" }).getByRole("listitem")).toHaveText([
      new RegExp(CARD.name),
    ]);
    await submitOffline(page, en);
    expect(await hasHorizontalScroll(page)).toBe(false);
    await expectAxeClean(page, "form held offline (390, en)");
    await shot(page, "offline-form-held-390-en");

    // Held encrypted: the opened form, the file and the submission; no answer, no file, no session in clear.
    const held = await heldOnDevice(page);
    expect(held.actions.map((action) => action.kind).sort()).toEqual(["file", "form", "submission"]);
    expect(held.keys).toBe(1);
    const stored = JSON.stringify(held.actions);
    for (const secret of ["Erika", "basement", "JVBERi0", sessionId]) expect(stored).not.toContain(secret);

    // The tab is closed and opened again, still offline: the submission waits there; nothing arrived.
    const again = await reopenOffline(context, page, embedUrl);
    await expect(again.getByRole("heading", { level: 1, name: en.forms.heldTitle })).toBeVisible();
    // Opened without network, the page still names who is asking.
    await expect(again.getByRole("banner")).toContainText(await organizationName(staff));
    expect(await submissionsOf(identifier)).toEqual([]);

    // The network returns: the file and the submission are sent by themselves, once.
    await context.setOffline(false);
    await expect(again.getByRole("heading", { level: 1, name: en.forms.doneTitle })).toBeVisible({ timeout: 30_000 });
    await expectNothingHeld(again);
    const submissions = await submissionsOf(identifier);
    expect(submissions).toHaveLength(1);
    expect(submissions[0]!.values).toMatchObject({
      fullName: "Erika Offline",
      notes: "Typed in the basement",
      privacy: true,
      insuranceCard: [expect.objectContaining({ name: CARD.name, size: CARD.buffer.length })],
    });
    const card = (submissions[0]!.values.insuranceCard as { path: string }[])[0]!;
    expect(card.path.startsWith("held:")).toBe(false);
  });
});

/**
 * The SMS link in German: identification with the code from the second SMS, then the form with
 * the name typed, kept on the device.
 */
async function smsFormKeptOnDevice(
  page: Page,
  context: BrowserContext,
  request: Parameters<typeof requestFormBySms>[0],
  patient: { suffix: number; name: string },
) {
  const de = patientTexts.de;
  await useLanguage(context, "de");
  const title = `Anamnesebogen offline ${Date.now()}`;
  const identifier = await createActiveTemplate(request, staff, title, FIELDS);
  const phone = `+4917012346${String(patient.suffix).padStart(2, "0")}`;
  const rnummer = `R-OFF-${Date.now()}`;
  await requestFormBySms(request, staff, { phone, rnummer, templateIdentifier: identifier, locale: "de" });
  const link = await smsFormLink(sms, phone);
  await page.goto(link);
  await page.getByLabel(new RegExp(`^${de.forms.sms.rnummerLabel}`)).fill(rnummer);
  await page.getByLabel(new RegExp(`^${de.forms.sms.phoneLabel}`)).fill(phone);
  await page.getByRole("button", { name: de.forms.sms.identifyButton }).click();
  await expect(page.getByRole("heading", { level: 1, name: de.forms.sms.otpTitle })).toBeVisible();
  const code = /Ihr Code lautet (\d{6})/.exec((await latestSms(sms, phone, /Ihr Code lautet \d{6}/)).body)![1]!;
  await page.getByLabel(new RegExp(`^${de.forms.sms.otpLabel}`)).fill(code);
  await page.getByRole("button", { name: de.forms.sms.otpButton }).click();
  await expect(page.getByRole("heading", { level: 1, name: title })).toBeVisible();
  await page.getByLabel(/^Full name/).fill(patient.name);
  await untilKeptOnDevice(page);
  return { identifier, link, rnummer };
}

test.describe("an SMS form on a tablet in German while the network is gone", () => {
  test.use({ viewport: { width: 820, height: 1180 } });

  test("the form reloads offline, the submission is held and arrives once when the network returns", async ({
    page,
    context,
    request,
  }) => {
    const de = patientTexts.de;
    const { identifier, link } = await smsFormKeptOnDevice(page, context, request, { suffix: 71, name: "Jan Keller" });

    await context.setOffline(true);
    await expect(page.getByText(de.forms.offlineNote)).toBeVisible();
    await typeOffline(page, "Anything else we should know?", "Im Keller kein Netz");
    await page.reload();
    await expect(page.getByLabel(/^Full name/)).toHaveValue("Jan Keller");
    await expect(page.getByLabel("Anything else we should know?")).toHaveValue("Im Keller kein Netz");
    await submitOffline(page, de);
    await expectAxeClean(page, "SMS form held offline (820, de)");
    await shot(page, "offline-form-held-820-de");
    expect(await submissionsOf(identifier)).toEqual([]);

    await context.setOffline(false);
    await expect(page.getByRole("heading", { level: 1, name: de.forms.doneTitle })).toBeVisible({ timeout: 30_000 });
    await expectNothingHeld(page);
    const submissions = await submissionsOf(identifier);
    expect(submissions).toHaveLength(1);
    expect(submissions[0]!.values).toMatchObject({ fullName: "Jan Keller", notes: "Im Keller kein Netz" });
    // The link is used up: opened again, it says so, and nothing is held for it.
    await page.goto(link);
    await expect(page.getByRole("heading", { level: 1, name: de.forms.sms.submittedTitle })).toBeVisible();
  });

  test("a link cancelled meanwhile refuses the held submission, says so, and the device forgets it", async ({
    page,
    context,
    request,
  }) => {
    const de = patientTexts.de;
    const { identifier, rnummer } = await smsFormKeptOnDevice(page, context, request, {
      suffix: 72,
      name: "Jan Abgesagt",
    });
    await context.setOffline(true);
    await submitOffline(page, de);

    // Staff cancel the request while the tablet is offline.
    const { items } = await staffQuery<{ items: { id: string }[] }>(staff, "formRequests.list", { rnummer, limit: 5 });
    expect(items).toHaveLength(1);
    const cancelled = await staff.context.request.post("/trpc/formRequests.cancel", { data: { id: items[0]!.id } });
    expect(cancelled.status(), await cancelled.text()).toBe(200);

    await context.setOffline(false);
    await expect(page.getByRole("heading", { level: 1, name: de.forms.sms.expiredTitle })).toBeVisible({
      timeout: 30_000,
    });
    await expect(page.getByText(de.forms.heldDiscarded)).toBeVisible();
    await expectAxeClean(page, "held form discarded (820, de)");
    await shot(page, "offline-form-discarded-820-de");
    await expectNothingHeld(page);
    expect(await submissionsOf(identifier)).toEqual([]);
  });
});

test.describe("a device shared by patients", () => {
  test.use({ viewport: { width: 820, height: 1180 } });

  test("a form left on the device past its session's end is deleted by the next patient page; what is still running, and signatures, stay", async ({
    page,
    request,
  }) => {
    const title = `Left on the tablet ${Date.now()}`;
    const identifier = await createActiveTemplate(request, staff, title, FIELDS);
    const { embedUrl } = await createEmbedSession(request, staff, identifier);
    await page.goto(embedUrl);
    await expect(page.getByRole("heading", { level: 1, name: title })).toBeVisible();
    await expect.poll(() => keptFormAt(page), { message: "this form kept on the device" }).not.toBeNull();

    // What earlier visits left: a form whose session ended yesterday (with its key), one whose
    // session still runs, and a signature past its pass (the desk's locked screen reports those).
    await page.evaluate(async () => {
      const past = new Date(Date.now() - 86_400_000).toISOString();
      const future = new Date(Date.now() + 86_400_000).toISOString();
      const key = await crypto.subtle.generateKey({ name: "AES-GCM", length: 256 }, false, ["encrypt", "decrypt"]);
      const record = (id: string, kind: string, link: string, until: string) => ({
        id,
        kind,
        link,
        until,
        heldAt: past,
        iv: new Uint8Array(12),
        data: new ArrayBuffer(16),
      });
      await new Promise<void>((resolve, reject) => {
        const open = indexedDB.open("clinsign-held", 1);
        open.onerror = () => reject(open.error);
        open.onsuccess = () => {
          const tx = open.result.transaction(["held", "keys"], "readwrite");
          const held = tx.objectStore("held");
          held.put(record("form:ended", "form", "ended", past));
          held.put(record("ended-file", "file", "ended", past));
          held.put(record("form:running", "form", "running", future));
          held.put(record("old-signature", "signature", "desk", past));
          for (const link of ["ended", "running", "desk"]) tx.objectStore("keys").put({ link, key });
          tx.oncomplete = () => {
            open.result.close();
            resolve();
          };
          tx.onerror = () => reject(tx.error);
        };
      });
    });

    // The next patient page (here: the same form opened again) clears what ended, once idle.
    await page.reload();
    await expect(page.getByRole("heading", { level: 1, name: title })).toBeVisible();
    const seeded = ["form:ended", "ended-file", "form:running", "old-signature"];
    const seededLeft = async () =>
      (await heldOnDevice(page)).actions
        .map((action) => action.id)
        .filter((id) => seeded.includes(id))
        .sort();
    await expect.poll(seededLeft, { message: "what ended deleted" }).toEqual(["form:running", "old-signature"]);
    const left = (await heldOnDevice(page)).actions.map((action) => action.id);
    // This page's own form, kept while its session runs, stays too.
    expect(left.filter((id) => id.startsWith("form:") && !seeded.includes(id))).toHaveLength(1);
    // The ended link's key went with its forms; the others' stay (this page's own, the running one's, the desk's).
    expect((await heldOnDevice(page)).keys).toBe(3);
  });
});
