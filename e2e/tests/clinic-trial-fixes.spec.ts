import { expect, test, type APIRequestContext, type Browser, type BrowserContext, type Page } from "@playwright/test";
import { PATIENT_LANGUAGES, useLanguage, type PatientLanguage } from "./axe-support";
import {
  brandInstitution,
  darkLogoPng,
  expectAccessible,
  requestFormBySms,
  smsFormLink,
  startSmsGateway,
  staffSignIn,
  type SmsGateway,
  type Staff,
} from "./forms-support";
import { drawWithMouse, makeConsentPdf, requestSignature, startFileServer, type FileServer } from "./signing-support";
import { API_URL, hasHorizontalScroll, WEB_PORT } from "./support";

/**
 * Issue 31, what a clinic noticed in its trial run (staff at 1280 px, patients on 390 px phones,
 * German, English, Turkish, Arabic) and a person would notice again:
 * - the request list said "Opened" after the patient signed (several signers);
 * - lists used the browser's time zone, detail pages the clinic's;
 * - "Institution ID" was required and not marked;
 * - an http:// webhook URL was accepted in Settings and failed only at delivery;
 * - the header kept the old clinic name until a reload;
 * - the language switch was clipped on phones;
 * - a German title broke mid-word at 390 px ("Gesundheitsfrageboge/n").
 */

const run = Date.now();
const DESK = { viewport: { width: 1280, height: 800 } };
const PHONE = { viewport: { width: 390, height: 844 }, deviceScaleFactor: 2, isMobile: true, hasTouch: true };
/** The demo organization's zone (Settings) is Europe/Berlin; the desk's browser runs on New York's clock. */
const BROWSER_ZONE = "America/New_York";
const CLINIC_ZONE_NOTE = "Times in the clinic's time zone: Central European Time (Europe/Berlin)";
/** A clinic's name as long as real ones are, beside its logo in the patient pages' header. */
const LONG_NAME = "Universitätsklinikum Schleswig-Holstein, Campus Lübeck";
const TITLE_WORD = "Gesundheitsfragebogen";

const PATIENT_FIELD = { page: 1, x: 60, y: 560, width: 220, height: 70 };
const GUARDIAN_FIELD = { page: 1, x: 315, y: 560, width: 220, height: 70, role: "legal_representative" };
const PHYSICIAN_FIELD = { page: 1, x: 60, y: 680, width: 220, height: 70, role: "physician" };

let staff: Staff;
let files: FileServer;
let sms: SmsGateway;
let me: string;

async function staffMutation<T>(path: string, input: unknown): Promise<T> {
  const response = await staff.context.request.post(`/trpc/${path}`, { data: input });
  const text = await response.text();
  expect(response.status(), `${path}: ${text}`).toBe(200);
  return (JSON.parse(text) as { result: { data: T } }).result.data;
}

const orgSettings = async () =>
  (
    (await (await staff.context.request.get("/trpc/organization.settings")).json()) as {
      result: { data: { name: string; webhookUrls: string[] } };
    }
  ).result.data;

/** A browser window of the demo admin with its own size, language and clock. */
async function desk(
  browser: Browser,
  lang: "en" | "de",
  size = DESK,
): Promise<{ context: BrowserContext; page: Page }> {
  const context = await browser.newContext({
    ...size,
    storageState: await staff.context.storageState(),
    locale: lang === "de" ? "de-DE" : "en-GB",
    timezoneId: BROWSER_ZONE,
  });
  await context.addCookies([{ name: "lang", value: lang, url: `http://localhost:${WEB_PORT}` }]);
  return { context, page: await context.newPage() };
}

test.beforeAll(async ({ browser }) => {
  files = await startFileServer({ "/consent.pdf": await makeConsentPdf(PATIENT_FIELD) });
  sms = await startSmsGateway();
  staff = await staffSignIn(browser, "E2E clinic trial");
  const auth = await staff.context.request.get("/trpc/auth.me");
  me = ((await auth.json()) as { result: { data: { user: { id: string } } } }).result.data.user.id;
});
test.afterAll(async () => {
  await files?.close();
  await sms?.close();
  await staff?.context.close();
});

/** A6 with the patient's, a guardian's and the physician's field, then A1 naming who signs. */
async function requestWithThreeSigners(request: APIRequestContext, patientId: string) {
  const headers = { authorization: `Bearer ${staff.token}` };
  const document = await request.post(`${API_URL}/documents`, {
    headers,
    data: {
      document_name: `Consent of a minor ${run}`,
      account_name: "e2e",
      signingfield_koordinates: [PATIENT_FIELD, GUARDIAN_FIELD, PHYSICIAN_FIELD],
      document_bloburl: files.url("/consent.pdf"),
    },
  });
  expect(document.status(), await document.text()).toBe(201);
  const created = await request.post(`${API_URL}/signature-requests`, {
    headers,
    data: {
      patient_id: patientId,
      document_id: ((await document.json()) as { document_id: string }).document_id,
      institution_id: "e2e-clinic",
      expiration_date: new Date(Date.now() + 3_600_000).toISOString(),
      order_by: "dr.e2e",
      signers: [
        { role: "legal_representative", name: "Maria Muster" },
        { role: "physician", staff_user_id: me },
      ],
    },
  });
  expect(created.status(), await created.text()).toBe(201);
  return (await created.json()) as { signature_id: string; signing_link: string };
}

test("the request list says the patient signed, by itself; its times are the clinic's, and it says so", async ({
  browser,
  request,
}) => {
  test.setTimeout(120_000);
  const patientId = `P-trial-${run}`;
  const created = await requestWithThreeSigners(request, patientId);
  const { context, page } = await desk(browser, "en");
  await page.goto(`/signature-requests?patient=${patientId}`);
  const table = page.getByRole("table", { name: "Signature requests, newest first" });
  const row = table.getByRole("row").filter({ hasText: patientId });
  await expect(row).toContainText("Pending");
  await expect(row).toContainText("0 of 3 signed");
  await expect(page.getByText(CLINIC_ZONE_NOTE)).toBeVisible();

  // The patient signs on their own phone while the list stays open at the desk.
  const phone = await browser.newContext({ ...PHONE, locale: "en-GB" });
  const patient = await phone.newPage();
  await patient.goto(created.signing_link);
  const canvas = patient.getByRole("img", { name: /^Signature area/ });
  await canvas.scrollIntoViewIfNeeded();
  await drawWithMouse(patient, canvas);
  await patient.getByLabel("I have read the document and agree to sign it electronically.").check();
  await patient.getByRole("button", { name: "Sign document" }).click();
  await expect(
    patient.getByRole("heading", { level: 1, name: "Thank you — your signature is recorded" }),
  ).toBeVisible();
  await phone.close();

  // No reload: the list asks again while a request can still move.
  await expect(row).toContainText("Partly signed", { timeout: 30_000 });
  await expect(row).toContainText("1 of 3 signed");
  await expect(row).not.toContainText("Opened");
  await expectAccessible(page, "request list: partly signed");
  await page.screenshot({ path: test.info().outputPath("requests-list-partly-signed-en-1280.png") });

  // The same moment reads the same in the list and on the request's page (the clinic's clock, not
  // the browser's New York one), and the page names the zone.
  const listed = (await row.getByRole("cell").first().innerText()).trim();
  const browserClock = await page.evaluate(
    ([iso]) => new Intl.DateTimeFormat("en-GB", { dateStyle: "medium", timeStyle: "short" }).format(new Date(iso!)),
    [await createdAt(created.signature_id)],
  );
  expect(listed).not.toBe(browserClock);
  await row.getByRole("link", { name: /^Open the request/ }).click();
  const created_ = page.getByTestId("timeline").getByRole("listitem").filter({ hasText: "Created" });
  await expect(created_).toContainText(listed);
  await expect(created_).toContainText(/\d{2}:\d{2} CES?T/);
  await page.screenshot({ path: test.info().outputPath("request-detail-clinic-time-en-1280.png"), fullPage: true });
  await context.close();

  // German on a phone: the same words in German, nothing wider than the screen.
  const de = await desk(browser, "de", PHONE);
  await de.page.goto(`/signature-requests?patient=${patientId}`);
  const deRow = de.page.getByRole("row").filter({ hasText: patientId });
  await expect(deRow).toContainText("Teilweise unterschrieben");
  await expect(deRow).toContainText("1 von 3 unterschrieben");
  await expect(
    de.page.getByText("Zeiten in der Zeitzone der Klinik: Mitteleuropäische Zeit (Europe/Berlin)"),
  ).toBeVisible();
  expect(await hasHorizontalScroll(de.page)).toBe(false);
  await de.page.screenshot({ path: test.info().outputPath("requests-list-partly-signed-de-390.png"), fullPage: true });
  await de.context.close();

  async function createdAt(id: string): Promise<string> {
    const response = await staff.context.request.get("/trpc/signatures.detail", {
      params: { input: JSON.stringify({ id }) },
    });
    return ((await response.json()) as { result: { data: { createdAt: string } } }).result.data.createdAt;
  }
});

for (const [lang, size, names] of [
  ["en", DESK, { newRequest: "New request", dialog: "New signature request", other: "Another institution…" }],
  ["de", PHONE, { newRequest: "Neue Anfrage", dialog: "Neue Signaturanfrage", other: "Andere Einrichtung …" }],
] as const) {
  test(`the new request's required fields are marked, Institution ID too (${lang}, ${size.viewport.width})`, async ({
    browser,
  }) => {
    const { context, page } = await desk(browser, lang, size);
    await page.goto("/signature-requests");
    await page.getByRole("button", { name: names.newRequest }).click();
    const dialog = page.getByRole("dialog", { name: names.dialog });
    const required = { en: "required", de: "Pflichtfeld" }[lang];
    const institutionId = dialog.getByRole("textbox", {
      name: `${lang === "en" ? "Institution ID" : "Einrichtungs-ID"} (${required})`,
    });
    // Institutions used before are offered in a select; "another" opens the Institution ID field.
    const known = dialog.getByRole("combobox", { name: lang === "en" ? /^Institution\b/ : /^Einrichtung\b/ });
    await expect(known.or(institutionId)).toBeVisible();
    if (await known.isVisible()) await known.selectOption({ label: names.other });
    await expect(institutionId).toBeVisible();
    await expect(institutionId).toHaveAttribute("required", "");
    // The visible mark: a "*" after the label, in the danger colour.
    const mark = dialog.locator(`label[for="${await institutionId.getAttribute("id")}"] .cs-field__required`);
    await expect(mark).toHaveText("*");
    expect(await mark.evaluate((element) => getComputedStyle(element).color)).not.toBe(
      await dialog.evaluate((element) => getComputedStyle(element).color),
    );
    // Every required field carries it, an optional one does not.
    const marked =
      lang === "en" ? ["Patient ID", "Expiry", "Ordered by"] : ["Patienten-ID", "Ablauf", "Angeordnet von"];
    for (const name of marked)
      await expect(dialog.getByLabel(`${name} * (${required})`, { exact: true })).toHaveCount(1);
    await expect(
      dialog.getByText(lang === "en" ? "Fields marked * are required." : "Mit * markierte Felder sind Pflichtfelder."),
    ).toBeVisible();
    const optional = dialog.locator("label").filter({ hasText: "(optional)" });
    expect(await optional.count()).toBeGreaterThan(0);
    await expect(optional.locator(".cs-field__required")).toHaveCount(0);
    await expectAccessible(page, `new request dialog (${lang})`);
    await institutionId.scrollIntoViewIfNeeded();
    await page.screenshot({ path: test.info().outputPath(`new-request-required-${lang}-${size.viewport.width}.png`) });
    await context.close();
  });
}

test("Settings refuses an http:// webhook URL at once, saying why; a new clinic name shows in the header without a reload", async ({
  browser,
}) => {
  const before = await orgSettings();
  for (const [lang, size] of [
    ["en", DESK],
    ["de", PHONE],
  ] as const) {
    const { context, page } = await desk(browser, lang, size);
    const t =
      lang === "en"
        ? {
            title: "Settings",
            add: "Add URL",
            url: "Webhook URL",
            save: "Save changes",
            saved: "Settings saved.",
            name: "Organization name",
          }
        : {
            title: "Einstellungen",
            add: "URL hinzufügen",
            url: "Webhook-URL",
            save: "Änderungen speichern",
            saved: "Einstellungen gespeichert.",
            name: "Name der Organisation",
          };
    await page.goto("/settings");
    await expect(page.getByRole("heading", { level: 1, name: t.title })).toBeVisible();
    await page.getByRole("button", { name: t.add }).click();
    const url = page.getByLabel(`${t.url} ${before.webhookUrls.length + 1}`, { exact: true });
    await expect(url).toBeFocused();
    await url.fill("http://hooks.example.org/clinsign");
    await page.getByRole("button", { name: t.save }).click();
    await expect(url).toHaveAttribute("aria-invalid", "true");
    await expect(
      page.getByText(
        lang === "en"
          ? "Use an https:// address: webhooks are delivered over https only"
          : "Verwenden Sie eine https://-Adresse: Webhooks werden nur über https zugestellt",
      ),
    ).toBeVisible();
    expect((await orgSettings()).webhookUrls).toEqual(before.webhookUrls);
    await url.scrollIntoViewIfNeeded();
    await page.screenshot({ path: test.info().outputPath(`settings-http-webhook-${lang}-${size.viewport.width}.png`) });

    // The same URL over https is saved; then back to what it was.
    await url.fill("https://hooks.example.org/clinsign");
    await page.getByRole("button", { name: t.save }).click();
    await expect(page.getByRole("status").filter({ hasText: t.saved })).toBeVisible();
    await staffMutation("organization.update", { webhookUrls: before.webhookUrls });
    await context.close();
  }

  // The header reads the new name as soon as it is saved: no reload of the page.
  const { context, page } = await desk(browser, "en");
  await page.goto("/settings");
  await page.evaluate(() => Object.assign(window, { samePage: true }));
  const header = page.getByRole("banner");
  await expect(header).toContainText(before.name);
  const renamed = `${before.name} Nord ${run}`;
  try {
    await page.getByLabel("Organization name").fill(renamed);
    await page.getByRole("button", { name: "Save changes" }).click();
    await expect(page.getByRole("status").filter({ hasText: "Settings saved." })).toBeVisible();
    await expect(header).toContainText(renamed);
    expect(await page.evaluate(() => (window as unknown as { samePage?: boolean }).samePage)).toBe(true);
    await page.screenshot({ path: test.info().outputPath("header-new-name-en-1280.png") });
  } finally {
    await staffMutation("organization.update", { name: before.name });
    await context.close();
  }
});

/** The patient pages' language select is whole and on screen: not cut by the edge, not squeezed. */
async function expectLanguageSwitchWhole(page: Page, where: string): Promise<void> {
  const select = page.getByTestId("language-select");
  await expect(select, where).toBeVisible();
  const box = (await select.boundingBox())!;
  const width = page.viewportSize()!.width;
  expect(box.x, `${where}: starts on screen`).toBeGreaterThanOrEqual(0);
  expect(box.x + box.width, `${where}: ends on screen`).toBeLessThanOrEqual(width);
  // As wide as the same select on its own: the chosen language's name is not cut.
  const natural = await select.evaluate((element) => {
    const clone = element.cloneNode(true) as HTMLSelectElement;
    clone.value = (element as HTMLSelectElement).value;
    Object.assign(clone.style, { position: "absolute", visibility: "hidden", insetInlineStart: "0", top: "0" });
    element.closest("header, div")!.append(clone);
    const measured = clone.getBoundingClientRect().width;
    clone.remove();
    return measured;
  });
  expect(box.width, `${where}: not squeezed`).toBeGreaterThanOrEqual(natural - 1);
  expect(await hasHorizontalScroll(page), `${where}: no horizontal scroll`).toBe(false);
}

/** The page's h1 hyphenates in `lang` and keeps "Gesundheitsfragebogen" whole on one line. */
async function expectTitleWhole(page: Page, lang: string | null, where: string): Promise<void> {
  const title = page.getByRole("heading", { level: 1, name: new RegExp(`^${TITLE_WORD}`) });
  await expect(title, where).toBeVisible();
  const { hyphens, titleLang, lines } = await title.evaluate((element, word) => {
    const text = element.firstChild!;
    const range = document.createRange();
    range.setStart(text, 0);
    range.setEnd(text, word.length);
    return {
      hyphens: getComputedStyle(element).hyphens,
      titleLang: element.closest("[lang]")?.getAttribute("lang") ?? null,
      lines: new Set(Array.from(range.getClientRects(), (rect) => Math.round(rect.top))).size,
    };
  }, TITLE_WORD);
  expect(hyphens, `${where}: hyphens`).toBe("auto");
  if (lang) expect(titleLang, `${where}: the title's language`).toBe(lang);
  expect(lines, `${where}: "${TITLE_WORD}" on one line`).toBe(1);
}

test("patient pages on a 390 px phone: the language switch is whole, the German title breaks only where German does", async ({
  browser,
  request,
}) => {
  test.setTimeout(240_000);
  const before = await orgSettings();
  const institutionId = `e2e-trial-house-${run}`;
  const logoUrl = await brandInstitution(request, staff, institutionId, "#08556c", darkLogoPng());
  await staffMutation("organization.update", { name: LONG_NAME });
  try {
    const signing = await requestSignature(request, staff.token, {
      pdfUrl: files.url("/consent.pdf"),
      field: PATIENT_FIELD,
      title: `${TITLE_WORD} ${run}`,
      patientId: `P-trial-title-${run}`,
      institutionId,
    });
    // A German form (its own language, whatever the page's), embedded as a clinic links it.
    const template = await request.post(`${API_URL}/api/embed/templates`, {
      data: {
        token: staff.token,
        orgId: staff.orgId,
        title: `${TITLE_WORD} ${run}`,
        status: "active",
        defaultLanguage: "de",
        schema: { version: 1, fields: [{ id: "1", type: "text", key: "name", label: "Name", required: true }] },
      },
    });
    expect(template.status(), await template.text()).toBe(201);
    const identifier = ((await template.json()) as { template: { identifier: string } }).template.identifier;
    const embedSession = await request.post(`${API_URL}/api/embed/sessions`, {
      data: { token: staff.token, orgId: staff.orgId, templateIdentifier: identifier, config: { institutionId } },
    });
    expect(embedSession.status(), await embedSession.text()).toBe(200);
    const embedUrl = ((await embedSession.json()) as { embedUrl: string }).embedUrl;
    const mobile = `+4917012${String(run).slice(-5)}`;
    await requestFormBySms(request, staff, {
      phone: mobile,
      rnummer: `R-${run}`,
      templateIdentifier: identifier,
      institutionId,
    });
    const smsLink = await smsFormLink(sms, mobile);

    for (const lang of ["de", "en", "tr", "ar"] satisfies PatientLanguage[]) {
      expect(PATIENT_LANGUAGES).toContain(lang);
      const context = await browser.newContext({ ...PHONE });
      await useLanguage(context, lang);
      const page = await context.newPage();

      await page.goto(signing.signingLink);
      await expect(page.getByTestId("patient-organization")).toHaveText(LONG_NAME);
      await expectLanguageSwitchWhole(page, `signing page (${lang})`);
      await expectTitleWhole(page, lang, `signing page (${lang})`);
      await page.screenshot({ path: test.info().outputPath(`signing-${lang}-390.png`) });

      await page.goto(embedUrl);
      await expectLanguageSwitchWhole(page, `embedded form (${lang})`);
      // The form is German in every page language: its title hyphenates as German.
      await expectTitleWhole(page, "de", `embedded form (${lang})`);
      await page.screenshot({ path: test.info().outputPath(`embed-form-${lang}-390.png`) });

      await page.goto(smsLink);
      await expect(page.getByTestId("patient-organization")).toHaveText(LONG_NAME);
      await expectLanguageSwitchWhole(page, `SMS form portal (${lang})`);
      await page.screenshot({ path: test.info().outputPath(`sms-portal-${lang}-390.png`) });

      // The desk device's locked screen keeps the clinic's brand from the signing it ended.
      await page.evaluate(
        ([name, logo]) =>
          sessionStorage.setItem(
            "clinsign.kiosk.brand",
            JSON.stringify({
              organizationName: name,
              branding: { logoUrl: logo, primaryColor: "#08556c", accentColor: null, font: null },
            }),
          ),
        [LONG_NAME, logoUrl],
      );
      await page.goto("/kiosk?ended=signed");
      await expect(page.getByTestId("patient-organization")).toHaveText(LONG_NAME);
      await expectLanguageSwitchWhole(page, `kiosk locked (${lang})`);
      await page.screenshot({ path: test.info().outputPath(`kiosk-locked-${lang}-390.png`) });
      await context.close();
    }

    // And on a desk: nothing changed for the wide window.
    for (const lang of ["de", "en"] as const) {
      const context = await browser.newContext({ ...DESK });
      await useLanguage(context, lang);
      const page = await context.newPage();
      await page.goto(embedUrl);
      await expectLanguageSwitchWhole(page, `embedded form at 1280 (${lang})`);
      await expectTitleWhole(page, "de", `embedded form at 1280 (${lang})`);
      await page.screenshot({ path: test.info().outputPath(`embed-form-${lang}-1280.png`) });
      await page.goto(signing.signingLink);
      await expectLanguageSwitchWhole(page, `signing page at 1280 (${lang})`);
      await page.screenshot({ path: test.info().outputPath(`signing-${lang}-1280.png`) });
      await context.close();
    }
  } finally {
    await staffMutation("organization.update", { name: before.name });
  }
});
