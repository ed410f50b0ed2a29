import { expect, test, type Page } from "@playwright/test";
import { expectAccessible } from "./forms-support";
import { hasHorizontalScroll, shot, signIn } from "./support";

/** Adds a field of `type` (its name in the "Field type" list) and gives it a label. */
async function addField(page: Page, type: string, label: string) {
  await page.getByLabel("Field type").selectOption({ label: type });
  await page.getByRole("button", { name: "Add a field" }).click();
  // A new field opens its editor; only one editor is open at a time.
  const editor = page.locator("[id^=editor-]");
  await editor.getByLabel("Label", { exact: true }).fill(label);
  return editor;
}

const fieldOrder = (page: Page) => page.locator("[data-field-label]").allInnerTexts();

test.describe("the form builder (desktop)", () => {
  test.use({ viewport: { width: 1280, height: 800 } });

  test("builds a template of eight field types, reorders by keyboard, previews, activates, embeds, and a patient submits it", async ({
    page,
    browser,
  }) => {
    await signIn(page);
    await page.goto("/form-templates");
    await expect(page.getByRole("heading", { level: 1, name: "Form templates" })).toBeVisible();
    await expectAccessible(page, "template list");
    const title = `Builder form ${Date.now()}`;
    await page.getByLabel("Title of the new form").fill(title);
    await page.getByRole("button", { name: "Create and edit" }).click();
    await expect(page).toHaveURL(/\/form-templates\/builder-form-/);

    const name = await addField(page, "Short text", "Full name");
    await expect(name.getByLabel("Key (in the submitted data)")).toHaveValue("fullName");
    await name.getByLabel("Required", { exact: true }).check();
    await addField(page, "E-mail", "E-mail address");
    const age = await addField(page, "Number", "Age");
    // What the answer measures, for the clinical record (issue 34): LOINC by default.
    const ageCode = age.getByRole("group", { name: /^Code for the clinical record/ });
    await expect(ageCode.getByLabel("Code system")).toHaveValue("http://loinc.org");
    await ageCode.getByLabel("Code", { exact: true }).fill("30525-0");
    await ageCode.getByLabel("Display name").fill("Age");
    await addField(page, "Date", "Date of birth");
    const smoker = await addField(page, "Single choice", "Do you smoke?");
    // Options are rows: the label patients read, the stored value (typed here), a weight.
    await smoker.getByLabel("Option 1: label").fill("Yes");
    await smoker.getByLabel("Option 1: stored value").fill("yes");
    await smoker.getByLabel("Option 2: label").fill("No");
    await smoker.getByLabel("Option 2: stored value").fill("no");
    const perDay = await addField(page, "Number", "Cigarettes per day");
    await perDay.getByRole("button", { name: "Add a condition" }).click();
    await perDay.getByLabel("Field 1").selectOption({ label: "Do you smoke?" });
    await perDay.getByLabel("Condition 1").selectOption({ label: "is" });
    await perDay.getByLabel("Value 1").selectOption({ label: "Yes" });
    await addField(page, "Long text", "Anything else?");
    const consent = await addField(page, "Checkbox", "I agree");
    await consent.getByLabel("Required", { exact: true }).check();
    await addField(page, "Signature", "Signature");

    // The condition shows on both fields.
    await expect(page.getByText("Shown when: Do you smoke? is Yes")).toBeVisible();
    await expect(page.getByText("1 field(s) depend on this answer: Cigarettes per day")).toBeVisible();

    // Reorder with the keyboard: "Anything else?" moves up past the cigarettes question.
    await page.getByRole("button", { name: "Move up: Anything else?" }).focus();
    await page.keyboard.press("Enter");
    await expect(page.getByRole("status").filter({ hasText: "Anything else? moved to position 6." })).toBeAttached();
    expect((await fieldOrder(page)).map((label) => label.replace(/ \*$/, ""))).toEqual([
      "Full name",
      "E-mail address",
      "Age",
      "Date of birth",
      "Do you smoke?",
      "Anything else?",
      "Cigarettes per day",
      "I agree",
      "Signature",
    ]);
    // Focus stays on the moved field's button, so it can keep moving.
    await expect(page.getByRole("button", { name: "Move up: Anything else?" })).toBeFocused();

    // The live preview validates with the patients' rules.
    const preview = page.getByRole("complementary", { name: "Live preview" });
    await preview.getByRole("button", { name: "Send form" }).click();
    await expect(preview.getByRole("alert").filter({ hasText: "Please check these answers:" })).toContainText(
      "Full name: Please answer this question.",
    );
    await expect(preview.getByLabel(/^Cigarettes per day/)).toHaveCount(0);
    await preview
      .getByRole("group", { name: /^Do you smoke\?/ })
      .getByRole("radio", { name: "Yes" })
      .check();
    await expect(preview.getByLabel(/^Cigarettes per day/)).toBeVisible();

    await page.getByLabel("Status", { exact: true }).selectOption("active");
    await page.getByRole("button", { name: "Save", exact: true }).click();
    await expect(page.getByText("Template saved (version 2).")).toBeVisible();
    await expect(page.getByText("All changes saved")).toBeVisible();
    await expectAccessible(page, "form builder");
    // The code was stored with the field: after a reload, Age (the third field) still carries it.
    await page.reload();
    await page.getByRole("button", { name: "Edit", exact: true }).nth(2).click();
    const storedCode = page.locator("[id^=editor-]").getByRole("group", { name: /^Code for the clinical record/ });
    await expect(storedCode.getByLabel("Code", { exact: true })).toHaveValue("30525-0");

    // The embed panel: a personal link for one patient.
    await page.getByRole("button", { name: "Create personal link" }).click();
    const link = await page.getByTestId("embed-link").inputValue();
    expect(link).toMatch(/\/embed\/builder-form-[^?]+\?session=fs_/);

    const patientContext = await browser.newContext({ viewport: { width: 390, height: 844 }, locale: "en-GB" });
    const patient = await patientContext.newPage();
    await patient.goto(link);
    await expect(patient.getByRole("heading", { level: 1, name: title })).toBeVisible();
    await patient.getByLabel(/^Full name/).fill("Erika Mustermann");
    await patient
      .getByRole("group", { name: /^Do you smoke\?/ })
      .getByRole("radio", { name: "No" })
      .check();
    await patient.getByRole("checkbox", { name: /^I agree/ }).check();
    await patient.getByText("Type your name", { exact: true }).click();
    await patient.getByLabel("Your full name").fill("Erika Mustermann");
    await patient.getByRole("button", { name: "Send form" }).click();
    await expect(patient.getByRole("heading", { name: "Thank you — your form was sent" })).toBeVisible();
    await patientContext.close();

    // Back in the list: the template is active and counts its submission.
    await page.goto(`/form-templates?q=${encodeURIComponent(title)}`);
    const row = page.getByRole("row").filter({ hasText: title });
    await expect(row).toContainText("Active");
    await expect(row.getByRole("cell").nth(3)).toHaveText("1");
  });
});

test.describe("the form template list (phone)", () => {
  test.use({ viewport: { width: 390, height: 844 } });

  test("filters in the URL survive a reload, and deleting asks first and keeps submissions", async ({ page }) => {
    await signIn(page);
    const title = `Phone list ${Date.now()}`;
    await page.goto("/form-templates");
    await page.getByLabel("Title of the new form").fill(title);
    await page.getByRole("button", { name: "Create and edit" }).click();
    await expect(page).toHaveURL(/\/form-templates\/phone-list-/);
    await page.goto("/form-templates");
    await page.getByLabel("Search by title").fill(title);
    await expect(page).toHaveURL(/[?&]q=Phone(\+|%20)list/);
    await page.reload();
    await expect(page.getByLabel("Search by title")).toHaveValue(title);
    await expect(page.getByRole("row").filter({ hasText: title })).toHaveCount(1);
    await expectAccessible(page, "template list on a phone");
    await page.getByRole("button", { name: `Delete: ${title}` }).click();
    const dialog = page.getByRole("alertdialog", { name: `Delete “${title}”?` });
    await expect(dialog).toContainText("Submissions already received are kept");
    await dialog.getByRole("button", { name: "Delete template" }).click();
    await expect(page.getByText("Template deleted.")).toBeVisible();
    await expect(page.getByText("No template matches these filters.")).toBeVisible();
  });
});

for (const viewport of [
  { width: 1280, height: 800 },
  { width: 390, height: 844 },
]) {
  test(`a new field takes the focus below the header; conditions, keys, options and file types fit the card (${viewport.width}×${viewport.height})`, async ({
    page,
  }) => {
    await page.setViewportSize(viewport);
    await signIn(page);
    await page.goto("/form-templates");
    await page.getByLabel("Title of the new form").fill(`Builder fit ${viewport.width} ${Date.now()}`);
    await page.getByRole("button", { name: "Create and edit" }).click();
    await expect(page).toHaveURL(/\/form-templates\/builder-fit-/);

    for (const label of ["Name", "Vorname", "Geburtsdatum", "Station", "Zimmer"])
      await addField(page, "Short text", label);
    await page.getByLabel("Field type").selectOption({ label: "Single choice" });
    await page.getByRole("button", { name: "Add a field" }).click();
    // The new field is named after its type, and its label has the focus with the text selected:
    // typing names it.
    const label = page.locator("[id^=editor-]").getByLabel("Label", { exact: true });
    await expect(label).toBeFocused();
    await expect(label).toHaveValue("New field: Single choice");
    await page.keyboard.type("Rauchen Sie?");
    await expect(label).toHaveValue("Rauchen Sie?");
    // Its card starts below the sticky header (64 px), not under it.
    const card = page.locator("li[data-open]");
    expect((await card.boundingBox())!.y).toBeGreaterThanOrEqual(64);

    // Advanced options wait behind "More options".
    const editor = page.locator("[id^=editor-]");
    await expect(editor.getByLabel("Key (in the submitted data)")).toBeHidden();
    await editor.getByText("More options").click();
    await expect(editor.getByLabel("Key (in the submitted data)")).toBeVisible();
    await expect(editor.getByLabel("Key (in the submitted data)")).toHaveValue("rauchenSie");

    // A long question makes a short key, and the key stays inside its card.
    const long = await addField(
      page,
      "Number",
      "Wie viele Zigaretten rauchen Sie an einem gewöhnlichen Werktag ungefähr, wenn Sie an die letzten vier Wochen denken?",
    );
    await long.getByText("More options").click();
    const key = await long.getByLabel("Key (in the submitted data)").inputValue();
    expect(key.length).toBeLessThanOrEqual(32);
    const longCard = page.locator("li[data-open]");
    const cardBox = (await longCard.boundingBox())!;
    const keyBox = (await longCard.locator("code").first().boundingBox())!;
    expect(keyBox.x + keyBox.width).toBeLessThanOrEqual(cardBox.x + cardBox.width);

    // The condition's selects keep room for their words.
    await long.getByRole("button", { name: "Add a condition" }).click();
    await long.getByLabel("Field 1").selectOption({ label: "Rauchen Sie?" });
    for (const select of [long.getByLabel("Field 1"), long.getByLabel("Condition 1")]) {
      const width = (await select.boundingBox())!.width;
      expect(width).toBeGreaterThanOrEqual(Math.min(192, cardBox.width - 60));
    }
    await shot(page, `builder-condition-${viewport.width}`);

    // File types are ticked, not typed as MIME patterns.
    const upload = await addField(page, "File upload", "Befunde");
    await upload.getByLabel("PDF", { exact: true }).check();
    await upload.getByLabel("Images (JPEG, PNG, …)").check();
    await upload.getByText("More options").click();
    await expect(upload.getByLabel("Other file types")).toHaveValue("");
    const preview = page.getByRole("complementary", { name: "Live preview" });
    await expect(preview.getByText(/Accepted: .*pdf.*image/i)).toBeVisible();
    expect(await hasHorizontalScroll(page)).toBe(false);
    await expectAccessible(page, `builder fit ${viewport.width}`);
    await shot(page, `builder-filetypes-${viewport.width}`);
  });
}
