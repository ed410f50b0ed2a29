import { describe, expect, it } from "vitest";
import {
  contentLanguage,
  localizeTemplate,
  pruneTranslations,
  translationCoverage,
  translationProblems,
  type TranslatableTemplate,
} from "./form-languages";
import { createTemplateInput, type TemplateSchema } from "./templates";

const schema: TemplateSchema = {
  version: 1,
  fields: [
    { id: "h1", type: "heading", label: "Ihre Angaben" },
    { id: "f1", key: "name", type: "text", label: "Name", placeholder: "Vor- und Nachname", required: true },
    {
      id: "f2",
      key: "insurance",
      type: "radio",
      label: "Versicherung",
      helpText: "Wie sind Sie versichert?",
      options: [{ value: "gkv", label: "Gesetzlich" }, "privat"],
    },
    { id: "f3", key: "consent", type: "checkbox", label: "Ich stimme zu" },
  ],
};

const template: TranslatableTemplate = {
  title: "Anamnese",
  description: "Vor dem Termin",
  schema,
  defaultLanguage: "de",
  translations: {
    tr: {
      title: "Anamnez",
      fields: {
        h1: { label: "Bilgileriniz" },
        name: { label: "Adınız", errors: { required: "Lütfen adınızı yazın" } },
        insurance: { label: "Sigorta", options: { gkv: "Devlet sigortası" } },
      },
    },
    ar: { fields: { name: { label: "الاسم" } } },
  },
};

describe("localizeTemplate", () => {
  it("shows the translated texts and keeps every value", () => {
    const tr = localizeTemplate(template, "tr");
    expect(tr.language).toBe("tr");
    expect(tr.title).toBe("Anamnez");
    const [heading, name, insurance] = tr.schema.fields;
    expect(heading!.label).toBe("Bilgileriniz");
    expect(name!.label).toBe("Adınız");
    expect(insurance).toMatchObject({
      key: "insurance",
      label: "Sigorta",
      options: [{ value: "gkv", label: "Devlet sigortası" }, "privat"],
    });
    expect(tr.errors).toEqual({ name: { required: "Lütfen adınızı yazın" } });
    // Keys, ids, requirements: untouched, so answers are the same in every language.
    expect(tr.schema.fields.map((f) => [f.id, f.key, f.required])).toEqual(
      schema.fields.map((f) => [f.id, f.key, f.required]),
    );
  });

  it("falls back to the default language per text", () => {
    const ar = localizeTemplate(template, "ar");
    expect(ar.language).toBe("ar");
    expect(ar.title).toBe("Anamnese");
    expect(ar.description).toBe("Vor dem Termin");
    expect(ar.schema.fields[1]!.label).toBe("الاسم");
    expect(ar.schema.fields[1]!.placeholder).toBe("Vor- und Nachname");
    expect(ar.schema.fields[2]!.label).toBe("Versicherung");
    expect(ar.schema.fields[2]!.helpText).toBe("Wie sind Sie versichert?");
  });

  it("shows the default language for a language the template does not have", () => {
    expect(localizeTemplate(template, "pl")).toMatchObject({ language: "de", title: "Anamnese", schema });
    expect(localizeTemplate(template, null).language).toBe("de");
    expect(contentLanguage(template, "tr")).toBe("tr");
    expect(contentLanguage(template, "ru")).toBe("de");
  });
});

describe("translationProblems", () => {
  it("names unknown field keys, option values and problem codes", () => {
    const problems = translationProblems(
      schema,
      {
        tr: {
          fields: {
            nmae: { label: "x" },
            insurance: { options: { bkk: "y" } },
            name: { errors: { wrong: "z" } },
          },
        },
      },
      "de",
    );
    expect(problems).toEqual([
      { path: ["tr", "fields", "nmae"], message: 'unknown field key "nmae"' },
      { path: ["tr", "fields", "insurance", "options", "bkk"], message: '"bkk" is not an option of "insurance"' },
      { path: ["tr", "fields", "name", "errors", "wrong"], message: '"wrong" is not a problem code' },
    ]);
  });

  it("accepts the template's own keys, display elements by id", () => {
    expect(translationProblems(schema, template.translations, "de")).toEqual([]);
  });

  it("refuses an entry for the default language", () => {
    expect(translationProblems(schema, { de: { fields: {} } }, "de")[0]!.message).toMatch(/default language/);
  });

  it("is a 400-worthy issue of the create input, and unknown languages too", () => {
    const parsed = createTemplateInput.safeParse({
      title: "A",
      schema,
      translations: { tr: { fields: { nope: { label: "x" } } }, xx: { fields: {} } },
    });
    expect(parsed.success).toBe(false);
    const paths = parsed.error!.issues.map((issue) => issue.path.join("."));
    expect(paths).toContain("translations.xx");
  });

  it("names the unknown key once the language is known", () => {
    const parsed = createTemplateInput.safeParse({
      title: "A",
      schema,
      translations: { tr: { fields: { nope: {} } } },
    });
    expect(parsed.error!.issues.map((i) => [i.path.join("."), i.message])).toEqual([
      ["translations.tr.fields.nope", 'unknown field key "nope"'],
    ]);
  });
});

describe("coverage and pruning", () => {
  it("counts what a language translates and lists what is missing", () => {
    const tr = translationCoverage(template, template.translations.tr);
    // title, description, heading, name label + placeholder, insurance label + help + 2 options, consent
    expect(tr.total).toBe(10);
    expect(tr.translated).toBe(5);
    expect(tr.missing.map((t) => t.id)).toEqual([
      "description",
      "fields.name.placeholder",
      "fields.insurance.help",
      "fields.insurance.options.privat",
      "fields.consent.label",
    ]);
    expect(translationCoverage(template, undefined).translated).toBe(0);
  });

  it("drops the texts of removed fields and options when the schema changes", () => {
    const changed: TemplateSchema = {
      version: 2,
      fields: [{ id: "f2", key: "insurance", type: "radio", label: "Versicherung", options: ["privat"] }],
    };
    expect(pruneTranslations(changed, template.translations)).toEqual({
      tr: { title: "Anamnez", fields: { insurance: { label: "Sigorta", options: {} } } },
      ar: { fields: {} },
    });
  });
});
