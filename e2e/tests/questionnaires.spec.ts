import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { expect, test } from "@playwright/test";
import { createEmbedSession, expectAccessible, staffQuery, staffSignIn, type Staff } from "./forms-support";
import { API_URL, hasHorizontalScroll, WEB_PORT } from "./support";

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

test.describe("flagged answers and scores in the submissions list (issue 31)", () => {
  test("a PHQ-9 with item 9 above 0 is flagged: the patient sees no score, the clinician sees score and flag and filters by them", async ({
    page,
    request,
  }) => {
    // A patient, three submissions, two filters and four screenshots with axe: more than a minute on a busy machine.
    test.slow();
    const console = staff.page;
    await console.goto("/form-templates");
    await console
      .getByRole("region", { name: "Scored questionnaires" })
      .getByRole("button", { name: "Copy to my templates: PHQ-9 (depression)" })
      .click();
    await expect(console).toHaveURL(/\/form-templates\/phq-9-depression-[0-9a-f]{8}$/);
    const identifier = decodeURIComponent(new URL(console.url()).pathname.split("/").pop()!);
    // This clinic keeps scores from its patients; the library's copy flags item 9 from weight 1.
    const { schema } = await staffQuery<{ schema: Record<string, unknown> }>(staff, "templates.get", {
      identifier,
      activeOnly: false,
    });
    expect(schema.flagged).toEqual([{ field: "phq9_9", minWeight: 1 }]);
    const changed = await request.patch(`${API_URL}/api/embed/templates/${encodeURIComponent(identifier)}`, {
      data: {
        token: staff.token,
        orgId: staff.orgId,
        status: "active",
        schema: { ...schema, scoresShownToPatient: false },
      },
    });
    expect(changed.status(), await changed.text()).toBe(200);

    // The patient answers 3,3,2,2,1,1,0,0,1 (13, moderate; item 9 "Several days") and sees no score.
    const { embedUrl } = await createEmbedSession(request, staff, identifier);
    await page.goto(`${embedUrl}&lang=en`);
    for (const [i, answer] of ANSWERS.entries())
      await page
        .getByRole("group", { name: new RegExp(`^${i + 1}\\. `) })
        .getByRole("radio", { name: WORDS[answer], exact: true })
        .check();
    await expect(page.getByRole("status", { name: "PHQ-9 total score" })).toHaveCount(0);
    await expect(page.getByText("PHQ-9 total score")).toHaveCount(0);
    await expect(page.getByText(/\d+ points/)).toHaveCount(0);
    await page.getByRole("button", { name: "Send form" }).click();
    await expect(page.getByRole("heading", { level: 1, name: "Thank you — your form was sent" })).toBeVisible();
    await expect(page.getByText(/Moderate|13 points/)).toHaveCount(0);

    // Two more through the API: 22 (severe) with item 9 at 0, and 0 (minimal).
    for (const items of [
      [3, 3, 3, 3, 3, 3, 2, 2, 0],
      [0, 0, 0, 0, 0, 0, 0, 0, 0],
    ]) {
      const values = Object.fromEntries(items.map((a, i) => [`phq9_${i + 1}`, String(a)]));
      const sent = await request.post(`${API_URL}/api/embed/submit`, {
        data: { token: staff.token, orgId: staff.orgId, templateIdentifier: identifier, values },
      });
      expect(sent.status(), await sent.text()).toBe(200);
    }

    await console.goto(`/submissions?template=${identifier}`);
    const table = console.getByRole("table");
    await expect(table.getByRole("row")).toHaveCount(4);
    // One "Score" column (score, band and the marker), where the answer count was.
    await expect(table.getByRole("columnheader", { name: "Score" })).toBeVisible();
    await expect(table.getByRole("columnheader", { name: "Answers" })).toHaveCount(0);
    const flaggedRow = table.getByRole("row").filter({ hasText: "Needs attention" });
    await expect(flaggedRow).toHaveCount(1);
    await expect(flaggedRow).toContainText("13 Moderate");
    // The marker names the item for screen readers (and on hover), not just a colour.
    await expect(flaggedRow).toContainText("Needs attention: 9. Thoughts that you would be better off dead");
    await expect(flaggedRow.locator('[title^="Needs attention: 9. Thoughts"]')).toHaveCount(1);
    await expect(table.getByRole("row").filter({ hasText: "22 Severe" })).not.toContainText("Needs attention");
    await expectAccessible(console, "submissions list with scores and a flagged answer");

    // Flagged only.
    await console.getByLabel("Answers needing attention").selectOption({ label: "Only those needing attention" });
    await console.getByRole("button", { name: "Apply filters" }).click();
    await expect(console).toHaveURL(/flagged=1/);
    await expect(table.getByRole("row")).toHaveCount(2);
    await expect(table.getByRole("row").nth(1)).toContainText("13 Moderate");
    // The exports follow the filter; the CSV has score and band as numbers and words of their own.
    const csvLink = console.getByRole("link", { name: "Export CSV", exact: true });
    expect(await csvLink.getAttribute("href")).toContain("flagged=true");
    const csv = await staff.context.request.get((await csvLink.getAttribute("href"))!);
    const [header, row, extra] = (await csv.text())
      .replace(/^\uFEFF/, "")
      .trim()
      .split("\r\n");
    expect(extra).toBeUndefined();
    // In the organization's output language: German files say "Punktwert" and split at ";".
    const [score, band, sep] = header!.includes("(Punktwert)")
      ? ["Punktwert", "Einstufung", ";"]
      : ["score", "band", ","];
    expect(header).toContain(`PHQ-9 total score (${score})${sep}PHQ-9 total score (${band})`);
    expect(row).toContain(`13 (Moderate)${sep}13${sep}Moderate`);

    // Score at least 20: with a form chosen, picked by its bands.
    await console.goto(`/submissions?template=${identifier}`);
    await expect(table.getByRole("row")).toHaveCount(4);
    await console.getByLabel("Score at least").selectOption({ label: "20 or more (Severe)" });
    await console.getByRole("button", { name: "Apply filters" }).click();
    await expect(console).toHaveURL(/minScore=20/);
    await expect(table.getByRole("row")).toHaveCount(2);
    await expect(table.getByRole("row").nth(1)).toContainText("22 Severe");

    // What a clinician sees, in both console languages, on a desk and on a phone.
    const dir = process.env.E2E_SCREENSHOTS ?? mkdtempSync(join(tmpdir(), "clinsign-shots-"));
    for (const lang of ["en", "de"] as const)
      for (const viewport of [
        { width: 1280, height: 800 },
        { width: 390, height: 844 },
      ]) {
        const context = await console
          .context()
          .browser()!
          .newContext({
            baseURL: `http://localhost:${WEB_PORT}`,
            locale: lang === "de" ? "de-DE" : "en-GB",
            storageState: await staff.context.storageState(),
            viewport,
          });
        await context.addCookies([{ name: "lang", value: lang, url: `http://localhost:${WEB_PORT}` }]);
        const shot = await context.newPage();
        await shot.goto(`/submissions?template=${identifier}`);
        await expect(
          shot
            .getByRole("table")
            .getByText(lang === "de" ? "Auffällige Antwort:" : "Needs attention:")
            .first(),
        ).toBeVisible();
        expect(await hasHorizontalScroll(shot)).toBe(false);
        await shot.screenshot({ path: join(dir, `submissions-scores-${lang}-${viewport.width}.png`), fullPage: true });
        if (viewport.width === 390) await expectAccessible(shot, `submissions list with scores (${lang}, phone)`);
        await context.close();
      }
  });
});
