import { expect, test, type Page } from "@playwright/test";
import {
  brandInstitution,
  createActiveTemplate,
  darkLogoPng,
  expectAccessible,
  latestSms,
  organizationName,
  patientBand,
  requestFormBySms,
  setSmsOtp,
  smsFormLink,
  staffSignIn,
  staffSmsList,
  startMailbox,
  startSmsGateway,
  type Mailbox,
  type SmsGateway,
  type Staff,
} from "./forms-support";
import { hasHorizontalScroll, PATIENT_LANGUAGE_SWITCH } from "./support";

/** The result e-mails of submitted forms arrive here (playwright.config.ts sets SMTP_URL to it). */
let mailbox: Mailbox;
let staff: Staff;
/** The SMS, with their links and codes, arrive here (playwright.config.ts sets TWILIO_API_URL to it). */
let sms: SmsGateway;
/** Who is asking: the demo organization's name, as its patient pages and SMS show it. */
let clinic: string;

test.beforeAll(async ({ browser }) => {
  mailbox = await startMailbox();
  sms = await startSmsGateway();
  staff = await staffSignIn(browser, "E2E SMS portal");
  await setSmsOtp(staff, true);
  clinic = await organizationName(staff);
});
test.afterAll(async () => {
  await staff?.context.close();
  await mailbox?.close();
  await sms?.close();
});

/** A mobile number of its own per test: the OTP sends are limited per number and hour. */
const mobile = (suffix: number) => ({
  international: `+4917012345${String(suffix).padStart(2, "0")}`,
  national: `0170 12345${String(suffix).padStart(2, "0")}`,
});

async function identify(page: Page, rnummer: string, phone: string) {
  await page.getByLabel(/^Case number/).fill(rnummer);
  await page.getByLabel(/^Mobile number/).fill(phone);
  await page.getByRole("button", { name: "Continue" }).click();
}

const identifyHeading = (page: Page) => page.getByRole("heading", { level: 1, name: "Please confirm who you are" });

test.describe("SMS form portal on a phone (390 × 844)", () => {
  test.use({ viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true });

  test("F1 link from the SMS, a wrong case number, the code from the second SMS, the form, the e-mail; the link is then used up", async ({
    page,
    request,
  }) => {
    const title = `Anaesthesia questionnaire ${Date.now()}`;
    const identifier = await createActiveTemplate(request, staff, title, [
      { id: "1", type: "text", key: "fullName", label: "Full name", required: true },
      {
        id: "2",
        type: "radio",
        key: "allergic",
        label: "Do you have allergies?",
        required: true,
        options: [
          { value: "yes", label: "Yes" },
          { value: "no", label: "No" },
        ],
      },
      {
        id: "3",
        type: "text",
        key: "allergies",
        label: "Which allergies?",
        required: true,
        visibleWhen: { field: "allergic", operator: "equals", value: "yes" },
      },
    ]);
    const phone = mobile(1);
    const rnummer = `R-${Date.now()}`;
    const emailTo = "ward7@clinic.example";
    await requestFormBySms(request, staff, {
      phone: phone.international,
      rnummer,
      templateIdentifier: identifier,
      emailTo,
      emailSubject: "SMS questionnaire received",
    });
    const link = await smsFormLink(sms, phone.international);

    await page.goto(link);
    await expect(identifyHeading(page)).toBeVisible();
    await expectAccessible(page, "SMS portal: identify");

    // A wrong case number: how many tries remain.
    await identify(page, "R-0000-WRONG", phone.national);
    await expect(page.getByRole("main").getByRole("alert")).toHaveText(
      "Case number and mobile number do not match. 4 tries left.",
    );

    // The page in German, and back.
    await page.getByRole("combobox", { name: PATIENT_LANGUAGE_SWITCH }).selectOption("de");
    await expect(page.getByRole("heading", { level: 1, name: "Bitte bestätigen Sie, wer Sie sind" })).toBeVisible();
    await expect(page.getByLabel(/^Fallnummer/)).toBeVisible();
    await page.getByRole("combobox", { name: PATIENT_LANGUAGE_SWITCH }).selectOption("en");
    await expect(identifyHeading(page)).toBeVisible();

    // The right pair (the number typed nationally), then the code from the second SMS.
    await identify(page, rnummer, phone.national);
    await expect(page.getByRole("heading", { level: 1, name: "Enter your code" })).toBeVisible();
    const codeField = page.getByLabel(/^6-digit code/);
    await expect(codeField).toHaveAttribute("autocomplete", "one-time-code");
    await expect(codeField).toHaveAttribute("inputmode", "numeric");
    await expect(page.getByRole("button", { name: "Send a new code" })).toBeDisabled();
    await expectAccessible(page, "SMS portal: one-time code");
    // The code's SMS names the clinic and is written in the request's language (German by default).
    const otpSms = await latestSms(sms, phone.international, /Ihr Code lautet \d{6}/);
    expect(otpSms.body.startsWith(`${clinic}: Ihr Code lautet `), otpSms.body).toBe(true);
    const code = /Ihr Code lautet (\d{6})/.exec(otpSms.body)![1]!;
    // Staff see in the outbox that the link and the code went out, never the link or the code.
    const outbox = await staffSmsList(staff, phone.international);
    expect(outbox.map((message) => [message.purpose, message.status])).toEqual(
      expect.arrayContaining([
        ["portal.otp", "sent"],
        ["form_request.link", "sent"],
      ]),
    );
    expect(outbox.find((message) => message.purpose === "portal.otp")!.body).toBe(
      `${clinic}: Ihr Code lautet •••••• (10 Minuten gültig). Geben Sie ihn nicht weiter.`,
    );
    expect(JSON.stringify(outbox)).not.toContain(link.split("/f/")[1]!);
    expect(JSON.stringify(outbox)).not.toContain(code);
    await codeField.fill(code);
    await page.getByRole("button", { name: "Confirm" }).click();
    await expect(page.getByRole("heading", { level: 1, name: title })).toBeVisible();

    // The access is an HTTP-only cookie scoped to the portal: not in the URL, not in web storage.
    const access = (await page.context().cookies()).find((cookie) => cookie.name === "cs_form_access");
    expect(access, "the cs_form_access cookie").toBeTruthy();
    expect(access!.httpOnly).toBe(true);
    expect(access!.sameSite).toBe("Strict");
    expect(access!.path).toBe("/f/");
    expect(access!.value.length).toBeGreaterThan(20);
    expect(page.url()).toBe(link);
    const visibleToScript = await page.evaluate(() => {
      const dump = (storage: Storage) =>
        Array.from({ length: storage.length }, (_, i) => `${storage.key(i)}=${storage.getItem(storage.key(i)!)}`).join(
          "\n",
        );
      return { cookie: document.cookie, local: dump(localStorage), session: dump(sessionStorage) };
    });
    expect(visibleToScript.cookie).not.toContain("cs_form_access");
    expect(visibleToScript.local).not.toContain(access!.value);
    expect(visibleToScript.session).not.toContain(access!.value);
    await expectAccessible(page, "SMS portal: form");

    // Fill in, see it saved, come back: the form opens again with the answers.
    await page.getByLabel(/^Full name/).fill("Max Mustermann");
    const allergic = page.getByRole("group", { name: /^Do you have allergies\?/ });
    await allergic.getByRole("radio", { name: "Yes" }).check();
    // "Saved" may still stand from the name's save: wait for the save that carries the last answer.
    const lastAnswerSaved = page.waitForResponse(
      (response) =>
        response.url().includes("smsForm.saveDraft") &&
        (response.request().postData() ?? "").includes("Latex") &&
        response.ok(),
    );
    await page.getByLabel(/^Which allergies\?/).fill("Latex");
    await lastAnswerSaved;
    await expect(page.getByRole("status").filter({ hasText: /^Saved \d{2}:\d{2}$/ })).toBeVisible();
    await page.reload();
    await expect(page.getByRole("heading", { level: 1, name: title })).toBeVisible();
    await expect(page.getByLabel(/^Full name/)).toHaveValue("Max Mustermann");
    await expect(page.getByLabel(/^Which allergies\?/)).toHaveValue("Latex");

    await page.getByRole("button", { name: "Send form" }).click();
    await expect(page.getByRole("heading", { level: 1, name: "Thank you — your form was sent" })).toBeVisible();
    await expectAccessible(page, "SMS portal: done");

    // The result e-mail reached emailTo through SMTP.
    await expect
      .poll(() => mailbox.mails.filter((mail) => mail.to.includes(emailTo)).length, { timeout: 20_000 })
      .toBe(1);
    const mail = mailbox.mails.find((candidate) => candidate.to.includes(emailTo))!;
    expect(mail.raw).toContain("Subject: SMS questionnaire received");
    expect(mail.raw).toContain(`Form: ${title}`);
    expect(mail.raw).toContain(`Reference (rnummer): ${rnummer}`);
    expect(mail.raw).toContain("Full name: Max Mustermann");
    expect(mail.raw).toContain("Which allergies?: Latex");

    // Reopening the link: already sent, in this browser and in a fresh one.
    await page.goto(link);
    await expect(page.getByRole("heading", { level: 1, name: "This form was already sent" })).toBeVisible();
    await expectAccessible(page, "SMS portal: already sent");
    const fresh = await page
      .context()
      .browser()!
      .newContext({ viewport: { width: 390, height: 844 } });
    const other = await fresh.newPage();
    await other.goto(link);
    await expect(other.getByRole("heading", { level: 1, name: "This form was already sent" })).toBeVisible();
    await fresh.close();
  });

  test("five wrong entries lock the link and say whom to contact; an unknown link gets its own page", async ({
    page,
    request,
  }) => {
    const identifier = await createActiveTemplate(request, staff, `Locked questionnaire ${Date.now()}`, [
      { id: "1", type: "text", key: "fullName", label: "Full name" },
    ]);
    const phone = mobile(2);
    await requestFormBySms(request, staff, {
      phone: phone.international,
      rnummer: `R-${Date.now()}`,
      templateIdentifier: identifier,
    });
    const link = await smsFormLink(sms, phone.international);

    await page.goto(link);
    await expect(identifyHeading(page)).toBeVisible();
    // Without an institution's brand the header still says who is asking (not only "ClinSign").
    expect((await patientBand(page)).name).toBe(clinic);
    await shot(page, "sms-identify-unbranded-en-390");
    for (const left of [4, 3, 2]) {
      await identify(page, "R-WRONG", phone.national);
      await expect(page.getByRole("main").getByRole("alert")).toHaveText(
        `Case number and mobile number do not match. ${left} tries left.`,
      );
    }
    await identify(page, "R-WRONG", phone.national);
    await expect(page.getByRole("main").getByRole("alert")).toHaveText(
      "Case number and mobile number do not match. 1 try left before the link is locked.",
    );
    await identify(page, "R-WRONG", phone.national);
    await expect(page.getByRole("heading", { level: 1, name: "This link is locked" })).toBeVisible();
    await expect(page.getByText(/Please contact .+ for a new link\./)).toBeVisible();
    await expectAccessible(page, "SMS portal: locked");
    // Still locked when opened again.
    await page.reload();
    await expect(page.getByRole("heading", { level: 1, name: "This link is locked" })).toBeVisible();

    await page.goto(`/f/${"x".repeat(43)}`);
    await expect(page.getByRole("heading", { level: 1, name: "This link does not work" })).toBeVisible();
    await expectAccessible(page, "SMS portal: unknown link");
    await page.getByRole("combobox", { name: PATIENT_LANGUAGE_SWITCH }).selectOption("de");
    await expect(page.getByRole("heading", { level: 1, name: "Dieser Link funktioniert nicht" })).toBeVisible();
  });
});

/** Fields that ask for a phone number and a file, as a clinic's intake form does. */
const INTAKE_FIELDS = [
  { id: "1", type: "text", key: "fullName", label: "Full name", required: true },
  { id: "2", type: "phone", key: "contactPhone", label: "Phone for questions", required: true },
  { id: "3", type: "file", key: "referral", label: "Referral letter", accept: ".pdf,image/*", maxSizeMb: 10 },
];

/** Screenshots of what the patient sees, kept with the test's results for people to look at. */
async function shot(page: Page, name: string) {
  await page.screenshot({ path: test.info().outputPath(`${name}.png`), fullPage: true });
}

/**
 * Who is asking and forgiving input, on a phone: the institution's brand with the clinic's name
 * and its dark logo on a white plate, the SMS in German with the clinic's name, the case number in
 * lower case with spaces, the number typed nationally, the file kinds in words.
 */
async function whoIsAskingOn(
  page: Page,
  request: import("@playwright/test").APIRequestContext,
  viewport: { width: number; height: number },
  suffix: number,
) {
  const run = Date.now();
  const institutionId = `e2e-sms-house-${run}`;
  await brandInstitution(request, staff, institutionId, "#0b2545", darkLogoPng());
  const title = `Intake ${run}`;
  const identifier = await createActiveTemplate(request, staff, title, INTAKE_FIELDS);
  const phone = mobile(suffix);
  const rnummer = `RX-${run}`;
  await requestFormBySms(request, staff, {
    phone: phone.international,
    rnummer,
    templateIdentifier: identifier,
    institutionId,
  });
  const linkSms = await latestSms(sms, phone.international, /\/f\//);
  expect(
    linkSms.body.startsWith(`${clinic}: Sie haben ein Formular auszufüllen: http://`) && !linkSms.body.includes(title),
    linkSms.body,
  ).toBe(true);
  const link = await smsFormLink(sms, phone.international);

  await page.goto(link);
  await expect(identifyHeading(page)).toBeVisible();
  // The clinic's name beside the institution's logo, on the institution's colour; the logo has a white surface.
  expect(await patientBand(page)).toEqual({ colour: "rgb(11, 37, 69)", name: clinic, plate: "rgb(255, 255, 255)" });
  expect(await hasHorizontalScroll(page)).toBe(false);
  await shot(page, `sms-identify-en-${viewport.width}`);
  await page.getByRole("combobox", { name: PATIENT_LANGUAGE_SWITCH }).selectOption("de");
  await expect(page.getByRole("heading", { level: 1, name: "Bitte bestätigen Sie, wer Sie sind" })).toBeVisible();
  await shot(page, `sms-identify-de-${viewport.width}`);
  await page.getByRole("combobox", { name: PATIENT_LANGUAGE_SWITCH }).selectOption("en");

  // The case number as a person types it (lower case, spaces around it): no try is lost.
  await identify(page, `  ${rnummer.toLowerCase()} `, phone.national);
  await expect(page.getByRole("heading", { level: 1, name: "Enter your code" })).toBeVisible();
  const otp = await latestSms(sms, phone.international, /Ihr Code lautet \d{6}/);
  await page.getByLabel(/^6-digit code/).fill(/(\d{6})/.exec(otp.body)![1]!);
  await page.getByRole("button", { name: "Confirm" }).click();
  await expect(page.getByRole("heading", { level: 1, name: title })).toBeVisible();
  expect(await patientBand(page)).toEqual({ colour: "rgb(11, 37, 69)", name: clinic, plate: "rgb(255, 255, 255)" });

  // The phone field takes the national number; the file field names its kinds in words.
  await page.getByLabel(/^Full name/).fill("Max Mustermann");
  const contact = page.getByLabel(/^Phone for questions/);
  await contact.fill("0170 7654321");
  await contact.blur();
  await expect(contact).not.toHaveAttribute("aria-invalid", "true");
  await expect(page.getByText("Accepted: PDF, images (JPG, PNG …)")).toBeVisible();
  await expectAccessible(page, "SMS portal: branded form");
  await shot(page, `sms-form-en-${viewport.width}`);
  await page.getByRole("combobox", { name: PATIENT_LANGUAGE_SWITCH }).selectOption("de");
  await expect(page.getByText("Erlaubt: PDF, Bilder (JPG, PNG …)")).toBeVisible();
  await shot(page, `sms-form-de-${viewport.width}`);
  await page.getByRole("combobox", { name: PATIENT_LANGUAGE_SWITCH }).selectOption("en");
  // A number that is none is still refused in the browser.
  await contact.fill("12");
  await contact.blur();
  await expect(page.getByLabel(/^Phone for questions/)).toHaveAttribute("aria-invalid", "true");
  await contact.fill("0170 7654321");
  await page.getByRole("button", { name: "Send form" }).click();
  await expect(page.getByRole("heading", { level: 1, name: "Thank you — your form was sent" })).toBeVisible();
}

test.describe("who is asking, and input that forgives", () => {
  test("on a phone (390 × 844)", async ({ browser, request }) => {
    const context = await browser.newContext({
      viewport: { width: 390, height: 844 },
      isMobile: true,
      hasTouch: true,
      locale: "en-GB",
    });
    await whoIsAskingOn(await context.newPage(), request, { width: 390, height: 844 }, 11);
    await context.close();
  });

  test("at a desk (1280 × 800)", async ({ browser, request }) => {
    const context = await browser.newContext({ viewport: { width: 1280, height: 800 }, locale: "en-GB" });
    await whoIsAskingOn(await context.newPage(), request, { width: 1280, height: 800 }, 12);
    await context.close();
  });
});
