import { expect, test, type Locator, type Page } from "@playwright/test";
import { expectAccessible } from "./forms-support";
import { hasHorizontalScroll, shot, signIn, WEB_PORT } from "./support";

// Issue 31, items 6, 11 and 12: a scored questionnaire built by hand, as a clinic builds a PHQ-9.
// Options are rows with weights, the answers are written once as an answer list and translated
// once, conditions pick values from the options, "is not" stays quiet on a blank form, a score
// band shows a safety question, and band labels are translated like options.

async function addField(page: Page, type: string, label: string): Promise<Locator> {
  await page.getByLabel("Field type").selectOption({ label: type });
  await page.getByRole("button", { name: "Add a field" }).click();
  const editor = page.locator("[id^=editor-]");
  await editor.getByLabel("Label", { exact: true }).fill(label);
  return editor;
}

async function addCondition(editor: Locator, field: string, operator: string) {
  await editor.getByRole("button", { name: "Add a condition" }).click();
  await editor.getByLabel("Field 1").selectOption({ label: field });
  await editor.getByLabel("Condition 1").selectOption({ label: operator });
}

const FREQUENCY = [
  ["Not at all", "0"],
  ["Several days", "1"],
  ["More than half the days", "2"],
  ["Nearly every day", "3"],
] as const;

test("a scored questionnaire by hand: option rows, one answer list translated once, conditions from options and a score band", async ({
  page,
}) => {
  // Builds, translates, previews and submits a whole questionnaire by hand: longer than one page's test.
  test.setTimeout(180_000);
  await page.setViewportSize({ width: 1280, height: 800 });
  await signIn(page);
  await page.goto("/form-templates");
  const title = `Scored by hand ${Date.now()}`;
  await page.getByLabel("Title of the new form").fill(title);
  await page.getByRole("button", { name: "Create and edit" }).click();
  await expect(page).toHaveURL(/\/form-templates\/scored-by-hand-/);

  // The first question's four answers as rows: label, stored value, weight.
  const interest = await addField(page, "Single choice", "Little interest");
  await interest.getByRole("button", { name: "Add an option" }).click();
  await expect(interest.getByLabel("Option 3: label")).toBeFocused();
  await interest.getByRole("button", { name: "Add an option" }).click();
  for (const [i, [label, weight]] of FREQUENCY.entries()) {
    await interest.getByLabel(`Option ${i + 1}: label`).fill(label);
    await interest.getByLabel(`Option ${i + 1}: stored value`).fill(weight);
    await interest.getByLabel(`Option ${i + 1}: weight`).fill(weight);
  }
  await interest.getByLabel("Option 4: weight").fill("3,x");
  await expect(interest.getByText("Option 4: the weight must be a number, e.g. 2 or 1.5.")).toBeVisible();
  await interest.getByLabel("Option 4: weight").fill("3");
  await shot(page, "builder-option-rows-1280-en");

  // Written once, used by the second question.
  await interest.getByRole("button", { name: "Use as an answer list for other questions" }).click();
  await expect(interest.getByLabel("Answers")).toHaveValue("littleInterest");
  const down = await addField(page, "Single choice", "Feeling down");
  await down.getByLabel("Answers").selectOption({ label: "Answer list: Little interest" });
  await expect(down.getByLabel("Option 4: label")).toHaveValue("Nearly every day");
  await expect(down.getByText("2 question(s) use this answer list; a change applies to all of them.")).toBeVisible();

  const total = await addField(page, "Score (calculated)", "Total");
  await total.getByRole("button", { name: "Add a band" }).click();
  await total.getByLabel("Band 1: to").fill("2");
  await total.getByLabel("Band 1: name").fill("mild");
  await total.getByRole("button", { name: "Add a band" }).click();
  await total.getByLabel("Band 2: to").fill("6");
  await total.getByLabel("Band 2: name").fill("severe");

  // A score band drives a safety question.
  const safety = await addField(page, "Single choice", "Are you safe right now?");
  await addCondition(safety, "Total", "is between");
  await safety.getByLabel("Condition 1: band").selectOption({ label: "severe (3–6)" });
  await expect(safety.getByLabel("Condition 1: from")).toHaveValue("3");
  await expect(safety.getByLabel("Condition 1: to")).toHaveValue("6");

  // "is not" is picked from the options, and does not hold while unanswered.
  const hard = await addField(page, "Short text", "What makes it hard?");
  await addCondition(hard, "Little interest", "is not");
  await hard.getByLabel("Value 1").selectOption({ label: "Not at all" });

  // "is one of": the values are ticked from the options, never typed.
  const since = await addField(page, "Short text", "Since when?");
  await addCondition(since, "Feeling down", "is one of");
  const choices = since.getByRole("group", { name: "Value 1" });
  await expect(choices.getByRole("checkbox")).toHaveCount(4);
  await choices.getByRole("checkbox", { name: "Nearly every day" }).check();
  await choices.getByRole("checkbox", { name: "More than half the days" }).check();
  await expect(
    page.getByText("Shown when: Feeling down is one of More than half the days, Nearly every day"),
  ).toBeVisible();
  await expect(page.getByText("Shown when: Little interest is not Not at all")).toBeVisible();
  await expect(page.getByText("Shown when: Total is between 3–6")).toBeVisible();
  await expect(page.getByText("Fix the marked fields before saving.")).toHaveCount(0);

  const preview = page.getByRole("complementary", { name: "Live preview" });
  const question = (name: RegExp) => preview.getByRole("group", { name });
  // A blank form: neither the "is not" follow-up nor the safety question.
  await expect(preview.getByLabel(/^What makes it hard/)).toHaveCount(0);
  await expect(question(/^Are you safe/)).toHaveCount(0);
  await question(/^Little interest/)
    .getByRole("radio", { name: "Nearly every day" })
    .check();
  await expect(preview.getByLabel(/^What makes it hard/)).toBeVisible();
  await expect(question(/^Are you safe/)).toHaveCount(0);
  await question(/^Feeling down/)
    .getByRole("radio", { name: "Several days" })
    .check();
  // 3 + 1 = 4: severe, so the safety question shows; "several days" is not one of the two ticked.
  await expect(preview.locator("[data-field-type=score]")).toContainText("severe");
  await expect(question(/^Are you safe/)).toBeVisible();
  await expect(preview.getByLabel(/^Since when/)).toHaveCount(0);

  await page.getByRole("button", { name: "Save", exact: true }).click();
  await expect(page.getByText("All changes saved")).toBeVisible();

  // The answer list and the bands are translated once, in the translations view.
  await page.getByRole("radio", { name: "Translations" }).check();
  await page.getByLabel("Language to add").selectOption("tr");
  await page.getByRole("button", { name: "Add language" }).click();
  // The language just added is the one being translated.
  await expect(page.getByRole("heading", { name: "Texts in Türkçe" })).toBeVisible();
  const listTexts = page.getByRole("textbox", { name: /^Option · Little interest/ });
  await expect(listTexts).toHaveCount(4);
  await listTexts.nth(3).fill("Neredeyse her gün");
  await listTexts.nth(1).fill("Birkaç gün");
  await page
    .getByRole("textbox", { name: /^Band · Total/ })
    .nth(1)
    .fill("ağır");
  await preview.getByRole("combobox", { name: "Patient's language" }).selectOption("tr");
  const turkish = preview.locator("[data-form-language=tr]");
  await expect(turkish.getByRole("radio", { name: "Neredeyse her gün" })).toHaveCount(2);
  await turkish
    .getByRole("group", { name: /^Little interest/ })
    .getByRole("radio", { name: "Neredeyse her gün" })
    .check();
  await turkish
    .getByRole("group", { name: /^Feeling down/ })
    .getByRole("radio", { name: "Birkaç gün" })
    .check();
  await expect(turkish.locator("[data-field-type=score]")).toContainText("ağır");
  await expectAccessible(page, "translating an answer list");
  await page.getByRole("button", { name: "Save", exact: true }).click();
  await expect(page.getByText("All changes saved")).toBeVisible();

  // After a reload the list is there, used by both questions.
  await page.reload();
  await page.getByRole("radio", { name: "Answer lists" }).check();
  await expect(page.getByLabel("Name of the list")).toHaveValue("Little interest");
  await expect(page.getByText("Used by: Little interest, Feeling down")).toBeVisible();
  await expectAccessible(page, "answer lists");
  await shot(page, "builder-answer-lists-1280-en");

  // On a phone the rows fit without a horizontal scroll bar.
  await page.setViewportSize({ width: 390, height: 844 });
  await page.getByRole("radio", { name: "Fields" }).check();
  await page.getByRole("button", { name: "Edit", exact: true }).nth(1).click();
  await expect(page.locator("[id^=editor-]").getByLabel("Option 1: label")).toBeVisible();
  expect(await hasHorizontalScroll(page)).toBe(false);
  await expectAccessible(page, "option rows at 390 px");
  await shot(page, "builder-option-rows-390-en");
});

test.describe("the option rows and answer lists in German", () => {
  test.use({ locale: "de-DE" });
  for (const viewport of [
    { width: 1280, height: 800 },
    { width: 390, height: 844 },
  ]) {
    test(`read and fit at ${viewport.width} px`, async ({ page }) => {
      await page.setViewportSize(viewport);
      // Signed in on the English page, then the console in German (the language cookie wins).
      const site = `http://localhost:${WEB_PORT}`;
      await page.context().addCookies([{ name: "lang", value: "en", url: site }]);
      await signIn(page);
      await page.context().addCookies([{ name: "lang", value: "de", url: site }]);
      await page.goto("/form-templates");
      await page.getByLabel("Titel des neuen Formulars").fill(`Antwortlisten ${viewport.width} ${Date.now()}`);
      await page.getByRole("button", { name: "Anlegen und bearbeiten" }).click();
      await page.getByLabel("Feldtyp").selectOption({ label: "Einfachauswahl" });
      await page.getByRole("button", { name: "Feld hinzufügen" }).click();
      const editor = page.locator("[id^=editor-]");
      await editor.getByLabel("Beschriftung", { exact: true }).fill("Wenig Interesse oder Freude an Ihren Tätigkeiten");
      await editor.getByLabel("Antwort 1: Beschriftung").fill("Überhaupt nicht");
      await editor.getByLabel("Antwort 1: Gewicht").fill("0");
      await editor.getByLabel("Antwort 2: Beschriftung").fill("An mehr als der Hälfte der Tage");
      await editor.getByLabel("Antwort 2: Gewicht").fill("1,5");
      await expect(editor.getByLabel("Antwort 2: gespeicherter Wert")).toHaveValue("An mehr als der Hälfte der Tage");
      expect(await hasHorizontalScroll(page)).toBe(false);
      await expectAccessible(page, `option rows in German at ${viewport.width} px`);
      await shot(page, `builder-option-rows-${viewport.width}-de`);
      await editor.getByRole("button", { name: "Als Antwortliste für weitere Fragen nutzen" }).click();
      // The three views fit the width: none is cut off by the switch's edge.
      for (const view of ["Felder", "Antwortlisten", "Übersetzungen"]) {
        const box = (await page
          .locator("label")
          .filter({ has: page.getByRole("radio", { name: view }) })
          .boundingBox())!;
        expect(box.x + box.width, view).toBeLessThanOrEqual(viewport.width);
      }
      await page.getByRole("radio", { name: "Antwortlisten" }).check();
      await expect(page.getByText("Genutzt von: Wenig Interesse oder Freude an Ihren Tätigkeiten")).toBeVisible();
      expect(await hasHorizontalScroll(page)).toBe(false);
      await expectAccessible(page, `answer lists in German at ${viewport.width} px`);
      await shot(page, `builder-answer-lists-${viewport.width}-de`);
    });
  }
});
