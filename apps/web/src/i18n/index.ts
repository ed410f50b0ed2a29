import type { Dictionary } from "./en";

// Language helpers only: client code imports these without pulling in every text of the app
// (the texts live in dictionaries.ts and reach patient pages as props, see patient.ts).

export type { Dictionary };

export const languages = ["en", "de"] as const;
export type Lang = (typeof languages)[number];
export const defaultLang: Lang = "en";

/** The cookie that remembers the language chosen in the header. */
export const LANG_COOKIE = "lang";

/** Each language in its own language, for the switch. */
export const languageNames: Record<Lang, string> = { en: "English", de: "Deutsch" };

/**
 * The texts of patient-facing pages (signing portal, form pages): a slice of the dictionary, so
 * those pages carry neither the admin texts nor a staff-only provider.
 */
export type PatientDictionary = Pick<
  Dictionary,
  "common" | "errors" | "validation" | "shell" | "signing" | "patient" | "forms" | "verify"
>;
export const patientSections = [
  "common",
  "errors",
  "validation",
  "shell",
  "signing",
  "patient",
  "forms",
  "verify",
] as const satisfies readonly (keyof PatientDictionary)[];

/** BCP 47 locale used for dates and numbers. */
export const locales: Record<Lang, string> = { en: "en-GB", de: "de-DE" };

export function isLang(value: unknown): value is Lang {
  return typeof value === "string" && (languages as readonly string[]).includes(value);
}

/**
 * The language for a request: the `lang` cookie when it names a supported language, else the
 * best Accept-Language match (by q-value, primary subtag only), else English.
 */
export function resolveLang(cookieValue: string | undefined, acceptLanguage: string | null | undefined): Lang {
  if (isLang(cookieValue)) return cookieValue;
  const ranked = (acceptLanguage ?? "")
    .split(",")
    .map((part, index) => {
      const [tag = "", ...params] = part.trim().split(";");
      const q = params.map((p) => p.trim()).find((p) => p.startsWith("q="));
      const quality = q ? Number(q.slice(2)) : 1;
      return {
        primary: tag.trim().toLowerCase().split("-")[0] ?? "",
        quality: Number.isFinite(quality) ? quality : 0,
        index,
      };
    })
    .filter((entry) => entry.primary && entry.quality > 0)
    .sort((a, b) => b.quality - a.quality || a.index - b.index);
  return ranked.map((entry) => entry.primary).find(isLang) ?? defaultLang;
}

/** Fills `{name}` placeholders; unknown placeholders stay visible so they are noticed. */
export function format(text: string, values: Record<string, string | number>): string {
  return text.replace(/\{(\w+)\}/g, (match, key: string) => (key in values ? String(values[key]) : match));
}

type TextTree = { [key: string]: string | TextTree };

function findPath(tree: TextTree, text: string): string[] | null {
  for (const [key, value] of Object.entries(tree)) {
    if (value === text) return [key];
    if (typeof value === "object") {
      const rest = findPath(value, text);
      if (rest) return [key, ...rest];
    }
  }
  return null;
}

/**
 * The document title in another language, without asking the server: each part of
 * "Audit log · ClinSign" that is a text of `from` becomes the text at the same place in `to`;
 * anything else (a patient's name, a document title) stays as it is.
 */
export function translateTitle(title: string, from: object, to: object): string {
  return title
    .split(" · ")
    .map((part) => {
      const path = findPath(from as TextTree, part);
      const translated = path?.reduce<string | TextTree | undefined>(
        (node, key) => (typeof node === "object" ? node[key] : undefined),
        to as TextTree,
      );
      return typeof translated === "string" ? translated : part;
    })
    .join(" · ");
}
