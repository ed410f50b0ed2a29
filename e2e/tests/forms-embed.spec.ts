import { expect, test, type FrameLocator, type Page } from "@playwright/test";
import { PDFDocument } from "pdf-lib";
import {
  brandInstitution,
  createActiveTemplate,
  createEmbedSession,
  darkLogoPng,
  expectAccessible,
  listen,
  organizationName,
  patientBand,
  staffSignIn,
  type FieldSpec,
  type LocalServer,
  type Staff,
} from "./forms-support";
import {
  API_URL,
  FOREIGN_HOST_PAGE_PORT,
  hasHorizontalScroll,
  HOST_PAGE_PORT,
  WEB_PORT,
  WEBHOOK_RECEIVER_PORT,
  PATIENT_LANGUAGE_SWITCH,
} from "./support";

/** The form pages' origin: every message from the form must come from here. */
const FORM_ORIGIN = `http://localhost:${WEB_PORT}`;

/** Every field type, with the attributes a real template uses. */
const FIELDS: FieldSpec[] = [
  { id: "h", type: "heading", label: "About you" },
  { id: "p", type: "paragraph", label: "Please answer every question before your appointment." },
  { id: "1", type: "text", key: "fullName", label: "Full name", required: true, maxLength: 100 },
  { id: "2", type: "textarea", key: "notes", label: "Anything else we should know?", maxLength: 500 },
  { id: "3", type: "email", key: "email", label: "E-mail address", required: true },
  { id: "4", type: "phone", key: "phone", label: "Mobile number" },
  { id: "5", type: "number", key: "weight", label: "Weight in kg", min: 1, max: 400 },
  { id: "6", type: "date", key: "birthDate", label: "Date of birth", max: "2024-12-31" },
  {
    id: "7",
    type: "select",
    key: "insurance",
    label: "Insurance",
    options: [
      { value: "public", label: "Public" },
      { value: "private", label: "Private" },
    ],
  },
  {
    id: "8",
    type: "radio",
    key: "smoker",
    label: "Do you smoke?",
    required: true,
    options: [
      { value: "yes", label: "Yes" },
      { value: "no", label: "No" },
    ],
  },
  { id: "9", type: "multiselect", key: "allergies", label: "Allergies", options: ["Latex", "Iodine", "Penicillin"] },
  { id: "10", type: "checkbox", key: "privacy", label: "I agree that the clinic processes my answers", required: true },
  {
    id: "11",
    type: "file",
    key: "insuranceCard",
    label: "Insurance card",
    accept: "application/pdf,image/png",
    maxSizeMb: 5,
  },
  { id: "12", type: "signature", key: "signature", label: "Signature", required: true },
];

/** What the patient types; none of it may ever appear in a message to the host page. */
const ANSWERS = {
  fullName: "Erika Mustermann",
  notes: "Afraid of needles, please be gentle",
  email: "erika.mustermann@example.org",
  phone: "+49 170 1234567",
  weight: 72,
  birthDate: "1980-04-12",
  insurance: "private",
  smoker: "no",
  allergies: ["Latex", "Penicillin"],
  privacy: true,
};

type HostEvent = { type: string; detail: Record<string, unknown> };
type RawMessage = { origin: string; data: unknown };

/**
 * The documented snippet on a page of another origin, plus a recorder of the `clinsign:*` DOM
 * events and of the raw messages the page receives.
 */
function hostPage(embedUrl: string): string {
  const src = embedUrl.replace(/&/g, "&amp;").replace(/"/g, "&quot;");
  return `<!doctype html>
<html lang="en">
<head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>Clinic patient portal</title></head>
<body style="margin:0;font-family:sans-serif">
<main>
<h1 style="font-size:1.25rem;margin:8px">Your forms</h1>
<script>
  window.hostEvents = [];
  window.rawMessages = [];
  ["ready", "resized", "draftSaved", "submitted", "closed", "error"].forEach(function (type) {
    document.addEventListener("clinsign:" + type, function (event) {
      window.hostEvents.push({ type: type, detail: event.detail });
    });
  });
  window.addEventListener("message", function (event) {
    window.rawMessages.push({ origin: event.origin, data: event.data });
  });
</script>
<iframe src="${src}" data-clinsign-form title="Patient form" style="width:100%;border:0"></iframe>
<script src="${FORM_ORIGIN}/embed.js" async></script>
</main>
</body>
</html>`;
}

let staff: Staff;
let allowedHost: LocalServer;
let foreignHost: LocalServer;
let webhooks: LocalServer;
const webhookBodies: Array<{ event: string; data: { submissionId: string; values: Record<string, unknown> } }> = [];

/** Serves `hostPage(embedUrl)` at `/?embed=<embedUrl>`. */
const serveHostPage = (port: number) =>
  listen(port, (req, _body, res) => {
    const embedUrl = new URL(req.url ?? "/", "http://127.0.0.1").searchParams.get("embed");
    if (!embedUrl) return void res.writeHead(404).end();
    res.writeHead(200, { "content-type": "text/html; charset=utf-8" }).end(hostPage(embedUrl));
  });

test.beforeAll(async ({ browser }) => {
  allowedHost = await serveHostPage(HOST_PAGE_PORT);
  foreignHost = await serveHostPage(FOREIGN_HOST_PAGE_PORT);
  webhooks = await listen(WEBHOOK_RECEIVER_PORT, (req, body, res) => {
    if (req.method === "POST") webhookBodies.push(JSON.parse(body) as (typeof webhookBodies)[number]);
    res.writeHead(204).end();
  });
  staff = await staffSignIn(browser, "E2E embed");
});
test.afterAll(async () => {
  await Promise.all([allowedHost?.close(), foreignHost?.close(), webhooks?.close(), staff?.context.close()]);
});

const hostEvents = (page: Page) => page.evaluate(() => (window as unknown as { hostEvents: HostEvent[] }).hostEvents);
const rawMessages = (page: Page) =>
  page.evaluate(() => (window as unknown as { rawMessages: RawMessage[] }).rawMessages);
const eventTypes = async (page: Page) => (await hostEvents(page)).map((event) => event.type);

async function draftValues(
  request: import("@playwright/test").APIRequestContext,
  templateIdentifier: string,
  draftKey: string,
) {
  const response = await request.get(`${API_URL}/api/embed/drafts`, {
    params: { token: staff.token, orgId: staff.orgId, templateIdentifier, draftKey },
  });
  expect(response.status(), await response.text()).toBe(200);
  return ((await response.json()) as { draft: { values: Record<string, unknown> } | null }).draft;
}

async function fillEveryAnswer(form: FrameLocator) {
  await form.getByLabel(/^Full name/).fill(ANSWERS.fullName);
  await form.getByLabel(/^Anything else we should know\?/).fill(ANSWERS.notes);
  await form.getByLabel(/^E-mail address/).fill(ANSWERS.email);
  await form.getByLabel(/^Mobile number/).fill(ANSWERS.phone);
  await form.getByLabel(/^Weight in kg/).fill(String(ANSWERS.weight));
  await form.getByLabel(/^Date of birth/).fill(ANSWERS.birthDate);
  await form.getByLabel(/^Insurance \(/).selectOption(ANSWERS.insurance);
  await form
    .getByRole("group", { name: /^Do you smoke\?/ })
    .getByRole("radio", { name: "No" })
    .check();
  const allergies = form.getByRole("group", { name: /^Allergies/ });
  await allergies.getByRole("checkbox", { name: "Latex" }).check();
  await allergies.getByRole("checkbox", { name: "Penicillin" }).check();
  await form.getByRole("checkbox", { name: /^I agree that the clinic processes my answers/ }).check();
}

async function expectEveryAnswer(form: FrameLocator) {
  await expect(form.getByLabel(/^Full name/)).toHaveValue(ANSWERS.fullName);
  await expect(form.getByLabel(/^Anything else we should know\?/)).toHaveValue(ANSWERS.notes);
  await expect(form.getByLabel(/^E-mail address/)).toHaveValue(ANSWERS.email);
  await expect(form.getByLabel(/^Mobile number/)).toHaveValue(ANSWERS.phone);
  await expect(form.getByLabel(/^Weight in kg/)).toHaveValue(String(ANSWERS.weight));
  await expect(form.getByLabel(/^Date of birth/)).toHaveValue(ANSWERS.birthDate);
  await expect(form.getByLabel(/^Insurance \(/)).toHaveValue(ANSWERS.insurance);
  await expect(form.getByRole("group", { name: /^Do you smoke\?/ }).getByRole("radio", { name: "No" })).toBeChecked();
  await expect(
    form.getByRole("group", { name: /^Do you smoke\?/ }).getByRole("radio", { name: "Yes" }),
  ).not.toBeChecked();
  const allergies = form.getByRole("group", { name: /^Allergies/ });
  await expect(allergies.getByRole("checkbox", { name: "Latex" })).toBeChecked();
  await expect(allergies.getByRole("checkbox", { name: "Iodine" })).not.toBeChecked();
  await expect(allergies.getByRole("checkbox", { name: "Penicillin" })).toBeChecked();
  await expect(form.getByRole("checkbox", { name: /^I agree that the clinic processes my answers/ })).toBeChecked();
}

/** One mouse stroke across the pad (coordinates are the page's; the pad is inside the frame). */
async function drawSignature(page: Page, form: FrameLocator) {
  // The pad loads when its field comes into view, as it does for a patient scrolling down.
  await form.getByText("Draw", { exact: true }).scrollIntoViewIfNeeded();
  const canvas = form.getByTestId("signature-canvas");
  await canvas.scrollIntoViewIfNeeded();
  const box = (await canvas.boundingBox())!;
  await page.mouse.move(box.x + box.width * 0.15, box.y + box.height * 0.7);
  await page.mouse.down();
  await page.mouse.move(box.x + box.width * 0.45, box.y + box.height * 0.25, { steps: 12 });
  await page.mouse.move(box.x + box.width * 0.85, box.y + box.height * 0.65, { steps: 12 });
  await page.mouse.up();
  await expect(canvas).toHaveAttribute("data-has-ink", "true");
}

async function smallPdf(): Promise<Buffer> {
  const doc = await PDFDocument.create();
  doc.addPage([200, 120]).drawText("Insurance card", { x: 20, y: 60, size: 14 });
  return Buffer.from(await doc.save());
}

test.describe("embedded form on a phone (390 × 844), framed by a host page on another origin", () => {
  test.use({ viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true });

  test("every field type, autosave and restore, upload, signature, submit: the host page gets the events, the webhook the answers", async ({
    page,
    request,
  }) => {
    const title = `Pre-admission questionnaire ${Date.now()}`;
    const identifier = await createActiveTemplate(request, staff, title, FIELDS);
    const draftKey = `e2e-embed-${Date.now()}`;
    const embedSession = await createEmbedSession(request, staff, identifier, {
      webhookUrl: `${webhooks.origin}/clinsign`,
      draftKey,
      allowedOrigins: [allowedHost.origin],
      expiresInMinutes: 30,
    });
    const hostUrl = `${allowedHost.origin}/?embed=${encodeURIComponent(embedSession.embedUrl)}`;
    const form = page.frameLocator("iframe[data-clinsign-form]");

    await page.goto(hostUrl);
    await expect(form.getByRole("heading", { level: 1, name: title })).toBeVisible();
    await expect.poll(() => eventTypes(page)).toContain("ready");
    // embed.js sizes the frame to the form (an iframe is 150 px tall by default).
    await expect
      .poll(async () => (await page.locator("iframe[data-clinsign-form]").boundingBox())?.height ?? 0)
      .toBeGreaterThan(1000);
    expect(await form.locator("html").evaluate(() => document.documentElement.scrollWidth <= window.innerWidth)).toBe(
      true,
    );
    await expect(form.getByRole("heading", { level: 2, name: "About you" })).toBeVisible();
    await expect(form.getByText("Please answer every question before your appointment.")).toBeVisible();
    await expectAccessible(page, "embedded form (framed)");

    await fillEveryAnswer(form);
    await expect(form.getByRole("status").filter({ hasText: /^Saved \d{2}:\d{2}$/ })).toBeVisible();
    await expect
      .poll(async () => (await hostEvents(page)).find((event) => event.type === "draftSaved")?.detail.savedAt)
      .toMatch(/^\d{4}-\d{2}-\d{2}T/);
    // F8 (the token caller's view of the same draftKey) holds every answer.
    await expect.poll(async () => (await draftValues(request, identifier, draftKey))?.values).toEqual(ANSWERS);

    expect(await eventTypes(page)).toEqual(expect.arrayContaining(["ready", "resized", "draftSaved"]));

    // A reload (the patient comes back) restores the draft.
    await page.reload();
    await expect(form.getByRole("heading", { level: 1, name: title })).toBeVisible();
    await expectEveryAnswer(form);

    // Upload: the progress is shown while the file travels (held back here until seen), then the
    // file is listed. Soft assertions: a broken upload fails the test but the rest still runs.
    const cardField = form.getByRole("group", { name: /^Insurance card/ });
    let releaseUpload = () => {};
    const uploadHeld = new Promise<void>((resolve) => (releaseUpload = resolve));
    await page.route("**/api/embed/uploads", async (route) => {
      await uploadHeld;
      await route.continue();
    });
    await cardField
      .locator("input[type=file]")
      .setInputFiles({ name: "insurance-card.pdf", mimeType: "application/pdf", buffer: await smallPdf() });
    await expect.soft(cardField.getByRole("progressbar", { name: "Uploading insurance-card.pdf" })).toBeVisible();
    releaseUpload();
    await expect
      .soft(cardField.getByRole("list", { name: "Uploaded files" }).getByRole("listitem"))
      .toHaveText([/insurance-card\.pdf/]);
    await expect(cardField.getByRole("progressbar")).toHaveCount(0);
    await page.unroute("**/api/embed/uploads");

    await drawSignature(page, form);
    await form.getByRole("button", { name: "Send form" }).click();
    await expect(form.getByRole("heading", { level: 1, name: "Thank you — your form was sent" })).toBeVisible();
    // The frame shrinks to the thank-you card (issue 31: it kept the long form's height, and the
    // card sat above thousands of pixels of blank space), and the whole card still shows in it.
    const frame = page.locator("iframe[data-clinsign-form]");
    await expect.poll(async () => (await frame.boundingBox())?.height ?? 0).toBeLessThan(800);
    const card = form.locator("section").filter({ has: form.getByRole("heading", { level: 1 }) });
    const cardBottom = await card.evaluate((element) => element.getBoundingClientRect().bottom);
    const frameHeight = (await frame.boundingBox())!.height;
    expect(cardBottom).toBeLessThanOrEqual(frameHeight);
    expect(frameHeight - cardBottom, "blank space below the card").toBeLessThan(120);
    await page.screenshot({ path: test.info().outputPath("embed-thank-you-framed-en-390.png"), fullPage: true });
    await expectAccessible(page, "embedded form done (framed)");

    // The host page (since the reload): ready, then submitted with the submission id.
    await expect.poll(() => eventTypes(page)).toContain("submitted");
    const events = await hostEvents(page);
    expect(events.map((event) => event.type)).toEqual(expect.arrayContaining(["ready", "submitted"]));
    expect(events.filter((event) => event.type === "error")).toEqual([]);
    const submissionId = events.find((event) => event.type === "submitted")!.detail.submissionId as string;
    expect(submissionId).toMatch(/^[0-9a-f-]{36}$/);

    // The raw messages: all from the form's origin, none with an answer or the session in it.
    const messages = (await rawMessages(page)).filter(
      (message) => (message.data as { source?: string } | null)?.source === "clinsign-form",
    );
    expect(messages.length).toBeGreaterThan(0);
    expect(new Set(messages.map((message) => message.origin))).toEqual(new Set([FORM_ORIGIN]));
    const sent = JSON.stringify(messages);
    for (const value of [
      ANSWERS.fullName,
      ANSWERS.notes,
      ANSWERS.email,
      "1234567",
      ANSWERS.birthDate,
      "Penicillin",
      "insurance-card",
      "data:image",
      embedSession.sessionId,
    ]) {
      expect(sent, `a message to the host page carries ${value}`).not.toContain(value);
    }

    // The webhook receiver got form.submitted with the answers, the file and the signature.
    await expect.poll(() => webhookBodies.filter((body) => body.event === "form.submitted").length).toBe(1);
    const submitted = webhookBodies.find((body) => body.event === "form.submitted")!;
    expect(submitted.data.submissionId).toBe(submissionId);
    // Phone answers arrive in E.164 however they were typed.
    expect(submitted.data.values).toMatchObject({ ...ANSWERS, phone: "+491701234567" });
    expect
      .soft(submitted.data.values.insuranceCard, "the uploaded file is part of the submission")
      .toEqual([expect.objectContaining({ name: "insurance-card.pdf", type: "application/pdf" })]);
    expect(submitted.data.values.signature).toMatch(/^data:image\/png;base64,/);

    // F8: the draft is gone.
    expect(await draftValues(request, identifier, draftKey)).toBeNull();
  });

  test("a page on an origin the session does not allow cannot frame the form", async ({ page, request }) => {
    const title = `Framing check ${Date.now()}`;
    const identifier = await createActiveTemplate(request, staff, title, [
      { id: "1", type: "text", key: "fullName", label: "Full name" },
    ]);
    const embedSession = await createEmbedSession(request, staff, identifier, { allowedOrigins: [allowedHost.origin] });

    // The control: the allowed origin shows the form.
    await page.goto(`${allowedHost.origin}/?embed=${encodeURIComponent(embedSession.embedUrl)}`);
    await expect(
      page.frameLocator("iframe[data-clinsign-form]").getByRole("heading", { level: 1, name: title }),
    ).toBeVisible();
    await expect.poll(() => eventTypes(page)).toContain("ready");

    // Another origin, same snippet, same session: the browser refuses to render the form.
    await page.goto(`${foreignHost.origin}/?embed=${encodeURIComponent(embedSession.embedUrl)}`, { waitUntil: "load" });
    await page.waitForLoadState("networkidle");
    const frame = page.frames().find((candidate) => candidate !== page.mainFrame());
    // Chromium replaces a frame refused by the page's CSP frame-ancestors with its error page.
    expect(frame?.url()).toBe("chrome-error://chromewebdata/");
    await expect(page.frameLocator("iframe[data-clinsign-form]").getByRole("heading", { name: title })).toHaveCount(0);
    await expect(page.frameLocator("iframe[data-clinsign-form]").getByLabel(/^Full name/)).toHaveCount(0);
    expect(await eventTypes(page)).toEqual([]);
    expect(
      (await rawMessages(page)).filter(
        (message) => (message.data as { source?: string } | null)?.source === "clinsign-form",
      ),
    ).toEqual([]);
  });
});

/**
 * The form page opened on its own (a link from the clinic's patient portal): the session names an
 * institution, whose brand the page shows beside the clinic's name; phone fields take national
 * numbers and file fields name their kinds in words.
 */
for (const viewport of [
  { width: 390, height: 844 },
  { width: 1280, height: 800 },
]) {
  test(`who is asking and input that forgives on the form page (${viewport.width}×${viewport.height})`, async ({
    browser,
    request,
  }) => {
    const run = Date.now();
    const institutionId = `e2e-embed-house-${run}`;
    await brandInstitution(request, staff, institutionId, "#5b1a3a", darkLogoPng());
    const clinic = await organizationName(staff);
    const title = `Referral form ${run}`;
    const identifier = await createActiveTemplate(request, staff, title, [
      { id: "1", type: "phone", key: "contactPhone", label: "Phone for questions", required: true },
      { id: "2", type: "file", key: "referral", label: "Referral letter", accept: ".pdf,image/*" },
    ]);
    const embedSession = await createEmbedSession(request, staff, identifier, { institutionId });
    const context = await browser.newContext({
      viewport,
      locale: "en-GB",
      ...(viewport.width < 500 && { isMobile: true, hasTouch: true }),
    });
    const page = await context.newPage();
    await page.goto(embedSession.embedUrl);
    await expect(page.getByRole("heading", { level: 1, name: title })).toBeVisible();
    expect(await patientBand(page)).toEqual({ colour: "rgb(91, 26, 58)", name: clinic, plate: "rgb(255, 255, 255)" });
    expect(await hasHorizontalScroll(page)).toBe(false);
    const contact = page.getByLabel(/^Phone for questions/);
    await contact.fill("0170 7654321");
    await contact.blur();
    await expect(contact).not.toHaveAttribute("aria-invalid", "true");
    await expect(page.getByText("Accepted: PDF, images (JPG, PNG …)")).toBeVisible();
    await expectAccessible(page, "form page: branded");
    await page.screenshot({ path: test.info().outputPath(`embed-form-en-${viewport.width}.png`), fullPage: true });
    await page.getByRole("combobox", { name: PATIENT_LANGUAGE_SWITCH }).selectOption("de");
    await expect(page.getByText("Erlaubt: PDF, Bilder (JPG, PNG …)")).toBeVisible();
    await page.screenshot({ path: test.info().outputPath(`embed-form-de-${viewport.width}.png`), fullPage: true });
    await page.getByRole("button", { name: "Formular senden" }).click();
    await expect(
      page.getByRole("heading", { level: 1, name: "Vielen Dank – Ihr Formular wurde gesendet" }),
    ).toBeVisible();
    // Stored as E.164 whatever was typed.
    const exported = await staff.context.request.get("/staff/submissions/export", {
      params: { templateIdentifier: identifier, format: "json" },
    });
    const body = await exported.text();
    expect(exported.status(), body).toBe(200);
    expect(body).toContain("+491707654321");
    await context.close();
  });
}
