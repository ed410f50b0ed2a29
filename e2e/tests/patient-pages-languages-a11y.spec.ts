import { expect, test, type BrowserContext, type Page } from "@playwright/test";
import {
  CHECKED_SIZES,
  expectAxeClean,
  expectPageLanguage,
  PATIENT_LANGUAGES,
  useLanguage,
  type PatientLanguage,
} from "./axe-support";
import {
  createActiveTemplate,
  createEmbedSession,
  requestFormBySms,
  smsFormLink,
  staffSignIn,
  startSmsGateway,
  type SmsGateway,
  type Staff,
} from "./forms-support";
import { patientTexts } from "./patient-texts";
import { makeConsentPdf, requestSignature, startFileServer, type FileServer } from "./signing-support";
import { hasHorizontalScroll } from "./support";

// Every patient page in all seven languages, at 320 px and at 200 % zoom, with every rule axe
// ships (experimental ones included): no violation of any impact. One test per page (and size)
// loops the languages, so the matrix stays a handful of tests.

const FIELD = { page: 1, x: 60, y: 640, width: 240, height: 80 };

let staff: Staff;
let files: FileServer;
let sms: SmsGateway;

test.beforeAll(async ({ browser }) => {
  files = await startFileServer({ "/consent.pdf": await makeConsentPdf(FIELD) });
  sms = await startSmsGateway();
  staff = await staffSignIn(browser, "E2E languages accessibility");
});
test.afterAll(async () => {
  await Promise.all([files?.close(), sms?.close(), staff?.context.close()]);
});

/** Opens `url` in each language; `ready` waits for the state to check; then axe checks it. */
async function eachLanguage(
  page: Page,
  context: BrowserContext,
  state: string,
  url: string,
  ready: (lang: PatientLanguage) => Promise<void>,
): Promise<void> {
  for (const lang of PATIENT_LANGUAGES) {
    await useLanguage(context, lang);
    await page.goto(url);
    await expectPageLanguage(page, lang);
    await ready(lang);
    expect(await hasHorizontalScroll(page), `${state} (${lang}) scrolls sideways`).toBe(false);
    await expectAxeClean(page, `${state} (${lang})`);
  }
}

const heading = (page: Page, name: string) => page.getByRole("heading", { level: 1, name });

for (const size of CHECKED_SIZES) {
  test.describe(`patient pages in every language, every axe rule (${size.name})`, () => {
    test.use({ viewport: size.viewport, deviceScaleFactor: size.deviceScaleFactor });
    test.setTimeout(300_000);

    test("signing portal: the document, an unknown link, the signed copy", async ({ page, context, request }) => {
      const title = "Consent to anaesthesia";
      const signing = await requestSignature(request, staff.token, {
        pdfUrl: files.url("/consent.pdf"),
        field: FIELD,
        title,
        patientId: `P-lang-a11y-${Date.now()}`,
      });
      await eachLanguage(page, context, "signing portal: document", signing.signingLink, async (lang) => {
        await expect(heading(page, title)).toBeVisible();
        await expect(page.getByRole("button", { name: patientTexts[lang].signing.signButton })).toBeVisible();
        await expect(page.locator('figure[data-page="1"]')).toHaveAttribute("data-rendered", "true");
      });
      await eachLanguage(page, context, "signing portal: unknown link", `/sign/${"x".repeat(43)}`, async (lang) => {
        await expect(heading(page, patientTexts[lang].signing.unknownTitle)).toBeVisible();
      });

      // Signed (with a typed name, in English), the link shows the copy to download.
      await useLanguage(context, "en");
      await page.goto(signing.signingLink);
      await page.getByRole("radio", { name: "Type your name" }).check();
      await page.getByLabel("Your full name").fill("Erika Mustermann");
      await page.getByLabel("I have read the document and agree to sign it electronically.").check();
      await page.getByRole("button", { name: "Sign document" }).click();
      await expect(heading(page, "Thank you — your document is signed")).toBeVisible({ timeout: 30_000 });
      await eachLanguage(page, context, "signing portal: signed copy", signing.signingLink, async (lang) => {
        await expect(page.getByRole("button", { name: patientTexts[lang].signing.download })).toBeVisible();
      });
    });

    test("embedded form: the form, its error summary, an ended session", async ({ page, context, request }) => {
      const title = `Languages form ${Date.now()}`;
      const identifier = await createActiveTemplate(request, staff, title, [
        { id: "1", type: "text", key: "fullName", label: "Full name", required: true, helpText: "As on your card." },
        { id: "2", type: "select", key: "ward", label: "Ward", options: ["Surgery", "Cardiology"] },
        { id: "3", type: "date", key: "born", label: "Date of birth" },
        { id: "4", type: "signature", key: "signature", label: "Signature" },
      ]);
      const embedSession = await createEmbedSession(request, staff, identifier);
      await eachLanguage(page, context, "embedded form", embedSession.embedUrl, async (lang) => {
        await expect(heading(page, title)).toBeVisible();
        await expectAxeClean(page, `embedded form, empty (${lang})`);
        await page.getByRole("button", { name: patientTexts[lang].forms.submit }).click();
        await expect(
          page.getByRole("alert").filter({ hasText: patientTexts[lang].forms.errorSummaryTitle }),
        ).toBeVisible();
      });
      await eachLanguage(
        page,
        context,
        "embedded form: ended session",
        `/embed/${identifier}?session=fs_${"A".repeat(43)}`,
        async (lang) => {
          await expect(heading(page, patientTexts[lang].forms.states.sessionEndedTitle)).toBeVisible();
        },
      );
    });

    test("SMS form portal: who are you, and an unknown link", async ({ page, context, request }) => {
      const identifier = await createActiveTemplate(request, staff, `Languages SMS form ${Date.now()}`, [
        { id: "1", type: "text", key: "note", label: "Note" },
      ]);
      const phone = `+4917${String(Date.now()).slice(-8)}`;
      await requestFormBySms(request, staff, { phone, rnummer: `R-${Date.now()}`, templateIdentifier: identifier });
      const link = await smsFormLink(sms, phone);
      await eachLanguage(page, context, "SMS portal: identify", link, async (lang) => {
        await expect(heading(page, patientTexts[lang].forms.sms.identifyTitle)).toBeVisible();
      });
      await eachLanguage(page, context, "SMS portal: unknown link", `/f/${"x".repeat(43)}`, async (lang) => {
        await expect(heading(page, patientTexts[lang].forms.sms.unknownTitle)).toBeVisible();
      });
    });

    test("seal check and the kiosk's locked screen", async ({ page, context }) => {
      await eachLanguage(page, context, "seal check", "/verify", async (lang) => {
        await expect(heading(page, patientTexts[lang].verify.heading)).toBeVisible();
      });
      await eachLanguage(page, context, "kiosk locked", "/kiosk?ended=signed", async (lang) => {
        await expect(heading(page, patientTexts[lang].signing.kioskLockedTitle)).toBeVisible();
      });
    });
  });
}
