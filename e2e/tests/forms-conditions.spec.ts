import { expect, test } from "@playwright/test";
import { createActiveTemplate, createEmbedSession, staffQuery, staffSignIn, type Staff } from "./forms-support";

let staff: Staff;

test.beforeAll(async ({ browser }) => {
  staff = await staffSignIn(browser, "E2E conditions");
});
test.afterAll(async () => {
  await staff?.context.close();
});

interface Submission {
  id: string;
  values: Record<string, unknown>;
}

test.describe("conditional fields (visibleWhen), in German", () => {
  test.use({ viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true });

  test("a question shown only after “Ja” appears and disappears, is required while shown, and a hidden answer is not sent", async ({
    page,
    request,
  }) => {
    const identifier = await createActiveTemplate(request, staff, `Anamnese ${Date.now()}`, [
      { id: "1", type: "text", key: "fullName", label: "Vollständiger Name", required: true },
      {
        id: "2",
        type: "radio",
        key: "medication",
        label: "Nehmen Sie Medikamente ein?",
        required: true,
        options: [
          { value: "yes", label: "Ja" },
          { value: "no", label: "Nein" },
        ],
      },
      {
        id: "3",
        type: "textarea",
        key: "medicationName",
        label: "Welche Medikamente nehmen Sie ein?",
        required: true,
        visibleWhen: { field: "medication", operator: "equals", value: "yes" },
      },
    ]);
    const { embedUrl } = await createEmbedSession(request, staff, identifier);

    await page.goto(`${embedUrl}&lang=de`);
    await expect(page.locator("html")).toHaveAttribute("lang", "de");
    const name = page.getByLabel(/^Vollständiger Name/);
    await expect(name).toBeVisible();
    const medication = page.getByRole("group", { name: /^Nehmen Sie Medikamente ein\?/ });
    const which = page.getByLabel(/^Welche Medikamente nehmen Sie ein\?/);
    // Not asked until the answer is “Ja”.
    await expect(which).toHaveCount(0);

    await name.fill("Erika Mustermann");
    await medication.getByRole("radio", { name: "Ja" }).check();
    await expect(which).toBeVisible();

    // While shown it is required: sending without it names the problem and goes to it.
    await page.getByRole("button", { name: "Formular senden" }).click();
    const summary = page.getByRole("alert").filter({ hasText: "Bitte prüfen Sie diese Angaben:" });
    await expect(summary).toContainText("Welche Medikamente nehmen Sie ein?");
    await expect(summary).toContainText("Bitte beantworten Sie diese Frage.");
    await expect(which).toBeFocused();
    await expect(
      page.getByRole("heading", { level: 1, name: "Vielen Dank – Ihr Formular wurde gesendet" }),
    ).toHaveCount(0);

    // An answer typed and then hidden again: the question goes away and no longer blocks.
    await which.fill("Ibuprofen 400");
    await medication.getByRole("radio", { name: "Nein" }).check();
    await expect(which).toHaveCount(0);
    await page.getByRole("button", { name: "Formular senden" }).click();
    await expect(
      page.getByRole("heading", { level: 1, name: "Vielen Dank – Ihr Formular wurde gesendet" }),
    ).toBeVisible();

    // The stored submission holds the visible answers only.
    const { items: submissions } = await staffQuery<{ items: Submission[] }>(staff, "submissions.list", {
      templateIdentifier: identifier,
      limit: 10,
    });
    expect(submissions).toHaveLength(1);
    const stored = await staffQuery<Submission>(staff, "submissions.get", { id: submissions[0]!.id });
    expect(stored.values).toEqual({ fullName: "Erika Mustermann", medication: "no" });
    expect(JSON.stringify(stored)).not.toContain("Ibuprofen");
  });
});
