import { expect, test, type Page } from "@playwright/test";
import { expectAccessible, staffSignIn, type Staff } from "./forms-support";
import { makeConsentPdf, requestSignature, startFileServer, type FileServer } from "./signing-support";
import { hasHorizontalScroll } from "./support";

const FIELD = { page: 1, x: 60, y: 640, width: 240, height: 80 };
const run = Date.now();
const TITLE = `Consent ${run}`;
const PATIENT = `P-${run}`;
const INSTITUTION = `e2e-requests-${run}`;

let staff: Staff;
let files: FileServer;
let signatureId: string;

/** A6 and A1 over REST: one document (active) and one request for PATIENT. */
test.beforeAll(async ({ browser, request }) => {
  files = await startFileServer({ "/consent.pdf": await makeConsentPdf(FIELD) });
  staff = await staffSignIn(browser, "E2E signature requests");
  ({ signatureId } = await requestSignature(request, staff.token, {
    pdfUrl: files.url("/consent.pdf"),
    field: FIELD,
    title: TITLE,
    patientId: PATIENT,
    institutionId: INSTITUTION,
  }));
});
test.afterAll(async () => {
  await files?.close();
  await staff?.context.close();
});

async function openList(page: Page, query = "") {
  await page.goto(`/signature-requests${query}`);
  await expect(page.getByRole("heading", { level: 1, name: "Signature requests" })).toBeVisible();
  return page.getByRole("table", { name: "Signature requests, newest first" });
}

for (const viewport of [
  { width: 1280, height: 800 },
  { width: 390, height: 844 },
]) {
  test(`the list's filters live in the URL (${viewport.width}×${viewport.height})`, async () => {
    const page = await staff.context.newPage();
    await page.setViewportSize(viewport);
    await openList(page);
    const filters = page.getByRole("search", { name: "Filters" });
    await filters.getByLabel("Patient ID").fill(PATIENT);
    await filters.getByLabel("Status").selectOption("pending");
    await filters.getByRole("button", { name: "Apply filters" }).click();
    await expect(page).toHaveURL(new RegExp(`patient=${PATIENT}`));
    await expect(page).toHaveURL(/status=pending/);
    const table = page.getByRole("table", { name: "Signature requests, newest first" });
    await expect(table.getByRole("row")).toHaveCount(2);
    await expect(table.getByText(TITLE)).toBeVisible();
    await expect(table.getByText("Pending", { exact: true })).toBeVisible();
    await expectAccessible(page, `signature requests list ${viewport.width}`);
    expect(await hasHorizontalScroll(page)).toBe(false);

    // A reload (or a shared link) keeps the filter; another status finds nothing.
    await page.reload();
    await expect(filters.getByLabel("Patient ID")).toHaveValue(PATIENT);
    await filters.getByLabel("Status").selectOption("completed");
    await filters.getByRole("button", { name: "Apply filters" }).click();
    await expect(page).toHaveURL(/status=completed/);
    await expect(page.getByText("No request matches these filters")).toBeVisible();
    await filters.getByRole("button", { name: "Reset" }).click();
    await expect(page).toHaveURL(/\/signature-requests$/);
    await page.close();
  });
}

test("detail: facts and timeline; change the expiry and the visibility", async () => {
  const page = await staff.context.newPage();
  await page.setViewportSize({ width: 1280, height: 800 });
  const table = await openList(page, `?patient=${PATIENT}`);
  await table.getByRole("link", { name: `Open the request of patient ${PATIENT} for ${TITLE}` }).click();
  await expect(page).toHaveURL(new RegExp(`/signature-requests/${signatureId}$`));
  await expect(page.getByRole("heading", { level: 1, name: "Signature request" })).toBeVisible();
  await expect(page.getByText(INSTITUTION, { exact: true })).toBeVisible();
  const timeline = page.getByRole("list", { name: "Timeline" });
  await expect(timeline.getByText("Created", { exact: true })).toBeVisible();
  // The link is a bearer credential: shown on request, and the view is on the timeline.
  await expect(page.getByTestId("signing-link")).toHaveCount(0);
  await page.getByRole("button", { name: "Show signing link" }).click();
  await expect(page.getByTestId("signing-link")).toHaveValue(/\/sign\/[A-Za-z0-9_-]+$/);
  await expect(timeline.getByText("Signing link viewed")).toBeVisible();
  await expectAccessible(page, "signature request detail");

  const nextMonth = new Date(Date.now() + 30 * 86_400_000);
  const day = `${nextMonth.getFullYear()}-${String(nextMonth.getMonth() + 1).padStart(2, "0")}-${String(nextMonth.getDate()).padStart(2, "0")}`;
  await page.getByLabel("New expiry day").fill(day);
  await page.getByRole("button", { name: "Save expiry" }).click();
  await expect(page.getByText(/^Saved: the link now works until/)).toBeVisible();
  await expect(timeline.getByText("Expiry changed")).toBeVisible();

  // Keyboard: the visibility radios move with the arrow keys, Enter on the button saves.
  await page.getByRole("radio", { name: "Active" }).focus();
  await page.keyboard.press("ArrowRight");
  await expect(page.getByRole("radio", { name: "Draft" })).toBeChecked();
  await page.getByRole("button", { name: "Save visibility" }).focus();
  await page.keyboard.press("Enter");
  await expect(page.getByText("The request is now a draft.")).toBeVisible();
  await expect(page.getByText(/^This request is a draft: its link does not open/)).toBeVisible();
  await expect(timeline.getByText("Visibility changed")).toBeVisible();

  // The list shows the draft badge, and the visibility filter finds it.
  const list = await openList(page, `?patient=${PATIENT}&visibility=draft`);
  await expect(list.getByRole("row")).toHaveCount(2);
  await expect(list.getByText("Draft", { exact: true })).toBeVisible();
  await page.close();
});

test("create a request in the UI and hand it over by link or QR code", async () => {
  const page = await staff.context.newPage();
  await page.setViewportSize({ width: 1280, height: 800 });
  await openList(page);
  // Keyboard: the dialog opens from the button with Enter.
  await page.getByRole("button", { name: "New request" }).focus();
  await page.keyboard.press("Enter");
  const dialog = page.getByRole("dialog", { name: "New signature request" });
  await expect(dialog).toBeVisible();
  await expectAccessible(page, "new signature request dialog");

  // Nothing filled in: the server's objections show on the fields.
  await dialog.getByRole("button", { name: "Create request" }).click();
  await expect(dialog.getByLabel("Patient ID")).toHaveAttribute("aria-invalid", "true");

  const patient = `${PATIENT}-ui`;
  await dialog.getByLabel("Patient ID").fill(patient);
  await dialog.getByLabel("Document * (required)", { exact: true }).selectOption({ label: `${TITLE} (v1)` });
  // Institutions already known are offered in a select (other tests may have made some); a new
  // one is typed after choosing "Another institution…".
  const known = dialog.getByLabel("Institution * (required)", { exact: true });
  if ((await known.count()) > 0) await known.selectOption({ label: "Another institution…" });
  await dialog.getByLabel("Institution ID").fill(INSTITUTION);
  await dialog.getByLabel("Ordered by").fill("Dr. E2E");
  await dialog.getByRole("button", { name: "Create request" }).click();

  const handOver = page.getByRole("dialog", { name: "Hand the request over" });
  await expect(handOver).toBeVisible();
  const link = await handOver.getByTestId("signing-link").inputValue();
  expect(link).toMatch(/\/sign\/[A-Za-z0-9_-]{20,}$/);
  await expect(handOver.getByRole("img", { name: "QR code of the signing link" })).toBeVisible();
  await expectAccessible(page, "hand-over dialog");
  await handOver.getByRole("link", { name: "Open the request" }).click();
  await expect(page.getByRole("heading", { level: 1, name: "Signature request" })).toBeVisible();
  await expect(page.getByText(patient, { exact: true })).toBeVisible();
  await page.getByRole("button", { name: "Show signing link" }).click();
  await expect(page.getByTestId("signing-link")).toHaveValue(link);

  await page.getByRole("button", { name: "Show QR code" }).click();
  await expect(
    page.getByRole("dialog", { name: "Scan to sign" }).getByRole("img", { name: "QR code of the signing link" }),
  ).toBeVisible();
  await page.keyboard.press("Escape");
  await expect(page.getByRole("dialog", { name: "Scan to sign" })).toBeHidden();
  await page.close();
});
