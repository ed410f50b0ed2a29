import { describe, expect, it } from "vitest";
import { de } from "./de";
import { en } from "./en";
import { format, resolveLang, translateTitle } from "./index";

type Tree = { [key: string]: string | Tree };

/** Every leaf as `path → text`. */
function leaves(tree: Tree, prefix = ""): Map<string, string> {
  const out = new Map<string, string>();
  for (const [key, value] of Object.entries(tree)) {
    const path = prefix ? `${prefix}.${key}` : key;
    if (typeof value === "string") out.set(path, value);
    else for (const [p, v] of leaves(value, path)) out.set(p, v);
  }
  return out;
}

const placeholders = (text: string) => [...text.matchAll(/\{(\w+)\}/g)].map((m) => m[1]).sort();

describe("i18n dictionaries", () => {
  const english = leaves(en as Tree);
  const german = leaves(de as Tree);

  it("have exactly the same keys in English and German", () => {
    expect([...german.keys()].sort()).toEqual([...english.keys()].sort());
  });

  it("have no empty texts", () => {
    for (const [lang, map] of [
      ["en", english],
      ["de", german],
    ] as const) {
      for (const [key, text] of map) expect(text.trim(), `${lang}: ${key}`).not.toBe("");
    }
  });

  it("use the same placeholders in both languages", () => {
    for (const [key, text] of english) expect(placeholders(german.get(key) ?? ""), key).toEqual(placeholders(text));
  });
});

describe("resolveLang", () => {
  it("prefers a valid lang cookie", () => {
    expect(resolveLang("de", "en-US,en;q=0.9")).toBe("de");
  });

  it("ignores an unknown cookie and follows Accept-Language by quality", () => {
    expect(resolveLang("fr", "fr-FR,de;q=0.8,en;q=0.5")).toBe("de");
    expect(resolveLang(undefined, "de;q=0.2, en-GB;q=0.9")).toBe("en");
    expect(resolveLang(undefined, "de-AT")).toBe("de");
  });

  it("falls back to English", () => {
    expect(resolveLang(undefined, null)).toBe("en");
    expect(resolveLang(undefined, "fr, es;q=0.5")).toBe("en");
    expect(resolveLang(undefined, "de;q=0")).toBe("en");
  });
});

describe("format", () => {
  it("fills placeholders and leaves unknown ones visible", () => {
    expect(format("Hi {name}, {missing}", { name: "Ada" })).toBe("Hi Ada, {missing}");
  });
});

describe("wording", () => {
  const texts = (tree: object) => [...leaves(tree as Tree).entries()];

  it("calls the rnummer a case number (Fallnummer) in every text staff and patients read", () => {
    for (const [key, text] of [...texts(en), ...texts(de)])
      expect(text.replace(/\{rnummer\}/g, ""), key).not.toMatch(/rnummer/i);
  });

  it("names the audit log one way in German: Audit-Protokoll, in the menu and on the page", () => {
    expect(de.nav.auditLog).toBe("Audit-Protokoll");
    expect(de.auditLogPage.pageTitle).toBe(de.nav.auditLog);
    for (const [key, text] of texts(de)) expect(text, key).not.toMatch(/Audit-Log/);
  });
});

describe("translateTitle", () => {
  it("translates the parts of a page title that are dictionary texts and keeps the rest", () => {
    expect(translateTitle(`${en.auditLogPage.pageTitle} · ${en.common.productName}`, en, de)).toBe(
      `Audit-Protokoll · ${de.common.productName}`,
    );
    expect(translateTitle("Narkose-Aufklärung · ClinSign", en, de)).toBe("Narkose-Aufklärung · ClinSign");
  });
});
