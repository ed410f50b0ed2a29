import { expect, test, type Page } from "@playwright/test";
import { createActiveTemplate, expectAccessible, staffSignIn, type Staff } from "./forms-support";
import { drawWithMouse, makeConsentPdf, startFileServer } from "./signing-support";
import { ADMIN_EMAIL, ADMIN_PASSWORD, API_URL, hasHorizontalScroll, shot, WEB_PORT } from "./support";

let staff: Staff;
let identifier: string;

test.beforeAll(async ({ browser, request }) => {
  staff = await staffSignIn(browser, "E2E audit");
  identifier = await createActiveTemplate(request, staff, `Audit ${Date.now()}`, [
    { id: "1", type: "text", key: "name", label: "Name" },
  ]);
});
test.afterAll(async () => {
  await staff?.context.close();
});

for (const viewport of [
  { width: 1280, height: 800 },
  { width: 390, height: 844 },
]) {
  test(`filter the audit log by form and actor, read an entry, verify the chain (${viewport.width}×${viewport.height})`, async () => {
    const page = await staff.context.newPage();
    await page.setViewportSize(viewport);
    await page.goto("/audit-log");
    await expect(page.getByRole("heading", { level: 1, name: "Audit log" })).toBeVisible();
    await expect(page.getByRole("table", { name: "Audit log entries, newest first" })).toBeVisible();

    await page.getByLabel("Form identifier").fill(identifier);
    await page.getByLabel("Actor", { exact: true }).selectOption("api_key");
    await page.getByRole("button", { name: "Apply filters" }).click();
    await expect(page).toHaveURL(/actor=api_key/);
    const table = page.getByRole("table", { name: "Audit log entries, newest first" });
    await expect(table.getByRole("row")).toHaveCount(2);
    // The action in words, its code beside it (what the filter takes).
    await expect(table.getByText("Form template created", { exact: true })).toBeVisible();
    await expect(table.getByText("template.created")).toBeVisible();
    await table.getByText("Metadata").click();
    await expect(table.getByText(/"status": "active"/)).toBeVisible();
    await expectAccessible(page, `audit log ${viewport.width}`);
    expect(await hasHorizontalScroll(page)).toBe(false);

    // A filter nothing matches, then back to the one before.
    await page.getByLabel("Actor", { exact: true }).selectOption("sms_recipient");
    await page.getByRole("button", { name: "Apply filters" }).click();
    await expect(page.getByText("No entries match these filters")).toBeVisible();

    await page.getByRole("button", { name: "Verify the chain" }).click();
    await expect(page.getByRole("status").getByText(/^The chain is intact: \d+ entries checked\.$/)).toBeVisible();
    // Owners and admins see the export.
    await expect(page.getByRole("button", { name: "Export CSV" })).toBeVisible();
    await page.close();
  });
}

test("the admin downloads the filtered audit log as CSV", async () => {
  const page = await staff.context.newPage();
  await page.goto(`/audit-log?template=${identifier}`);
  const download = page.waitForEvent("download");
  await page.getByRole("button", { name: "Export CSV" }).click();
  // The page says the download is under way, then that it is done.
  await expect(page.getByTestId("download-status")).toHaveText("Downloaded.");
  const stream = await (await download).createReadStream();
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(chunk as Buffer);
  const text = Buffer.concat(chunks).toString("utf8");
  expect(text.startsWith("\uFEFFseq,created_at,action,template,actor_type")).toBe(true);
  expect(text).toContain(`,template.created,${identifier},api_key,`);
  await page.close();
});

test("sign-ins and wrong passwords are logged with the staff member's name; German calls it Audit-Protokoll on menu and page", async ({
  browser,
}) => {
  // A wrong password first, then the right one, through the login form.
  const context = await browser.newContext({ baseURL: `http://localhost:${WEB_PORT}`, locale: "en-GB" });
  const login = await context.newPage();
  await login.goto("/login");
  await login.getByLabel("E-mail address").fill(ADMIN_EMAIL);
  await login.getByLabel("Password").fill("not-the-password-1");
  await login.getByRole("button", { name: "Sign in", exact: true }).click();
  // The refusal has arrived (and the form has emptied the password field) before the retry.
  await expect(login.getByRole("alert").filter({ hasText: /password/i })).toBeVisible();
  await expect(login.getByLabel("Password")).toHaveValue("");
  await login.getByLabel("Password").fill(ADMIN_PASSWORD);
  await login.getByRole("button", { name: "Sign in", exact: true }).click();
  await expect(login).toHaveURL(/\/$/);

  for (const viewport of [
    { width: 1280, height: 800 },
    { width: 390, height: 844 },
  ]) {
    await login.setViewportSize(viewport);
    await login.goto("/audit-log?action=staff.sign_in_failed");
    const table = login.getByRole("table", { name: "Audit log entries, newest first" });
    const failed = table.getByRole("row").filter({ hasText: "Sign-in failed (wrong password)" }).first();
    await expect(failed).toContainText("Demo Admin");
    await expect(failed).toContainText("Staff member");
    await login.goto("/audit-log?action=staff.signed_in");
    await expect(table.getByRole("row").filter({ hasText: "Staff sign-in" }).first()).toContainText("Demo Admin");
    expect(await hasHorizontalScroll(login)).toBe(false);
    await table.scrollIntoViewIfNeeded();
    await shot(login, `audit-log-en-${viewport.width}`);

    await login.getByRole("button", { name: "Deutsch" }).click();
    await expect(login.getByRole("heading", { level: 1, name: "Audit-Protokoll" })).toBeVisible();
    if (viewport.width < 800) await login.getByRole("button", { name: /Menü/ }).click();
    await expect(
      login.getByRole("navigation", { name: "Hauptnavigation" }).getByRole("link", { name: "Audit-Protokoll" }),
    ).toBeVisible();
    if (viewport.width < 800) await login.getByRole("button", { name: "Menü schließen" }).click();
    await expect(login.getByText("Anmeldung von Mitarbeitenden").first()).toBeVisible();
    await login.getByRole("table").scrollIntoViewIfNeeded();
    await shot(login, `audit-log-de-${viewport.width}`);
    await login.getByRole("button", { name: "English" }).click();
    await expect(login.getByRole("heading", { level: 1, name: "Audit log" })).toBeVisible();
  }
  await context.close();
});

/** Two looks at the list: from the physician's signature down, and at the settings change (below the sticky header). */
async function shotsOfBoth(page: Page, lang: "en" | "de", width: number): Promise<void> {
  const rows = page.getByRole("table").getByRole("row");
  for (const [name, code] of [
    ["signer", "signature.signed"],
    ["settings", "config.updated"],
  ] as const) {
    await rows
      .filter({ hasText: code })
      .first()
      .evaluate((row) => {
        row.scrollIntoView({ block: "start" });
        window.scrollBy(0, -80);
      });
    await shot(page, `audit-log-${name}-${lang}-${width}`);
  }
}

test("a settings change shows what changed, before and after; the physician's signature by link is the physician's", async ({
  browser,
  request,
}) => {
  test.setTimeout(180_000);
  const desk = staff.page;
  await desk.setViewportSize({ width: 1280, height: 800 });

  // A colleague changes one setting on the Settings page (the form sends every field).
  await desk.goto("/settings");
  const reminder = desk.getByLabel("Remind unsigned requests after (days)");
  const before = await reminder.inputValue();
  const after = String(Number(before) + 3);
  await reminder.fill(after);
  await desk.getByRole("button", { name: "Save changes" }).click();
  await expect(desk.getByRole("status").filter({ hasText: "Settings saved." })).toBeVisible();

  // A consent the patient and the informing physician sign; the physician, Dr. Weber, by their own link.
  const PATIENT_FIELD = { page: 1, x: 60, y: 470, width: 220, height: 70 };
  const files = await startFileServer({ "/audit-consent.pdf": await makeConsentPdf(PATIENT_FIELD) });
  try {
    const auth = { authorization: `Bearer ${staff.token}` };
    const document = await request.post(`${API_URL}/documents`, {
      headers: auth,
      data: {
        document_name: `Audit consent ${Date.now()}`,
        account_name: "e2e",
        signingfield_koordinates: [
          PATIENT_FIELD,
          { page: 1, x: 60, y: 640, width: 220, height: 70, role: "physician" },
        ],
        document_bloburl: files.url("/audit-consent.pdf"),
      },
    });
    expect(document.status(), await document.text()).toBe(201);
    const created = await request.post(`${API_URL}/signature-requests`, {
      headers: auth,
      data: {
        patient_id: `P-audit-${Date.now()}`,
        document_id: ((await document.json()) as { document_id: string }).document_id,
        institution_id: "e2e-clinic",
        expiration_date: new Date(Date.now() + 3_600_000).toISOString(),
        order_by: "dr.weber",
        signing_order: "parallel",
        signers: [{ role: "physician", name: "Dr. Weber" }],
      },
    });
    expect(created.status(), await created.text()).toBe(201);
    const body = (await created.json()) as { signers: { role: string; signing_link: string | null }[] };
    const physicianLink = body.signers.find((signer) => signer.role === "physician")!.signing_link!;

    const phone = await browser.newContext({ viewport: { width: 390, height: 844 }, locale: "en-GB" });
    const signing = await phone.newPage();
    await signing.goto(physicianLink);
    const canvas = signing.getByRole("img", { name: /^Signature area/ });
    await canvas.scrollIntoViewIfNeeded();
    await drawWithMouse(signing, canvas);
    await expect(canvas).toHaveAttribute("data-has-ink", "true");
    await signing.getByLabel("I have read the document and agree to sign it electronically.").check();
    await signing.getByRole("button", { name: "Sign document" }).click();
    await expect(signing.getByRole("heading", { level: 1, name: /Thank you/ })).toBeVisible();
    await phone.close();
  } finally {
    await files.close();
  }

  const table = (page: Page) => page.getByRole("table", { name: "Audit log entries, newest first" });
  // The physician's signature names the physician, by role and name.
  await desk.goto("/audit-log?action=signature.signed");
  const signed = table(desk).getByRole("row").filter({ hasText: "Document signed" }).first();
  await expect(signed).toContainText("Dr. Weber");
  await expect(signed).toContainText("Physician (signing link)");
  await expect(signed).not.toContainText("Patient");

  // The settings change: its own label, and only the field that changed, before and after, in words.
  await desk.goto("/audit-log?action=config.updated");
  const change = table(desk).getByRole("row").filter({ hasText: "Organization settings changed" }).first();
  await expect(change.getByRole("listitem")).toHaveText([
    `Remind unsigned requests after (days): ${before} → ${after}`,
  ]);
  await expect(change).not.toContainText("Embed session");
  // The details name themselves by what they show, then which entry (axe: label-content-name-mismatch).
  await expect(change.locator("summary")).toHaveAccessibleName(/^Metadata of entry \d+$/);
  await expectAccessible(desk, "audit log with a settings change");

  // Both entries at a glance: the newest entries, on a phone and on a desktop, in English and German.
  for (const viewport of [
    { width: 390, height: 844 },
    { width: 1280, height: 800 },
  ]) {
    await desk.setViewportSize(viewport);
    await desk.goto("/audit-log");
    await expect(table(desk).getByText("Physician (signing link)").first()).toBeVisible();
    await expect(table(desk).getByText(`Remind unsigned requests after (days): ${before} → ${after}`)).toBeVisible();
    expect(await hasHorizontalScroll(desk)).toBe(false);
    await expectAccessible(desk, `audit log ${viewport.width}`);
    await shotsOfBoth(desk, "en", viewport.width);

    await desk.getByRole("button", { name: "Deutsch" }).click();
    await expect(desk.getByRole("heading", { level: 1, name: "Audit-Protokoll" })).toBeVisible();
    const tabelle = desk.getByRole("table", { name: "Einträge des Audit-Protokolls, neueste zuerst" });
    await expect(tabelle.getByText("Ärztin/Arzt (Signaturlink)").first()).toBeVisible();
    await expect(tabelle.getByText("Einstellungen der Organisation geändert")).toBeVisible();
    await expect(
      tabelle.getByText(`Erinnerung an unsignierte Anfragen nach (Tagen): ${before} → ${after}`),
    ).toBeVisible();
    expect(await hasHorizontalScroll(desk)).toBe(false);
    await expectAccessible(desk, `Audit-Protokoll ${viewport.width}`);
    await shotsOfBoth(desk, "de", viewport.width);
    await desk.getByRole("button", { name: "English" }).click();
    await expect(desk.getByRole("heading", { level: 1, name: "Audit log" })).toBeVisible();
  }
});
