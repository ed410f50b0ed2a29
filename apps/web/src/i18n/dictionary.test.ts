import { describe, expect, it } from "vitest";
import { de } from "./de";
import { en } from "./en";
import { patientDictionary } from "./dictionaries";
import {
  format,
  isPatientPath,
  languageNames,
  locales,
  patientLanguages,
  patientSections,
  resolveLang,
  resolvePatientLang,
  translateTitle,
} from "./index";

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

describe("patient dictionaries in the seven languages", () => {
  const english = leaves(patientDictionary("en") as unknown as Tree);

  it("have every patient key of English, and nothing else, in every language", () => {
    for (const lang of patientLanguages) {
      const texts = leaves(patientDictionary(lang) as unknown as Tree);
      expect([...texts.keys()].sort(), lang).toEqual([...english.keys()].sort());
      expect(Object.keys(patientDictionary(lang)).sort(), lang).toEqual([...patientSections].sort());
    }
  });

  it("have no empty texts and the same placeholders as English", () => {
    for (const lang of patientLanguages) {
      const texts = leaves(patientDictionary(lang) as unknown as Tree);
      for (const [key, text] of english) {
        const translated = texts.get(key) ?? "";
        expect(translated.trim(), `${lang}: ${key}`).not.toBe("");
        expect(placeholders(translated), `${lang}: ${key}`).toEqual(placeholders(text));
      }
    }
  });

  it("are translated, not copied: the signing and form texts differ from English", () => {
    for (const lang of patientLanguages.filter((l) => l !== "en")) {
      const t = patientDictionary(lang);
      expect(t.signing.signButton, lang).not.toBe(patientDictionary("en").signing.signButton);
      expect(t.forms.submit, lang).not.toBe(patientDictionary("en").forms.submit);
      expect(t.shell.language, lang).not.toBe(patientDictionary("en").shell.language);
    }
  });

  it("name each language in itself and format dates with its locale", () => {
    expect(languageNames).toEqual({
      de: "Deutsch",
      en: "English",
      tr: "Türkçe",
      ar: "العربية",
      ru: "Русский",
      uk: "Українська",
      pl: "Polski",
    });
    const date = new Date(Date.UTC(2026, 2, 5, 12));
    const day = (lang: (typeof patientLanguages)[number]) =>
      new Intl.DateTimeFormat(locales[lang], { dateStyle: "long", timeZone: "UTC" }).format(date);
    expect(day("tr")).toBe("5 Mart 2026");
    expect(day("pl")).toBe("5 marca 2026");
    expect(day("uk")).toMatch(/^5 березня 2026/);
    expect(day("ru")).toMatch(/^5 марта 2026/);
    // Arabic: Arabic month name, Latin digits (see locales).
    expect(day("ar")).toContain("مارس");
    expect(day("ar")).toMatch(/5/);
    expect(day("ar")).toMatch(/2026/);
  });
});

describe("resolvePatientLang", () => {
  it("takes any of the seven languages from the cookie or Accept-Language", () => {
    expect(resolvePatientLang("ar", "de")).toBe("ar");
    expect(resolvePatientLang(undefined, "tr-TR,tr;q=0.9,en;q=0.5")).toBe("tr");
    expect(resolvePatientLang("xx", "fr, uk-UA;q=0.8, de;q=0.5")).toBe("uk");
    expect(resolvePatientLang(undefined, "fr")).toBe("en");
  });

  it("lets a staff page fall back when the cookie holds a patient-only language", () => {
    expect(resolveLang("tr", "de-DE")).toBe("de");
    expect(resolveLang("ar", null)).toBe("en");
  });

  it("knows which pages are patient pages", () => {
    for (const path of [
      "/sign/abc",
      "/sign/ticket/x",
      "/kiosk",
      "/kiosk?ended=signed",
      "/kiosk/t",
      "/f/tok",
      "/embed/x?session=1",
      "/verify",
    ])
      expect(isPatientPath(path), path).toBe(true);
    for (const path of ["/", "/documents", "/login", "/verifyx", "/kiosks", "/settings"])
      expect(isPatientPath(path), path).toBe(false);
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
