import { expect, test } from "@playwright/test";
import { createEmbedSession, expectAccessible, staffQuery, staffSignIn, type Staff } from "./forms-support";
import { API_URL, hasHorizontalScroll } from "./support";

let staff: Staff;

test.beforeAll(async ({ browser }) => {
  staff = await staffSignIn(browser, "E2E questionnaires");
});
test.afterAll(async () => {
  await staff?.context.close();
});

// Answers 3,3,2,2,1,1,0,0,1: 13 points, "Moderate" (10-14).
const ANSWERS = [3, 3, 2, 2, 1, 1, 0, 0, 1];
const WORDS = ["Not at all", "Several days", "More than half the days", "Nearly every day"];

test.describe("scored questionnaires on a phone", () => {
  test.use({ viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true });

  test("a clinic copies PHQ-9 from the library; a patient fills it in and sees the score and band live; the server stores its own score", async ({
    page,
    request,
  }) => {
    // The clinic's copy: an ordinary draft template, opened in the builder.
    const console = staff.page;
    await console.goto("/form-templates");
    const library = console.getByRole("region", { name: "Scored questionnaires" });
    await expect(library).toBeVisible();
    await expectAccessible(console, "template list with the questionnaire library");
    await library.getByRole("button", { name: "Copy to my templates: PHQ-9 (depression)" }).click();
    await expect(console).toHaveURL(/\/form-templates\/phq-9-depression-[0-9a-f]{8}$/);
    const identifier = decodeURIComponent(new URL(console.url()).pathname.split("/").pop()!);
    // The builder's preview shows the score field, read-only.
    await expect(console.getByRole("status", { name: "PHQ-9 total score" })).toContainText(
      "Shown once all 9 questions are answered (0 so far)",
    );

    const activated = await request.patch(`${API_URL}/api/embed/templates/${encodeURIComponent(identifier)}`, {
      data: { token: staff.token, orgId: staff.orgId, status: "active" },
    });
    expect(activated.status(), await activated.text()).toBe(200);
    const { embedUrl } = await createEmbedSession(request, staff, identifier);

    await page.goto(`${embedUrl}&lang=en`);
    const score = page.getByRole("status", { name: "PHQ-9 total score" });
    await expect(score).toHaveText("Shown once all 9 questions are answered (0 so far)");
    for (const [i, answer] of ANSWERS.entries()) {
      await page
        .getByRole("group", { name: new RegExp(`^${i + 1}\\. `) })
        .getByRole("radio", { name: WORDS[answer], exact: true })
        .check();
      if (i === 7) await expect(score).toHaveText("Shown once all 9 questions are answered (8 so far)");
    }
    await expect(score).toHaveText("13 points Moderate");
    // Changing an answer changes the score at once: item 1 from 3 to 0 → 10, still moderate; item 2 to 0 → 7, mild.
    await page.getByRole("group", { name: /^1\. / }).getByRole("radio", { name: "Not at all", exact: true }).check();
    await expect(score).toHaveText("10 points Moderate");
    await page.getByRole("group", { name: /^2\. / }).getByRole("radio", { name: "Not at all", exact: true }).check();
    await expect(score).toHaveText("7 points Mild");
    await page
      .getByRole("group", { name: /^2\. / })
      .getByRole("radio", { name: "Nearly every day", exact: true })
      .check();
    await page
      .getByRole("group", { name: /^1\. / })
      .getByRole("radio", { name: "Nearly every day", exact: true })
      .check();
    await expect(score).toHaveText("13 points Moderate");
    await score.scrollIntoViewIfNeeded();
    expect(await hasHorizontalScroll(page)).toBe(false);
    await expectAccessible(page, "PHQ-9 with its score on a phone");

    await page.getByRole("button", { name: "Send form" }).click();
    await expect(page.getByRole("heading", { level: 1, name: "Thank you — your form was sent" })).toBeVisible();

    const { items } = await staffQuery<{ items: { id: string }[] }>(staff, "submissions.list", {
      templateIdentifier: identifier,
      limit: 10,
    });
    expect(items).toHaveLength(1);
    const stored = await staffQuery<{
      values: Record<string, unknown>;
      answers: { key: string; text: string }[];
    }>(staff, "submissions.get", { id: items[0]!.id });
    expect(stored.values.phq9_score).toEqual({ score: 13, band: "Moderate" });
    expect(stored.answers.find((a) => a.key === "phq9_score")?.text).toBe("13 (Moderate)");
  });
});
