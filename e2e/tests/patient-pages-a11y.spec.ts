import { expect, test } from "@playwright/test";
import { createActiveTemplate, createEmbedSession, expectAccessible, staffSignIn, type Staff } from "./forms-support";
import { makeConsentPdf, requestSignature, startFileServer, type FileServer } from "./signing-support";
import { API_URL } from "./support";

// The states of the patient pages that the flow specs do not reach (they check identify, code,
// form, done, already sent, locked and unknown, framed embed form and done themselves).

const FIELD = { page: 1, x: 60, y: 640, width: 240, height: 80 };

let staff: Staff;
let files: FileServer;

test.beforeAll(async ({ browser }) => {
  files = await startFileServer({ "/consent.pdf": await makeConsentPdf(FIELD) });
  staff = await staffSignIn(browser, "E2E accessibility");
});
test.afterAll(async () => {
  await Promise.all([files?.close(), staff?.context.close()]);
});

test.describe("patient pages have no serious or critical axe violation (390 × 844)", () => {
  test.use({ viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true });

  test("embedded form opened directly, with an ended session, and withdrawn", async ({ page, request }) => {
    const title = `Accessibility form ${Date.now()}`;
    const identifier = await createActiveTemplate(request, staff, title, [
      {
        id: "1",
        type: "text",
        key: "fullName",
        label: "Full name",
        required: true,
        helpText: "As on your insurance card.",
      },
      { id: "2", type: "select", key: "ward", label: "Ward", options: ["Surgery", "Cardiology"] },
      { id: "3", type: "signature", key: "signature", label: "Signature" },
    ]);
    const embedSession = await createEmbedSession(request, staff, identifier);
    await page.goto(embedSession.embedUrl);
    await expect(page.getByRole("heading", { level: 1, name: title })).toBeVisible();
    await expectAccessible(page, "embedded form (top level)");
    // The error summary after an empty submit.
    await page.getByRole("button", { name: "Send form" }).click();
    await expect(page.getByLabel(/^Full name/)).toBeFocused();
    await expectAccessible(page, "embedded form with errors");

    // A session that no longer works (expired or unknown) gets the same page.
    await page.goto(`/embed/${identifier}?session=fs_${"A".repeat(43)}`);
    await expect(page.getByRole("heading", { level: 1, name: "This form link has expired" })).toBeVisible();
    await expectAccessible(page, "embedded form: session expired");

    // The clinic withdrew the form (template archived).
    const archived = await request.patch(`${API_URL}/api/embed/templates/${encodeURIComponent(identifier)}`, {
      data: { token: staff.token, orgId: staff.orgId, status: "archived" },
    });
    expect(archived.status(), await archived.text()).toBe(200);
    await page.goto(embedSession.embedUrl);
    await expect(page.getByRole("heading", { level: 1, name: "This form is not available" })).toBeVisible();
    await expectAccessible(page, "embedded form: withdrawn");
  });

  test("signing portal: the document and an unknown link", async ({ page, request }) => {
    const signing = await requestSignature(request, staff.token, {
      pdfUrl: files.url("/consent.pdf"),
      field: FIELD,
      title: "Consent to anaesthesia",
      patientId: `P-a11y-${Date.now()}`,
    });
    await page.goto(signing.signingLink);
    await expect(page.getByRole("heading", { level: 1, name: "Consent to anaesthesia" })).toBeVisible();
    await expect(page.getByRole("figure", { name: "Page 1 of 2" })).toHaveAttribute("data-rendered", "true");
    await expectAccessible(page, "signing portal: document");

    await page.goto(`/sign/${"x".repeat(43)}`);
    await expect(page.getByRole("heading", { level: 1, name: "This link does not work" })).toBeVisible();
    await expectAccessible(page, "signing portal: unknown link");
  });
});
