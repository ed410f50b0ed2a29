import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { computeFlags, questionnaireLibrary, type FormField, type TemplateSchema } from "@clinsign/contracts";
import { eq, organizations, submissions } from "@clinsign/db";
import { logInCookie, startTestApi, type TestApi, type TestOrg } from "../../testing/harness";
import { creds, query } from "../../testing/forms";
import { createTemplate } from "../templates/templates";

let api: TestApi;
let org: TestOrg;
let other: TestOrg;
let cookie: string;
let identifier: string;

const phq9 = questionnaireLibrary.find((entry) => entry.id === "phq-9-en")!;
/** PHQ-9 answers, item 1 first: `[3,3,2,2,1,1,0,0,1]` is 13 (Moderate) with item 9 at 1. */
const phqAnswers = (items: number[]) => Object.fromEntries(items.map((a, i) => [`phq9_${i + 1}`, String(a)]));

beforeAll(async () => {
  api = await startTestApi();
  org = await api.createOrg("Praxis Flag");
  other = await api.createOrg("Praxis Fremd");
  cookie = await logInCookie(api, org.ownerEmail, org.ownerPassword);
  identifier = (await createTemplate(org.ctx, { title: phq9.title, status: "active", schema: phq9.schema })).identifier;
});
afterAll(() => api?.close());

const submit = async (o: TestOrg, templateIdentifier: string, values: Record<string, unknown>) => {
  const res = await api.request("POST", "/api/embed/submit", { body: { ...creds(o), templateIdentifier, values } });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body.submissionId as string;
};
const list = (input: Record<string, unknown>) =>
  api.trpc({ cookie }).submissions.list.query({ templateIdentifier: identifier, ...input });
const download = (params: Record<string, string | number | undefined>) =>
  fetch(`${api.baseUrl}/staff/submissions/export?${query(params)}`, { headers: { cookie } });

/** A CSV's records as cells (quotes, doubled quotes and line breaks inside quotes handled), without the BOM. */
function parseCsv(text: string, separator: string): string[][] {
  const rows: string[][] = [];
  let row: string[] = [];
  let cell = "";
  let quoted = false;
  const body = text.replace(/^\uFEFF/, "");
  for (let i = 0; i < body.length; i++) {
    const c = body[i]!;
    if (quoted && c === '"' && body[i + 1] === '"') {
      cell += '"';
      i++;
    } else if (c === '"') {
      quoted = !quoted;
    } else if (!quoted && c === separator) {
      row.push(cell);
      cell = "";
    } else if (!quoted && c === "\r" && body[i + 1] === "\n") {
      row.push(cell);
      rows.push(row);
      row = [];
      cell = "";
      i++;
    } else {
      cell += c;
    }
  }
  if (cell || row.length > 0) rows.push([...row, cell]);
  return rows;
}
/** The CSV as objects by header. */
const records = (text: string, separator: string) => {
  const [header, ...rows] = parseCsv(text, separator);
  return rows.map((cells) => Object.fromEntries(header!.map((h, i) => [h, cells[i]])));
};

describe("scores and flagged answers of submissions (issue 31)", () => {
  it("refuses flag rules that name no choice field or can never flag, with 400 naming each (F2, F5)", async () => {
    const create = (schema: unknown) =>
      api.request("POST", "/api/embed/templates", { body: { ...creds(org), title: "Flags", schema } });
    const bad = await create({ ...phq9.schema, flagged: [{ field: "phq9_99", minWeight: 1 }] });
    expect(bad.status).toBe(400);
    expect(bad.body.fieldErrors).toEqual([
      { key: "schema.flagged.0.field", message: 'no field has the key "phq9_99"' },
    ]);
    const never = await create({
      ...phq9.schema,
      flagged: [
        { field: "phq9_9", minWeight: 4 },
        { field: "phq9_score", minWeight: 1 },
      ],
    });
    expect(never.status).toBe(400);
    expect(never.body.fieldErrors.map((e: { key: string }) => e.key)).toEqual([
      "schema.flagged.0.minWeight",
      "schema.flagged.1.field",
    ]);
    const notBoolean = await create({ ...phq9.schema, scoresShownToPatient: "no" });
    expect(notBoolean.status).toBe(400);
    expect(notBoolean.body.fieldErrors[0].key).toBe("schema.scoresShownToPatient");

    const good = await create({ ...phq9.schema, scoresShownToPatient: false });
    expect(good.status).toBe(201);
    expect(good.body.template.schema).toMatchObject({ scoresShownToPatient: false, flagged: phq9.schema.flagged });
    const patch = await api.request("PATCH", `/api/embed/templates/${good.body.template.identifier}`, {
      body: { ...creds(org), schema: { ...phq9.schema, flagged: [{ field: "phq9_intro", minWeight: 1 }] } },
    });
    expect(patch.status).toBe(400);
    expect(patch.body.fieldErrors[0].key).toBe("schema.flagged.0.field");
  });

  it("lists each submission's score and flag, and filters by flag and by score along the keyset", async () => {
    const moderateFlagged = await submit(org, identifier, phqAnswers([3, 3, 2, 2, 1, 1, 0, 0, 1])); // 13, item 9 = 1
    const severeUnflagged = await submit(org, identifier, phqAnswers([3, 3, 3, 3, 3, 3, 3, 2, 0])); // 23
    const minimalFlagged = await submit(org, identifier, phqAnswers([0, 0, 0, 0, 0, 0, 0, 0, 3])); // 3, item 9 = 3
    const minimal = await submit(org, identifier, phqAnswers([0, 0, 0, 0, 0, 0, 0, 0, 0]));
    // Another clinic's flagged PHQ-9 never shows.
    const foreign = (await createTemplate(other.ctx, { title: "PHQ-9", status: "active", schema: phq9.schema }))
      .identifier;
    await submit(other, foreign, phqAnswers([3, 3, 3, 3, 3, 3, 3, 3, 3]));

    const all = await list({});
    expect(all.items.map((i) => i.id)).toEqual([minimal, minimalFlagged, severeUnflagged, moderateFlagged]);
    const byId = new Map(all.items.map((i) => [i.id, i]));
    expect(byId.get(moderateFlagged)).toMatchObject({
      scores: [{ key: "phq9_score", label: "PHQ-9 total score", score: 13, band: "Moderate" }],
      flagged: [{ key: "phq9_9", label: expect.stringMatching(/^9\. Thoughts that you would be better off dead/) }],
    });
    expect(byId.get(severeUnflagged)).toMatchObject({
      scores: [{ score: 23, band: "Severe" }],
      flagged: [],
    });
    expect(byId.get(minimal)!.flagged).toEqual([]);

    // Flagged only: item 9 above 0, whatever the total; page by page with the filter kept.
    const first = await list({ flagged: true, limit: 1 });
    expect(first.items.map((i) => i.id)).toEqual([minimalFlagged]);
    expect(first.hasMore).toBe(true);
    const second = await list({ flagged: true, limit: 1, cursor: first.nextCursor! });
    expect(second.items.map((i) => i.id)).toEqual([moderateFlagged]);
    expect(second.hasMore).toBe(false);
    expect((await list({ flagged: false })).items).toHaveLength(4);

    // Score at least N (a band's lower bound): 10 = "Moderate" and above.
    expect((await list({ minScore: 10 })).items.map((i) => i.id)).toEqual([severeUnflagged, moderateFlagged]);
    expect((await list({ minScore: 20 })).items.map((i) => i.id)).toEqual([severeUnflagged]);
    expect((await list({ minScore: 0 })).items).toHaveLength(4);
    expect((await list({ minScore: 10, flagged: true })).items.map((i) => i.id)).toEqual([moderateFlagged]);

    // The export's URL takes the same filters as text; nonsense is a 400, not a 500.
    const json = await download({ templateIdentifier: identifier, format: "json", flagged: "true", minScore: "10" });
    expect(json.status).toBe(200);
    const exported = (await json.json()) as Array<{ id: string; flagged: string[] }>;
    expect(exported.map((e) => [e.id, e.flagged])).toEqual([[moderateFlagged, ["phq9_9"]]]);
    for (const bad of [{ flagged: "yes" }, { minScore: "ten" }, { minScore: "1e9" }]) {
      const res = await download({ templateIdentifier: identifier, format: "csv", ...bad });
      expect(res.status, JSON.stringify(bad)).toBe(400);
      const body = (await res.json()) as { error: { details: { field: string } } };
      expect(body.error.details.field).toBe(Object.keys(bad)[0]);
    }
    await expect(list({ minScore: Number.NaN })).rejects.toThrow(/minScore/);
  });

  it("exports score and band as their own columns, a flag column, and option values and weights on request", async () => {
    const template = (await createTemplate(org.ctx, { title: "PHQ-9 export", status: "active", schema: phq9.schema }))
      .identifier;
    await submit(org, template, phqAnswers([3, 3, 2, 2, 1, 1, 0, 0, 1]));
    await submit(org, template, { ...phqAnswers([0, 0, 0, 0, 0, 0, 0, 0, 0]), phq9_difficulty: "1" });
    const item9 = phq9.schema.fields.find((f) => f.key === "phq9_9")!.label;

    await api.services.db.update(organizations).set({ locale: "en" }).where(eq(organizations.id, org.orgId));
    const plain = await (await download({ templateIdentifier: template, format: "csv", sort: "oldest" })).text();
    const [header] = parseCsv(plain, ",");
    // The existing columns keep their names and places; the new ones follow what they explain.
    expect(header!.slice(7, 8)).toEqual(["Needs attention"]);
    const at = header!.indexOf("PHQ-9 total score");
    expect(header!.slice(at, at + 3)).toEqual([
      "PHQ-9 total score",
      "PHQ-9 total score (score)",
      "PHQ-9 total score (band)",
    ]);
    expect(header).not.toContain(`${item9} (value)`);
    const [moderate, minimal] = records(plain, ",");
    expect(moderate).toMatchObject({
      "Needs attention": "yes",
      [item9]: "Several days",
      "PHQ-9 total score": "13 (Moderate)",
      "PHQ-9 total score (score)": "13",
      "PHQ-9 total score (band)": "Moderate",
    });
    expect(minimal).toMatchObject({ "Needs attention": "no", "PHQ-9 total score (score)": "0" });

    const coded = await (
      await download({ templateIdentifier: template, format: "csv", sort: "oldest", optionValues: "true" })
    ).text();
    const [codedModerate, codedMinimal] = records(coded, ",");
    expect(codedModerate).toMatchObject({
      [item9]: "Several days",
      [`${item9} (value)`]: "1",
      [`${item9} (weight)`]: "1",
      "1. Little interest or pleasure in doing things (weight)": "3",
    });
    // The unscored tenth question has values but no weights: a value column only.
    const difficulty = phq9.schema.fields.find((f) => f.key === "phq9_difficulty")!.label;
    expect(codedMinimal).toMatchObject({ [`${difficulty} (value)`]: "1" });
    expect(Object.keys(codedMinimal!)).not.toContain(`${difficulty} (weight)`);
    expect(codedModerate![`${difficulty} (value)`]).toBe("");

    // German: its own words, `;`, and numbers as German Excel reads them.
    await api.services.db.update(organizations).set({ locale: "de" }).where(eq(organizations.id, org.orgId));
    const german = await (
      await download({ templateIdentifier: template, format: "csv", sort: "oldest", optionValues: "true" })
    ).text();
    const [germanModerate] = records(german, ";");
    expect(germanModerate).toMatchObject({
      Auffällig: "ja",
      "PHQ-9 total score (Punktwert)": "13",
      "PHQ-9 total score (Einstufung)": "Moderate",
      [`${item9} (Wert)`]: "1",
      [`${item9} (Gewicht)`]: "1",
    });

    // A form without flag rules gets no flag column (files of other forms stay as they were).
    const gad7 = questionnaireLibrary.find((entry) => entry.id === "gad-7-en")!;
    const gad = (await createTemplate(org.ctx, { title: "GAD-7", status: "active", schema: gad7.schema })).identifier;
    await submit(org, gad, Object.fromEntries(Array.from({ length: 7 }, (_, i) => [`gad7_${i + 1}`, "2"])));
    const gadCsv = await (await download({ templateIdentifier: gad, format: "csv" })).text();
    const [gadHeader] = parseCsv(gadCsv, ";");
    expect(gadHeader).not.toContain("Auffällig");
    expect(records(gadCsv, ";")[0]).toMatchObject({ "GAD-7 total score (Punktwert)": "14" });
  });

  it("the list's SQL filter flags exactly the submissions computeFlags flags (radio, multiselect, weights, old schemas)", async () => {
    const options = [
      { value: "a", label: "A", weight: 0 },
      { value: "b", label: "B", weight: 1.5 },
      { value: "c", label: "C", weight: -2 },
      { value: "d", label: "D" },
    ];
    const fields: FormField[] = [
      { id: "1", key: "one", type: "radio", label: "One", options },
      { id: "2", key: "many", type: "multiselect", label: "Many", options },
      { id: "3", key: "plain", type: "select", label: "Plain", options: ["x", "y"] },
    ];
    const schemas: TemplateSchema[] = [
      { version: 1, fields, flagged: [{ field: "one", minWeight: 1 }] },
      { version: 2, fields, flagged: [{ field: "many", minWeight: 1.5 }] },
      { version: 3, fields, flagged: [{ field: "one", minWeight: -2 }] },
      { version: 4, fields },
    ];
    const answers: Record<string, unknown>[] = [
      {},
      { one: "a" },
      { one: "b" },
      { one: "c" },
      { one: "d" },
      { one: "zz" },
      { many: ["a", "d"] },
      { many: ["a", "b"] },
      { many: ["c"] },
      { many: "b" },
      { one: "b", many: ["b"] },
      { plain: "x" },
    ];
    const template = `agreement-${Date.now()}`;
    const expected = new Set<string>();
    const all: string[] = [];
    for (const schema of schemas)
      for (const values of answers) {
        const [row] = await org.ctx.scope
          .insert(submissions, {
            templateIdentifier: template,
            templateTitle: "Agreement",
            templateSchema: schema,
            values,
            actorType: "api_key",
          })
          .returning();
        all.push(row!.id);
        if (computeFlags(schema, values).length > 0) expected.add(row!.id);
      }
    const flagged = await api
      .trpc({ cookie })
      .submissions.list.query({ templateIdentifier: template, flagged: true, limit: 200 });
    expect(new Set(flagged.items.map((i) => i.id))).toEqual(expected);
    // Not a vacuous agreement: some of each.
    expect(expected.size).toBeGreaterThan(5);
    expect(expected.size).toBeLessThan(all.length - 10);
  });
});
