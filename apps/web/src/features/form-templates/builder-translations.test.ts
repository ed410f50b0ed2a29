import type { TemplateSchema } from "@clinsign/contracts";
import { translatableTexts } from "@clinsign/contracts";
import { describe, expect, it } from "vitest";
import {
  addableLanguages,
  addLanguage,
  coverageByLanguage,
  removeLanguage,
  setTranslatedText,
  translationLanguages,
} from "./builder-translations";

describe("translations", () => {
  const schema: TemplateSchema = {
    version: 1,
    fields: [
      { id: "f1", key: "name", type: "text", label: "Name", helpText: "Wie im Ausweis" },
      { id: "f2", key: "insurance", type: "radio", label: "Versicherung", options: ["gkv", "privat"] },
    ],
  };
  const template = { title: "Anamnese", description: null, schema };
  const texts = translatableTexts(template);
  const byId = (id: string) => texts.find((text) => text.id === id)!;

  it("adds a language, counts what is translated and lists what is missing", () => {
    let translations = addLanguage({}, "tr");
    expect(translationLanguages(translations)).toEqual(["tr"]);
    expect(addableLanguages("de", translations)).toEqual(["en", "ar", "ru", "uk", "pl"]);
    expect(coverageByLanguage(template, translations)[0]).toMatchObject({ language: "tr", total: 6, translated: 0 });
    translations = setTranslatedText(translations, "tr", byId("title"), "Anamnez");
    translations = setTranslatedText(translations, "tr", byId("fields.name.label"), "Adınız");
    translations = setTranslatedText(translations, "tr", byId("fields.insurance.options.gkv"), "Devlet");
    expect(translations.tr).toEqual({
      title: "Anamnez",
      fields: { name: { label: "Adınız" }, insurance: { options: { gkv: "Devlet" } } },
    });
    const [tr] = coverageByLanguage(template, translations);
    expect([tr!.translated, tr!.total]).toEqual([3, 6]);
    expect(tr!.missing.map((text) => text.id)).toEqual([
      "fields.name.help",
      "fields.insurance.label",
      "fields.insurance.options.privat",
    ]);
  });

  it("clearing a text removes it (missing again), and removing a language drops all of it", () => {
    let translations = setTranslatedText(addLanguage({}, "ar"), "ar", byId("fields.insurance.options.gkv"), "حكومي");
    translations = setTranslatedText(translations, "ar", byId("fields.insurance.options.gkv"), "");
    expect(translations.ar).toEqual({ fields: {} });
    expect(coverageByLanguage(template, translations)[0]!.translated).toBe(0);
    expect(removeLanguage(translations, "ar")).toEqual({});
  });
});

describe("translating answer lists and bands in the builder", () => {
  it("writes an answer list's option and a band under their own entries, and removes them when emptied", () => {
    const schema: TemplateSchema = {
      version: 1,
      optionSets: [{ id: "freq", label: "Frequency", options: ["0", "1"] }],
      fields: [
        { id: "a", key: "q1", type: "radio", label: "Q1", optionSet: "freq", options: ["0", "1"] },
        {
          id: "s",
          key: "total",
          type: "score",
          label: "Total",
          sources: ["q1"],
          bands: [{ min: 0, max: 1, label: "low" }],
        },
      ],
    };
    const texts = translatableTexts({ title: "T", description: null, schema });
    const setOption = texts.find((t) => t.id === "optionSets.freq.1")!;
    const band = texts.find((t) => t.id === "fields.total.bands.0")!;
    let tr = setTranslatedText({}, "tr", setOption, "Bazen");
    tr = setTranslatedText(tr, "tr", band, "düşük");
    expect(tr.tr).toEqual({ fields: { total: { bands: { "0": "düşük" } } }, optionSets: { freq: { "1": "Bazen" } } });
    tr = setTranslatedText(tr, "tr", setOption, "");
    expect(tr.tr).toEqual({ fields: { total: { bands: { "0": "düşük" } } } });
  });
});
