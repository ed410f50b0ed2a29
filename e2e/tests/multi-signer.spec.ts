import { spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { expect, test, type APIRequestContext, type Browser, type BrowserContext, type Page } from "@playwright/test";
import { PDFDocument, rgb, StandardFonts } from "pdf-lib";
import { PNG } from "pngjs";
import { expectAccessible, staffSignIn, type Staff } from "./forms-support";
import { A4, darkShare, drawWithMouse, startFileServer, type FileServer } from "./signing-support";
import { API_URL, shot, watchCspViolations } from "./support";

/**
 * Several signers, in order (issue 20): a consent the patient, a legal representative (the
 * guardian) and the informing physician sign. The patient and the guardian sign on their own
 * phones, each with their own link; the physician signs in the console. The sealed PDF carries
 * all three signatures where their fields are, and its audit page names all three.
 */

type Rect = { page: number; x: number; y: number; width: number; height: number };
const FIELDS: Record<"patient" | "legal_representative" | "physician", Rect> = {
  patient: { page: 1, x: 60, y: 470, width: 220, height: 70 },
  legal_representative: { page: 1, x: 315, y: 470, width: 220, height: 70 },
  physician: { page: 1, x: 60, y: 640, width: 220, height: 70 },
};
const CAPTIONS = {
  patient: "Signature of the patient",
  legal_representative: "Signature of the legal representative",
  physician: "Signature of the informing physician",
};
const run = Date.now();
const PHONE = { viewport: { width: 390, height: 844 }, deviceScaleFactor: 2, isMobile: true, hasTouch: true };

/** A one-page consent with three blank signature areas, each captioned above and underlined below. */
async function makeThreeSignerConsent(): Promise<Buffer> {
  const doc = await PDFDocument.create();
  const font = await doc.embedFont(StandardFonts.Helvetica);
  const bold = await doc.embedFont(StandardFonts.HelveticaBold);
  const page = doc.addPage([A4.width, A4.height]);
  const top = (y: number) => A4.height - y;
  page.drawText("Consent to surgery of a minor", { x: 60, y: top(90), size: 20, font: bold });
  [
    "The child's legal representative and the child were informed about the planned surgery,",
    "its risks and alternatives. The informing physician confirms the consultation.",
  ].forEach((line, i) => page.drawText(line, { x: 60, y: top(140 + i * 22), size: 11, font }));
  for (const [role, field] of Object.entries(FIELDS) as [keyof typeof FIELDS, Rect][]) {
    page.drawText(CAPTIONS[role], { x: field.x, y: top(field.y - 12), size: 10, font });
    page.drawLine({
      start: { x: field.x, y: top(field.y + field.height + 2) },
      end: { x: field.x + field.width, y: top(field.y + field.height + 2) },
      thickness: 0.5,
      color: rgb(0.4, 0.4, 0.4),
    });
  }
  return Buffer.from(await doc.save());
}

let staff: Staff;
let files: FileServer;
let work: string;
let documentId: string;
let me: string;
const TITLE = `Consent with three signers ${run}`;

/** A6 over REST: the consent with one field per role, all required. */
async function registerDocument(request: APIRequestContext, token: string): Promise<string> {
  const response = await request.post(`${API_URL}/documents`, {
    headers: { authorization: `Bearer ${token}` },
    data: {
      document_name: TITLE,
      document_description: "Please read the consent and sign it.",
      account_name: "e2e",
      signingfield_koordinates: Object.entries(FIELDS).map(([role, field]) => ({ ...field, role })),
      document_bloburl: files.url("/three.pdf"),
    },
  });
  expect(response.status(), await response.text()).toBe(201);
  return ((await response.json()) as { document_id: string }).document_id;
}

interface Created {
  signatureId: string;
  patientLink: string;
  guardianLink: string;
}

/** A1 over REST with the signers (beyond the interface document): patient, guardian by link, physician = the admin. */
async function requestThree(
  request: APIRequestContext,
  options: { patientId: string; order: "sequential" | "parallel"; expiresInMs?: number },
): Promise<Created> {
  const response = await request.post(`${API_URL}/signature-requests`, {
    headers: { authorization: `Bearer ${staff.token}` },
    data: {
      patient_id: options.patientId,
      document_id: documentId,
      institution_id: "e2e-clinic",
      expiration_date: new Date(Date.now() + (options.expiresInMs ?? 3_600_000)).toISOString(),
      order_by: "dr.e2e",
      signing_order: options.order,
      signers: [
        { role: "patient" },
        { role: "legal_representative", name: "Maria Muster" },
        { role: "physician", staff_user_id: me },
      ],
    },
  });
  expect(response.status(), await response.text()).toBe(201);
  const body = (await response.json()) as {
    signature_id: string;
    signing_link: string;
    signers: { role: string; kind: string; signing_link: string | null }[];
  };
  const guardian = body.signers.find((signer) => signer.role === "legal_representative")!;
  expect(guardian.kind).toBe("link");
  expect(guardian.signing_link).toMatch(/\/sign\/[A-Za-z0-9_-]{20,}$/);
  expect(body.signers.find((signer) => signer.role === "physician")).toMatchObject({
    kind: "staff",
    signing_link: null,
  });
  return { signatureId: body.signature_id, patientLink: body.signing_link, guardianLink: guardian.signing_link! };
}

async function phone(browser: Browser, locale = "en-GB"): Promise<{ context: BrowserContext; page: Page }> {
  const context = await browser.newContext({ ...PHONE, locale });
  return { context, page: await context.newPage() };
}

/** Draws on the page's signature pad, ticks the consent and signs. */
async function drawAndSign(page: Page): Promise<void> {
  const canvas = page.getByRole("img", { name: /^Signature area/ });
  await canvas.scrollIntoViewIfNeeded();
  await drawWithMouse(page, canvas);
  await expect(canvas).toHaveAttribute("data-has-ink", "true");
  await page.getByLabel("I have read the document and agree to sign it electronically.").check();
  await page.getByRole("button", { name: "Sign document" }).click();
}

test.beforeAll(async ({ browser, request }) => {
  files = await startFileServer({ "/three.pdf": await makeThreeSignerConsent() });
  work = mkdtempSync(join(tmpdir(), "clinsign-e2e-signers-"));
  staff = await staffSignIn(browser, "E2E signers");
  const auth = await staff.context.request.get("/trpc/auth.me");
  expect(auth.status()).toBe(200);
  me = ((await auth.json()) as { result: { data: { user: { id: string } } } }).result.data.user.id;
  documentId = await registerDocument(request, staff.token);
});
test.afterAll(async () => {
  await files?.close();
  await staff?.context.close();
  if (work) rmSync(work, { recursive: true, force: true });
});

test("the field editor: each field's role and whether it must be signed, saved as a new version", async ({
  request,
}) => {
  const page = staff.page;
  await page.setViewportSize({ width: 1280, height: 800 });
  const id = await registerDocument(request, staff.token);
  await page.goto(`/documents/${id}`);
  const panel = page.getByRole("complementary", { name: "Signature fields" });
  const roles = panel.getByLabel("Signer", { exact: true });
  await expect(roles).toHaveCount(3);
  await expect(roles.nth(0)).toHaveValue("patient");
  await expect(roles.nth(1)).toHaveValue("legal_representative");
  await expect(roles.nth(2)).toHaveValue("physician");
  // On the page, each field says whose it is.
  await expect(page.getByTestId("placed-field").nth(2)).toHaveAccessibleName(/\(Physician\)/);

  // The guardian's field becomes a second parent's, and optional.
  await roles.nth(1).selectOption({ label: "Other…" });
  await panel.getByLabel("Name of the role").fill("Second parent");
  await panel.getByRole("checkbox", { name: "Must be signed" }).nth(1).uncheck();
  await expect(page.getByTestId("placed-field").nth(1)).toHaveAccessibleName(/\(Second parent, optional\)/);
  await expectAccessible(page, "field editor with roles");
  await shot(page, "signers-field-editor-en-1280");
  await page.getByRole("button", { name: "Save as version 2" }).click();
  await expect(page.getByText("Saved as version 2.")).toBeVisible();
  await page.reload();
  await expect(panel.getByLabel("Name of the role")).toHaveValue("Second parent");
  await expect(panel.getByRole("checkbox", { name: "Must be signed" }).nth(1)).not.toBeChecked();
  await expect(panel.getByRole("checkbox", { name: "Must be signed" }).nth(0)).toBeChecked();
});

test("sequential: the patient and the guardian on their phones, the physician in the console; one sealed PDF with three signatures", async ({
  browser,
}) => {
  test.setTimeout(180_000);
  const desk = staff.page;
  await desk.setViewportSize({ width: 1280, height: 800 });
  const patientId = `P-signers-${run}`;

  // The desk creates the request in the console: the document's three roles, in order.
  await desk.goto("/signature-requests");
  await desk.getByRole("button", { name: "New request" }).click();
  const dialog = desk.getByRole("dialog", { name: "New signature request" });
  await dialog.getByLabel("Patient ID").fill(patientId);
  await dialog.getByLabel("Document * (required)", { exact: true }).selectOption({ label: `${TITLE} (v1)` });
  const signers = dialog.getByRole("group", { name: "Who signs" });
  await expect(signers.getByTestId("signer-choice")).toHaveCount(3);
  await expect(signers.getByTestId("signer-choice").nth(0)).toContainText("Patient");
  await expect(signers.getByTestId("signer-choice").nth(1)).toContainText("Legal representative");
  await expect(signers.getByTestId("signer-choice").nth(2)).toContainText("Physician");
  await expect(signers.getByRole("radio", { name: "One after the other" })).toBeChecked();
  // The physician is the signed-in member by default; the guardian gets their own link.
  await expect(signers.getByLabel("Who signs as Physician")).toHaveValue(me);
  await expect(signers.getByLabel("Who signs as Legal representative")).toHaveValue("");
  await signers.getByLabel("Name of the Legal representative (optional)").fill("Maria Muster");
  const known = dialog.getByLabel("Institution * (required)", { exact: true });
  if ((await known.count()) > 0) await known.selectOption({ label: "Another institution…" });
  await dialog.getByLabel("Institution ID").fill("e2e-clinic");
  await dialog.getByLabel("Ordered by").fill("Dr. E2E");
  await expectAccessible(desk, "new request with several signers");
  await shot(desk, "signers-new-request-en-1280");
  await dialog.getByRole("button", { name: "Create request" }).click();

  const handOver = desk.getByRole("dialog", { name: "Hand the request over" });
  await expect(handOver).toBeVisible();
  // One at a time, the patient first; each link and QR code names whom it is for.
  await expect(handOver.getByTestId("hand-over-step")).toHaveText("Hand over 1 of 2: Patient");
  await expect(handOver.getByRole("img", { name: "QR code of the signing link for Patient" })).toBeVisible();
  const patientLink = await handOver.getByTestId("signing-link").inputValue();
  await expect(handOver.getByTestId("signing-link-legal_representative")).toHaveCount(0);
  await handOver.getByRole("button", { name: "Next: Legal representative: Maria Muster" }).click();
  await expect(handOver.getByTestId("hand-over-step")).toHaveText(
    "Hand over 2 of 2: Legal representative: Maria Muster",
  );
  await expect(
    handOver.getByRole("img", { name: "QR code of the signing link for Legal representative: Maria Muster" }),
  ).toBeVisible();
  await expect(handOver.getByTestId("signing-link")).toHaveCount(0);
  const guardianLink = await handOver.getByTestId("signing-link-legal_representative").inputValue();
  // Sent from the console instead of copied: by SMS to a number typed here, for this signer only.
  const send = handOver.getByRole("form", { name: "Send the link to Legal representative: Maria Muster" });
  await send.getByLabel("Mobile number").fill("+49 170 5555555");
  await send.getByRole("button", { name: "Send by SMS to Legal representative: Maria Muster" }).click();
  await expect(send.getByRole("status")).toContainText("Sent to Legal representative: Maria Muster.");
  expect(patientLink).toMatch(/\/sign\/[A-Za-z0-9_-]{20,}$/);
  expect(guardianLink).toMatch(/\/sign\/[A-Za-z0-9_-]{20,}$/);
  expect(guardianLink).not.toBe(patientLink);
  await expectAccessible(desk, "hand-over with a link per signer");
  await handOver.getByRole("link", { name: "Open the request" }).click();
  await desk.waitForURL(/\/signature-requests\/[0-9a-f-]{36}$/);
  await expect(desk.getByRole("heading", { level: 1, name: "Signature request", exact: true })).toBeVisible();
  const signatureId = desk.url().split("/").pop()!;

  // The guardian opens their link first: not their turn yet, the page says for whom they wait.
  const guardian = await phone(browser);
  const guardianCsp = watchCspViolations(guardian.page);
  await guardian.page.goto(guardianLink);
  await expect(guardian.page.getByRole("heading", { level: 1, name: "Waiting for: Patient" })).toBeVisible();
  const party = guardian.page.getByTestId("signing-party");
  await expect(party.getByRole("listitem").nth(1)).toContainText("Legal representative (you)");
  await expectAccessible(guardian.page, "signing portal: waiting for an earlier signer");
  await shot(guardian.page, "signers-waiting-en-390");

  // The patient signs on their phone; others still have to.
  const patient = await phone(browser);
  await patient.page.goto(patientLink);
  await expect(patient.page.getByRole("heading", { level: 1, name: TITLE })).toBeVisible();
  await expect(patient.page.getByTestId("pdf-field")).toHaveCount(1);
  await drawAndSign(patient.page);
  await expect(
    patient.page.getByRole("heading", { level: 1, name: "Thank you — your signature is recorded" }),
  ).toBeVisible();
  await expect(patient.page.getByText("Still to sign: Legal representative, Physician.")).toBeVisible();
  await expectAccessible(patient.page, "signing portal: signed, others still to sign");
  await shot(patient.page, "signers-signed-for-others-en-390");
  await patient.context.close();

  // The guardian's page moves on by itself: their own field to sign, the patient's signature in place.
  await expect(guardian.page.getByRole("heading", { level: 1, name: TITLE })).toBeVisible({ timeout: 20_000 });
  await expect(guardian.page.getByTestId("pdf-field")).toHaveCount(1);
  await expect(guardian.page.getByTestId("pdf-signed-field")).toHaveCount(1);
  await expect(guardian.page.getByRole("img", { name: "Signature of the Patient" })).toBeVisible();
  await expectAccessible(guardian.page, "signing portal: the guardian's turn, the patient's signature shown");
  await guardian.page.getByTestId("pdf-signed-field").scrollIntoViewIfNeeded();
  await shot(guardian.page, "signers-guardian-turn-en-390");
  await drawAndSign(guardian.page);
  await expect(guardian.page.getByText("Still to sign: Physician.")).toBeVisible();
  expect(guardianCsp).toEqual([]);
  await guardian.context.close();

  // The physician finds it on the overview: their turn now.
  await desk.goto("/");
  const awaiting = desk.getByTestId("awaiting-my-signature");
  await awaiting.getByRole("link", { name: `${TITLE}: sign as Physician` }).click();
  await desk.waitForURL(`**/signature-requests/${signatureId}`);

  // The physician signs in the console, with the same pad and form.
  const signersCard = desk.getByTestId("signers");
  await expect(signersCard.getByRole("row").filter({ hasText: "Patient" })).toContainText("Signed");
  await expect(signersCard.getByRole("row").filter({ hasText: "Legal representative" })).toContainText("Signed");
  await expect(signersCard.getByRole("row").filter({ hasText: "Physician" })).toContainText("Their turn");
  await expectAccessible(desk, "request with several signers, the physician's turn");
  await shot(desk, "signers-request-en-1280");
  await desk.getByRole("button", { name: "Sign now as Physician" }).click();
  await expect(desk.getByTestId("staff-signing").getByTestId("pdf-signed-field")).toHaveCount(2);
  await expectAccessible(desk, "staff signing in the console");
  await desk.getByTestId("staff-signing").getByTestId("pdf-signed-field").first().scrollIntoViewIfNeeded();
  await shot(desk, "signers-staff-signing-en-1280");
  await drawAndSign(desk);
  await expect(desk.getByText("Your signature as Physician is recorded.")).toBeVisible({ timeout: 20_000 });

  // Sealed once, when the last required signature is in.
  await expect(async () => {
    await desk.reload();
    await expect(desk.getByRole("button", { name: "Download signed PDF" })).toBeVisible({ timeout: 2_000 });
  }).toPass({ timeout: 60_000 });
  const rows = desk.getByTestId("signers").getByRole("row");
  await expect(rows.filter({ hasText: "Signed" })).toHaveCount(3);
  await expect(rows.filter({ hasText: "Drawn signature" })).toHaveCount(3);

  const response = await desk.request.get(`${API_URL}/signature-requests/${signatureId}/signed.pdf`, {
    headers: { authorization: `Bearer ${staff.token}` },
  });
  expect(response.status()).toBe(200);
  const file = join(work, "sealed.pdf");
  writeFileSync(file, await response.body());
  const sig = spawnSync("pdfsig", [file], { encoding: "utf8" });
  expect(sig.stdout, sig.stderr).toContain("Signature is Valid");

  // Ink inside each signer's field (72 dpi: one point is one pixel), nowhere between them.
  const prefix = join(work, "page");
  const render = spawnSync("pdftoppm", ["-r", "72", "-f", "1", "-l", "1", "-png", file, prefix], { encoding: "utf8" });
  expect(render.status, render.stderr).toBe(0);
  const png = PNG.sync.read(readFileSync(["page-1.png", "page-01.png"].map((n) => join(work, n)).find(existsSync)!));
  for (const [role, field] of Object.entries(FIELDS)) {
    expect(darkShare(png, field.x, field.y, field.width, field.height), role).toBeGreaterThan(0.01);
  }
  expect(darkShare(png, 290, 470, 20, 70)).toBe(0);

  // The audit page names all three signers.
  const text = spawnSync("pdftotext", ["-layout", file, "-"], { encoding: "utf8" }).stdout;
  const audit = text.split("\f").filter(Boolean).pop()!;
  expect(audit).toMatch(/patient/i);
  expect(audit).toMatch(/legal.representative/i);
  expect(audit).toMatch(/physician/i);
  expect(audit).toContain("Maria Muster");
});

test("parallel order, and a decline by the second signer stops the request, with role and reason for staff", async ({
  browser,
  request,
}) => {
  const created = await requestThree(request, { patientId: `P-signers-par-${run}`, order: "parallel" });

  // All at once: the guardian may sign before the patient.
  const guardian = await phone(browser);
  await guardian.page.goto(created.guardianLink);
  await expect(guardian.page.getByRole("heading", { level: 1, name: TITLE })).toBeVisible();
  await expect(guardian.page.getByTestId("signing-party")).toContainText("In any order.");
  await expect(guardian.page.getByTestId("pdf-signed-field")).toHaveCount(0);

  // The patient signs first.
  const patient = await phone(browser);
  await patient.page.goto(created.patientLink);
  await drawAndSign(patient.page);
  await expect(
    patient.page.getByRole("heading", { level: 1, name: "Thank you — your signature is recorded" }),
  ).toBeVisible();
  await patient.context.close();

  // The second signer declines, with a reason.
  await guardian.page.getByRole("button", { name: "Decline to sign" }).click();
  const confirm = guardian.page.getByRole("alertdialog", { name: "Decline to sign this document?" });
  await confirm.getByLabel("Reason (optional)").fill("I am not the child's guardian");
  await confirm.getByRole("button", { name: "Decline", exact: true }).click();
  await expect(guardian.page.getByRole("heading", { level: 1, name: "You declined to sign" })).toBeVisible();
  await guardian.context.close();

  // Staff see who declined and why; nobody can sign any more.
  const desk = staff.page;
  await desk.goto(`/signature-requests/${created.signatureId}`);
  await expect(desk.getByTestId("declined-role")).toContainText("Declined by the Legal representative");
  await expect(desk.getByText("I am not the child's guardian").first()).toBeVisible();
  const rows = desk.getByTestId("signers").getByRole("row");
  await expect(rows.filter({ hasText: "Legal representative" })).toContainText("Declined");
  await expect(desk.getByRole("button", { name: "Sign now as Physician" })).toHaveCount(0);
  await expectAccessible(desk, "request declined by the second signer");
});

test("an expired request: the guardian's link says so, and staff see it expired", async ({ browser, request }) => {
  const created = await requestThree(request, {
    patientId: `P-signers-exp-${run}`,
    order: "sequential",
    expiresInMs: 4_000,
  });
  await new Promise((resolve) => setTimeout(resolve, 5_000));
  const guardian = await phone(browser);
  await guardian.page.goto(created.guardianLink);
  await expect(guardian.page.getByRole("heading", { level: 1, name: "This link has expired" })).toBeVisible();
  await guardian.context.close();

  const desk = staff.page;
  await desk.goto(`/signature-requests/${created.signatureId}`);
  await expect(desk.getByText("Expired", { exact: true }).first()).toBeVisible();
  await expect(desk.getByRole("button", { name: "Sign now as Physician" })).toHaveCount(0);
});

test("the waiting screen and the console's signers in German", async ({ browser, request }) => {
  const created = await requestThree(request, { patientId: `P-signers-de-${run}`, order: "sequential" });
  for (const viewport of [
    { width: 390, height: 844 },
    { width: 1280, height: 800 },
  ]) {
    for (const lang of ["de", "en"] as const) {
      const context = await browser.newContext({ viewport, locale: lang === "de" ? "de-DE" : "en-GB" });
      await context.addCookies([{ name: "lang", value: lang, url: created.guardianLink }]);
      const page = await context.newPage();
      await page.goto(created.guardianLink);
      await expect(page.locator('[data-state="waiting"]')).toBeVisible();
      if (lang === "de") await expect(page.getByRole("heading", { level: 1 })).toHaveText("Warten auf: Patient/in");
      await expectAccessible(page, `waiting screen ${lang} ${viewport.width}`);
      await shot(page, `signers-waiting-${lang}-${viewport.width}`);
      await context.close();
    }
  }
  const desk = staff.page;
  for (const viewport of [
    { width: 390, height: 844 },
    { width: 1280, height: 800 },
  ]) {
    await desk.setViewportSize(viewport);
    for (const lang of ["de", "en"] as const) {
      await staff.context.addCookies([{ name: "lang", value: lang, url: desk.url() }]);
      await desk.goto(`/signature-requests/${created.signatureId}`);
      await expect(desk.getByTestId("signers")).toBeVisible();
      await shot(desk, `signers-request-${lang}-${viewport.width}`);
    }
  }
  await staff.context.addCookies([{ name: "lang", value: "en", url: desk.url() }]);
  await desk.setViewportSize({ width: 1280, height: 800 });
});
