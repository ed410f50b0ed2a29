import { expect, test, type APIRequestContext } from "@playwright/test";
import { staffSignIn, type Staff } from "./forms-support";
import { lhcFormsResponse, openLhcForms, renderQuestionnaire, type QuestionnaireResponse } from "./lforms-support";
import { API_URL } from "./support";

// Issue 34, interoperability in a browser: the PHQ-9 Questionnaire ClinSign exports is filled in
// with LHC-Forms, another SDC renderer, which computes the total from the export alone (its
// calculatedExpression over the answers' weights); ClinSign, given the same answers, stores the
// same total.

let staff: Staff;

test.beforeAll(async ({ browser }) => {
  staff = await staffSignIn(browser, "E2E LHC-Forms");
});
test.afterAll(async () => {
  await staff?.context.close();
});

/** LHC-Forms shows each answer with its weight: "Not at all - 0". */
const WORDS = ["Not at all", "Several days", "More than half the days", "Nearly every day"];

/**
 * The golden sets, in this order: each changes the previous set's answers so that its total is
 * reached only with its last answer, so a total not yet recomputed can never pass.
 */
const GOLDEN = [
  { answers: [3, 3, 2, 2, 1, 1, 0, 0, 1], total: 13 },
  { answers: [3, 3, 3, 3, 3, 3, 3, 3, 3], total: 27 },
  { answers: [0, 0, 0, 0, 0, 0, 0, 0, 0], total: 0 },
];

interface QuestionnaireItem {
  linkId: string;
  text?: string;
}

/** A read through the FHIR door with the organization's API token. */
async function fhirRead<T>(request: APIRequestContext, path: string): Promise<T> {
  const response = await request.get(`${API_URL}/fhir/r4/${path}`, {
    headers: { authorization: `Bearer ${staff.token}` },
  });
  expect(response.status(), await response.text()).toBe(200);
  expect(response.headers()["content-type"]).toContain("application/fhir+json");
  return (await response.json()) as T;
}

const answerOf = (response: QuestionnaireResponse, linkId: string) =>
  response.item?.find((item) => item.linkId === linkId)?.answer?.[0];

test("the exported PHQ-9 renders in LHC-Forms, which computes the same totals as ClinSign for three answer sets", async ({
  page,
  request,
}) => {
  // The clinic's copy of the library's PHQ-9, made active so that it takes submissions.
  await staff.page.goto("/form-templates");
  await staff.page
    .getByRole("region", { name: "Scored questionnaires" })
    .getByRole("button", { name: "Copy to my templates: PHQ-9 (depression)" })
    .click();
  await expect(staff.page).toHaveURL(/\/form-templates\/phq-9-depression-[0-9a-f]{8}$/);
  const identifier = decodeURIComponent(new URL(staff.page.url()).pathname.split("/").pop()!);
  const activated = await request.patch(`${API_URL}/api/embed/templates/${encodeURIComponent(identifier)}`, {
    data: { token: staff.token, orgId: staff.orgId, status: "active" },
  });
  expect(activated.status(), await activated.text()).toBe(200);

  const questionnaire = await fhirRead<{ item: QuestionnaireItem[] }>(request, `Questionnaire/${identifier}`);
  const questions = questionnaire.item.filter((item) => /^phq9_\d$/.test(item.linkId));
  expect(questions).toHaveLength(9);

  const pageErrors: string[] = [];
  page.on("pageerror", (error) => pageErrors.push(error.message));
  await openLhcForms(page);
  await renderQuestionnaire(page, questionnaire);
  // Each question a group of four answers named by its text and LHC-Forms' mark of a required
  // answer; the total read-only and empty.
  const groups = questions.map((question) => page.getByRole("radiogroup", { name: `${question.text} *`, exact: true }));
  for (const group of groups) {
    await expect(group).toBeVisible();
    await expect(group.getByRole("radio")).toHaveCount(4);
  }
  await expect(groups[0]!).toHaveAccessibleName("1. Little interest or pleasure in doing things *");
  const total = page.getByRole("textbox", { name: "PHQ-9 total score" });
  await expect(total).toBeVisible();
  await expect(total).toBeDisabled();
  await expect(total).toHaveValue("");

  for (const golden of GOLDEN) {
    // LHC-Forms 40 leaves its radio inputs' checked state unset (it marks the choice with a class),
    // so the answers taken are read from its QuestionnaireResponse below.
    for (const [i, weight] of golden.answers.entries())
      await groups[i]!.getByRole("radio", { name: `${WORDS[weight]} - ${weight}`, exact: true }).click();
    await expect(total, `LHC-Forms' total of ${golden.answers.join(",")}`).toHaveValue(String(golden.total));

    // LHC-Forms' own QuestionnaireResponse: the answers as clicked, and the same total.
    const lhcResponse = await lhcFormsResponse(page);
    expect(answerOf(lhcResponse, "phq9_score")?.valueDecimal).toBe(golden.total);
    const values = Object.fromEntries(
      questions.map((question) => [question.linkId, answerOf(lhcResponse, question.linkId)?.valueCoding?.code]),
    );
    expect(Object.values(values)).toEqual(golden.answers.map(String));

    // The same answers submitted to ClinSign: the total it stores, as its FHIR export shows it.
    const submitted = await request.post(`${API_URL}/api/embed/submit`, {
      data: { token: staff.token, orgId: staff.orgId, templateIdentifier: identifier, values },
    });
    expect(submitted.status(), await submitted.text()).toBe(200);
    const { submissionId } = (await submitted.json()) as { submissionId: string };
    const stored = await fhirRead<QuestionnaireResponse>(request, `QuestionnaireResponse/${submissionId}`);
    expect(answerOf(stored, "phq9_score")?.valueDecimal, "ClinSign's stored total").toBe(golden.total);
  }
  expect(pageErrors).toEqual([]);
});
