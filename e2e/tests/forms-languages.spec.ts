import { expect, test, type APIRequestContext, type Browser, type Page } from "@playwright/test";
import {
  createEmbedSession,
  expectAccessible,
  staffQuery,
  staffSignIn,
  type FieldSpec,
  type Staff,
} from "./forms-support";
import { API_URL, hasHorizontalScroll, WEB_PORT } from "./support";

// Issue 19: a form in German with Turkish and Arabic translations, filled on a phone in each
// language. The stored answers are the same as a German submission's; staff read German labels
// and see which language the patient answered in.

const FIELDS: FieldSpec[] = [
  { id: "h", type: "heading", label: "Ihre Angaben" },
  { id: "1", type: "text", key: "fullName", label: "Vollständiger Name", required: true, maxLength: 100 },
  {
    id: "2",
    type: "radio",
    key: "insurance",
    label: "Versicherung",
    required: true,
    options: [
      { value: "public", label: "Gesetzlich" },
      { value: "private", label: "Privat" },
    ],
  },
  { id: "3", type: "multiselect", key: "complaints", label: "Beschwerden", options: ["kopf", "ruecken", "bauch"] },
  { id: "4", type: "checkbox", key: "privacy", label: "Ich stimme der Verarbeitung zu", required: true },
];

const TRANSLATIONS = {
  tr: {
    title: "Anamnez formu",
    fields: {
      h: { label: "Bilgileriniz" },
      fullName: { label: "Adınız soyadınız" },
      insurance: { label: "Sigorta", options: { public: "Devlet sigortası", private: "Özel sigorta" } },
      complaints: {
        label: "Şikayetler",
        options: { kopf: "Baş ağrısı", ruecken: "Sırt ağrısı", bauch: "Karın ağrısı" },
      },
      privacy: { label: "Verilerimin işlenmesini kabul ediyorum" },
    },
  },
  ar: {
    title: "استمارة التاريخ الطبي",
    fields: {
      h: { label: "بياناتك" },
      fullName: { label: "الاسم الكامل" },
      insurance: { label: "التأمين", options: { public: "تأمين حكومي", private: "تأمين خاص" } },
      complaints: { label: "الشكاوى", options: { kopf: "صداع", ruecken: "ألم الظهر" } },
      // "privacy" left out: it shows in German (and counts as missing in the builder).
    },
  },
};

const ANSWERS = { fullName: "Ayşe Yılmaz", insurance: "private", complaints: ["kopf", "ruecken"], privacy: true };

let staff: Staff;
let identifier: string;

test.beforeAll(async ({ browser, request }) => {
  staff = await staffSignIn(browser, "form languages");
  const response = await request.post(`${API_URL}/api/embed/templates`, {
    data: {
      token: staff.token,
      orgId: staff.orgId,
      title: "Anamnesebogen",
      status: "active",
      schema: { version: 1, fields: FIELDS },
      defaultLanguage: "de",
      translations: TRANSLATIONS,
    },
  });
  expect(response.status(), await response.text()).toBe(201);
  identifier = ((await response.json()) as { template: { identifier: string } }).template.identifier;
});

test.afterAll(async ({ request }) => {
  await request.delete(`${API_URL}/api/embed/templates/${identifier}`, {
    data: { token: staff.token, orgId: staff.orgId },
  });
  await staff.context.close();
});

interface StoredSubmission {
  values: Record<string, unknown>;
  language: string | null;
  templateLanguage: string | null;
  answers: { key: string; label: string; answeredLabel?: string; text: string }[];
}

const submissionOf = (id: string) => staffQuery<StoredSubmission>(staff, "submissions.get", { id });

/** A phone (390×844) opening the form of a session preset to `language`. */
async function openOnPhone(browser: Browser, request: APIRequestContext, language: string): Promise<Page> {
  const { embedUrl } = await createEmbedSession(request, staff, identifier, { language });
  const context = await browser.newContext({
    baseURL: `http://localhost:${WEB_PORT}`,
    viewport: { width: 390, height: 844 },
    isMobile: true,
    hasTouch: true,
    locale: "en-GB",
  });
  const page = await context.newPage();
  await page.goto(embedUrl);
  return page;
}

/** Fills the form through the labels of `language` and submits it; the stored submission's id. */
async function fillAndSubmit(
  page: Page,
  texts: { name: string; insurance: string; complaints: string[]; privacy: string },
): Promise<string> {
  await page.getByRole("textbox", { name: texts.name }).fill(ANSWERS.fullName);
  await page.getByRole("radio", { name: texts.insurance }).check();
  for (const complaint of texts.complaints) await page.getByRole("checkbox", { name: complaint }).check();
  await page.getByRole("checkbox", { name: texts.privacy }).check();
  const submitted = page.waitForResponse((response) => response.url().includes("/trpc/submissions.submit"));
  await page.locator("form button[type=submit]").click();
  const response = await submitted;
  expect(response.status()).toBe(200);
  const body = (await response.json()) as { result: { data: { submissionId: string } } };
  return body.result.data.submissionId;
}

test("a form filled in Arabic (right to left) and in Turkish stores the same answers as a German one", async ({
  browser,
  request,
}, testInfo) => {
  // German, through the API: the reference answers.
  const german = await createEmbedSession(request, staff, identifier);
  const submitted = await request.post(`${API_URL}/api/embed/submit`, {
    data: { sessionId: german.sessionId, values: ANSWERS },
  });
  expect(submitted.status(), await submitted.text()).toBe(200);
  const germanSubmission = await submissionOf(((await submitted.json()) as { submissionId: string }).submissionId);
  expect(germanSubmission.language).toBe("de");

  // Arabic on a phone: the form reads right to left.
  const ar = await openOnPhone(browser, request, "ar");
  const arForm = ar.locator("article[data-form-language]");
  await expect(arForm).toHaveAttribute("data-form-language", "ar");
  await expect(arForm).toHaveAttribute("dir", "rtl");
  await expect(arForm).toHaveAttribute("lang", "ar");
  await expect(ar.getByRole("heading", { level: 1, name: "استمارة التاريخ الطبي" })).toBeVisible();
  await expect(ar.getByRole("heading", { name: "بياناتك" })).toBeVisible();
  // An untranslated text falls back to the template's German.
  await expect(ar.getByRole("checkbox", { name: "Ich stimme der Verarbeitung zu" })).toBeVisible();
  expect(await hasHorizontalScroll(ar)).toBe(false);
  await expectAccessible(ar, "the form in Arabic");
  await ar.screenshot({ path: testInfo.outputPath("form-ar-390x844.png"), fullPage: true });
  await ar.setViewportSize({ width: 1280, height: 800 });
  await ar.screenshot({ path: testInfo.outputPath("form-ar-1280x800.png"), fullPage: true });
  await ar.setViewportSize({ width: 390, height: 844 });
  const arId = await fillAndSubmit(ar, {
    name: "الاسم الكامل",
    insurance: "تأمين خاص",
    complaints: ["صداع", "ألم الظهر"],
    privacy: "Ich stimme der Verarbeitung zu",
  });
  await ar.context().close();

  // Turkish on a phone: left to right.
  const tr = await openOnPhone(browser, request, "tr");
  const trForm = tr.locator("article[data-form-language]");
  await expect(trForm).toHaveAttribute("data-form-language", "tr");
  await expect(trForm).toHaveAttribute("dir", "ltr");
  await expect(tr.getByRole("heading", { level: 1, name: "Anamnez formu" })).toBeVisible();
  await expectAccessible(tr, "the form in Turkish");
  const trId = await fillAndSubmit(tr, {
    name: "Adınız soyadınız",
    insurance: "Özel sigorta",
    complaints: ["Baş ağrısı", "Sırt ağrısı"],
    privacy: "Verilerimin işlenmesini kabul ediyorum",
  });
  await tr.context().close();

  // The German form passes axe too.
  const de = await openOnPhone(browser, request, "de");
  await expect(de.locator("article[data-form-language]")).toHaveAttribute("dir", "ltr");
  await expect(de.getByRole("heading", { level: 1, name: "Anamnesebogen" })).toBeVisible();
  await expectAccessible(de, "the form in German");
  await de.context().close();

  // The same values, whatever the language; each submission knows the one it was read in.
  const [arabic, turkish] = await Promise.all([submissionOf(arId), submissionOf(trId)]);
  expect(arabic.values).toEqual(germanSubmission.values);
  expect(turkish.values).toEqual(germanSubmission.values);
  expect(turkish.values).toEqual(ANSWERS);
  expect([arabic.language, turkish.language]).toEqual(["ar", "tr"]);
  // Staff read German labels and option texts, with the Turkish label beside them.
  expect(turkish.answers.find((a) => a.key === "insurance")).toMatchObject({
    label: "Versicherung",
    answeredLabel: "Sigorta",
    text: "Privat",
  });

  // The staff detail page names the language the patient answered in.
  await staff.page.goto(`/submissions/${trId}`);
  await expect(staff.page.getByText("Answered in Türkçe")).toBeVisible();
  const insuranceLabel = staff.page.locator("dt").filter({ hasText: "Versicherung" });
  await expect(insuranceLabel).toContainText("Sigorta");
  await expect(insuranceLabel.locator("[lang=tr]")).toHaveText("Sigorta");
  await expectAccessible(staff.page, "a submission answered in Turkish");
});

// eslint-disable-next-line no-empty-pattern -- Playwright reads the fixtures a test uses from this destructuring
test("the builder's translations view counts what is missing per language and translates it", async ({}, testInfo) => {
  const page = staff.page;
  for (const viewport of [
    { width: 1280, height: 800 },
    { width: 390, height: 844 },
  ]) {
    await page.setViewportSize(viewport);
    await page.goto(`/form-templates/${identifier}`);
    await page.getByRole("radio", { name: "Translations" }).check();
    await expect(page.getByRole("heading", { name: "Translations", level: 2 })).toBeVisible();
    const arabicRow = page.locator("li[data-language=ar]");
    // title + heading + 4 labels + 2 + 3 options = 11 texts; Arabic lacks one option and the consent.
    await expect(arabicRow.locator("[data-coverage]")).toHaveText("9 of 11 translated");
    await expect(page.locator("li[data-language=tr] [data-coverage]")).toHaveText("11 of 11 translated");
    await arabicRow.getByRole("button", { name: "العربية", exact: true }).click();
    await expect(page.getByRole("heading", { name: "Texts in العربية" })).toBeVisible();
    await expectAccessible(page, `the translations view at ${viewport.width}px`);
    await page.screenshot({
      path: testInfo.outputPath(`builder-translations-${viewport.width}x${viewport.height}.png`),
      fullPage: true,
    });
  }

  // A missing text is marked; typing it in counts it, and the preview shows the form in Arabic.
  const privacy = page.getByRole("textbox", { name: /Label \(privacy\)/ });
  await expect(page.locator("li[data-missing]")).toHaveCount(2);
  await privacy.fill("أوافق على معالجة بياناتي");
  await expect(page.locator("li[data-language=ar] [data-coverage]")).toHaveText("10 of 11 translated");
  await expect(page.locator("[data-form-language=ar]").getByText("أوافق على معالجة بياناتي")).toBeVisible();
  await expect(page.locator("[data-form-language=ar]")).toHaveAttribute("dir", "rtl");
  await page.getByRole("button", { name: "Save", exact: true }).click();
  await expect(page.getByText("All changes saved")).toBeVisible();
  const saved = await staffQuery<{ translations: Record<string, { fields: Record<string, { label?: string }> }> }>(
    staff,
    "templates.get",
    { identifier, activeOnly: false },
  );
  expect(saved.translations.ar!.fields.privacy).toEqual({ label: "أوافق على معالجة بياناتي" });

  // The preview shows the page as a patient who chose a language sees it: the page's own texts in
  // that language, the form in its translation, or in the template's language where there is none.
  const preview = page.getByRole("complementary", { name: "Live preview" });
  const language = preview.getByRole("combobox", { name: "Patient's language" });
  await language.selectOption("tr");
  await expect(preview.locator("[data-form-language=tr]")).toBeVisible();
  await expect(preview.getByRole("button", { name: "Formu gönder" })).toBeVisible();
  await language.selectOption("pl");
  await expect(preview.getByRole("status").filter({ hasText: "No translation for Polski" })).toBeVisible();
  await expect(preview.locator("[data-form-language=de]")).toBeVisible();
  await expect(preview.getByRole("button", { name: "Wyślij formularz" })).toBeVisible();
  await expectAccessible(page, "the builder's preview in Polish, not translated");
  await preview.screenshot({ path: testInfo.outputPath("builder-preview-pl-390.png") });
});
