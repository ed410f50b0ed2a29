import { patientLanguages } from "@clinsign/contracts/language-list";
import { describe, expect, it } from "vitest";
import { auditPageTexts, fill, type AuditPageTexts } from "./audit-page-texts";

/** Every string of a table, by its path (roles.patient, order.sequential, …). */
function strings(texts: AuditPageTexts): Map<string, string> {
  const out = new Map<string, string>();
  const walk = (value: unknown, path: string) => {
    if (typeof value === "string") out.set(path, value);
    else for (const [key, inner] of Object.entries(value as object)) walk(inner, path ? `${path}.${key}` : key);
  };
  walk(texts, "");
  return out;
}
const placeholders = (text: string) => [...text.matchAll(/\{(\w+)\}/g)].map((m) => m[1]).sort();

describe("the audit page's texts", () => {
  const english = strings(auditPageTexts.en);
  it.each(patientLanguages)("%s has every label, each with the placeholders English has", (language) => {
    const texts = strings(auditPageTexts[language]);
    expect([...texts.keys()].sort()).toEqual([...english.keys()].sort());
    for (const [key, text] of texts) {
      expect(text.trim(), `${language}.${key}`).not.toBe("");
      expect(placeholders(text), `${language}.${key}`).toEqual(placeholders(english.get(key)!));
    }
  });

  it("is written in each language, not copied from English", () => {
    for (const language of patientLanguages.filter((l) => l !== "en"))
      expect(auditPageTexts[language].title, language).not.toBe(auditPageTexts.en.title);
  });

  it("fills placeholders and leaves unknown ones", () => {
    expect(fill("{n} of {m}", { n: 1 })).toBe("1 of {m}");
  });
});
