import { expect, test, type Browser, type Page } from "@playwright/test";
import { PNG } from "pngjs";
import { expectAccessible, staffSignIn, type Staff } from "./forms-support";
import { makeConsentPdf, requestSignature, startFileServer, type FileServer } from "./signing-support";
import { hasHorizontalScroll } from "./support";

const FIELD = { page: 1, x: 60, y: 640, width: 240, height: 80 };
const run = Date.now();
const BRANDED = `e2e-brand-${run}`;
const UNBRANDED = `e2e-default-${run}`;
const DEFAULT_PRIMARY = "#1d4f91";
const INSTITUTION_PRIMARY = "#7a1f5c";

let staff: Staff;
let files: FileServer;

test.beforeAll(async ({ browser }) => {
  files = await startFileServer({ "/consent.pdf": await makeConsentPdf(FIELD) });
  staff = await staffSignIn(browser, "E2E branding");
});
/** The default brand is the organization's: the other specs' portal pages get theirs back. */
test.afterAll(async () => {
  if (staff) {
    const response = await staff.context.request.post("/trpc/organization.setDefaultBranding", {
      data: { logo_url: null, design_parameters: {} },
    });
    expect(response.status(), await response.text()).toBe(200);
  }
  await files?.close();
  await staff?.context.close();
});

/** A small logo: a 120×40 PNG in the institution's colour. */
function logoPng(): Buffer {
  const png = new PNG({ width: 120, height: 40 });
  for (let i = 0; i < png.data.length; i += 4) png.data.set([0x7a, 0x1f, 0x5c, 0xff], i);
  return PNG.sync.write(png);
}

const rgb = (hex: string) => `rgb(${[1, 3, 5].map((i) => parseInt(hex.slice(i, i + 2), 16)).join(", ")})`;

/** The signing page's header band as the patient's phone shows it: its colour and its logo, if any. */
async function patientPageBrand(browser: Browser, link: string): Promise<{ colour: string; logo: string | null }> {
  const context = await browser.newContext({ viewport: { width: 390, height: 844 }, locale: "en-GB" });
  const page = await context.newPage();
  await page.goto(link);
  await expect(page.getByRole("heading", { level: 1 })).toBeVisible();
  const band = page.getByRole("banner");
  const colour = await band.evaluate((element) => getComputedStyle(element).backgroundColor);
  const images = band.getByRole("img");
  let logo: string | null = null;
  if ((await images.count()) > 0) {
    // Loaded, not only present: a logo that fails to load is taken out of the band.
    await expect
      .poll(() =>
        images
          .first()
          .evaluate((image) => (image as HTMLImageElement).complete && (image as HTMLImageElement).naturalWidth > 0),
      )
      .toBe(true);
    logo = await images.first().getAttribute("src");
  }
  await context.close();
  return { colour, logo };
}

async function fillColour(page: Page, name: string, hex: string) {
  const field = page.getByLabel(`${name} as hex value`);
  await field.fill(hex);
  return field;
}

test("the organization default and an institution brand reach their requests' signing pages", async ({
  browser,
  request,
}) => {
  const page = staff.page;
  await page.setViewportSize({ width: 1280, height: 800 });

  // The default brand.
  await page.goto("/branding");
  await expect(page.getByRole("heading", { level: 1, name: "Branding" })).toBeVisible();
  await expectAccessible(page, "branding overview");
  await page.getByRole("link", { name: "Edit default" }).click();
  await expect(page.getByRole("heading", { level: 1, name: "Organization default" })).toBeVisible();
  await fillColour(page, "Primary colour", DEFAULT_PRIMARY);
  await page.getByLabel("Font").selectOption("Georgia");
  // The preview follows the edit: the phone's band takes the colour.
  const preview = page.getByTestId("brand-preview");
  await expect
    .poll(() =>
      preview
        .locator("[data-preview]")
        .evaluate((element) => getComputedStyle(element).getPropertyValue("--portal-band")),
    )
    .toBe(DEFAULT_PRIMARY);
  await expectAccessible(page, "branding editor (default)");
  await page.getByRole("button", { name: "Save branding" }).click();
  await expect(
    page.getByText("Saved. Patient pages without an institution branding use it from now on."),
  ).toBeVisible();

  // An institution's own brand, created from the list.
  await page.getByRole("link", { name: "All brandings" }).click();
  await page.getByRole("link", { name: "Add institution branding" }).click();
  await expect(page.getByRole("heading", { level: 1, name: "New institution branding" })).toBeVisible();
  await page.getByLabel("Institution ID").fill(BRANDED);
  await fillColour(page, "Primary colour", INSTITUTION_PRIMARY);
  await fillColour(page, "Accent colour", "#f2b705");
  // The logo by upload: the service stores it and the URL field takes its address.
  await page.getByLabel("Upload a logo").setInputFiles({ name: "logo.png", mimeType: "image/png", buffer: logoPng() });
  await expect(page.getByText("Logo uploaded; save to use it.")).toBeVisible();
  const logoUrl = await page.getByLabel("Logo URL").inputValue();
  expect(logoUrl).toMatch(/^\/branding\/logos\//);
  await page.getByRole("button", { name: "Create branding" }).click();
  await expect(page.getByText(`Saved. Signing pages of ${BRANDED} use it from now on.`)).toBeVisible();
  await expect(page).toHaveURL(new RegExp(`institution=${BRANDED}`));
  await page.goto("/branding");
  await expect(
    page.getByRole("table", { name: "Institutions with their own branding" }).getByText(BRANDED),
  ).toBeVisible();

  // One request per institution: the branded one shows its own colour, the other the default.
  const pdfUrl = files.url("/consent.pdf");
  const own = await requestSignature(request, staff.token, {
    pdfUrl,
    field: FIELD,
    title: `Brand ${run}`,
    patientId: `B-${run}`,
    institutionId: BRANDED,
  });
  const fallback = await requestSignature(request, staff.token, {
    pdfUrl,
    field: FIELD,
    title: `Default ${run}`,
    patientId: `D-${run}`,
    institutionId: UNBRANDED,
  });
  expect(await patientPageBrand(browser, own.signingLink)).toEqual({ colour: rgb(INSTITUTION_PRIMARY), logo: logoUrl });
  expect(await patientPageBrand(browser, fallback.signingLink)).toEqual({ colour: rgb(DEFAULT_PRIMARY), logo: null });
});

test("a low-contrast colour shows the warning, and saving stays possible", async () => {
  const page = staff.page;
  await page.setViewportSize({ width: 390, height: 844 });
  await page.goto(`/branding?institution=${BRANDED}`);
  await expect(page.getByRole("heading", { level: 1, name: `Branding of ${BRANDED}` })).toBeVisible();
  await expect(page.getByLabel("Primary colour as hex value")).toHaveValue(INSTITUTION_PRIMARY);
  await expect(page.getByText("Low contrast")).toHaveCount(1); // the yellow accent
  const primary = await fillColour(page, "Primary colour", "#ffff66");
  await expect(
    page.getByRole("list", { name: "Contrast of the Primary colour" }).getByText("Below 4.5:1"),
  ).toBeVisible();
  await expect(page.getByText("Low contrast")).toHaveCount(2);
  await expect(page.getByText(/You can still save it/).first()).toBeVisible();
  expect(await hasHorizontalScroll(page)).toBe(false);
  await expectAccessible(page, "branding editor (low contrast, phone)");

  // Not a hex colour: said at the field before saving, and by the server after.
  await primary.fill("#12");
  await expect(page.getByText("Enter a hex colour such as #0a7f5a.")).toBeVisible();
  await page.getByRole("button", { name: "Save branding" }).click();
  await expect(page.getByText("Please check the highlighted fields.")).toBeVisible();
  await expect(primary).toHaveAttribute("aria-invalid", "true");
  await expect(page.getByText("Enter a hex colour such as #0a7f5a.")).toBeVisible();

  await primary.fill("#ffff66");
  await page.getByRole("button", { name: "Save branding" }).click();
  await expect(page.getByText(`Saved. Signing pages of ${BRANDED} use it from now on.`)).toBeVisible();
});
