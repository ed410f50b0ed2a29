import {
  languageEndonyms,
  isPatientLanguage,
  patientLanguages,
  textDirection,
  type PatientLanguage,
} from "@clinsign/contracts/language-list";
import type { Dictionary } from "./en";

// Language helpers only: client code imports these without pulling in every text of the app
// (the texts live in dictionaries.ts and reach patient pages as props, see patient.ts).

export type { Dictionary };

/** Staff pages: English and German. */
export const languages = ["en", "de"] as const;
export type Lang = (typeof languages)[number];
export const defaultLang: Lang = "en";

/**
 * Patient pages (signing portal, form pages, SMS portal, kiosk, verify): the seven languages of
 * `patientLanguages` (packages/contracts). Staff languages are a subset.
 */
export { patientLanguages, textDirection, isPatientLanguage };
export type PatientLang = PatientLanguage;

/** The cookie that remembers the language chosen in the header (staff and patient pages share it). */
export const LANG_COOKIE = "lang";

/** Each language in its own language, for the switch. */
export const languageNames = languageEndonyms;

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

/**
 * BCP 47 locale used for dates and numbers. Arabic uses Latin digits (`nu-latn`), deliberately:
 * the case number, the phone number, the SMS code and the sealed PDF are all written in Latin
 * digits, and a patient compares them with the page (and types them on a Latin-digit keypad);
 * Arabic-Indic digits on the page would make "valid until 14:30" differ from the SMS. It is also
 * what Arabic-language services in Germany and the Maghreb use; the month names stay Arabic.
 */
export const locales: Record<PatientLang, string> = {
  en: "en-GB",
  de: "de-DE",
  tr: "tr-TR",
  ar: "ar-u-nu-latn",
  ru: "ru-RU",
  uk: "uk-UA",
  pl: "pl-PL",
};

export function isLang(value: unknown): value is Lang {
  return typeof value === "string" && (languages as readonly string[]).includes(value);
}

/** Accept-Language's primary subtags, best first (by q-value, then order). */
function acceptedLanguages(acceptLanguage: string | null | undefined): string[] {
  return (acceptLanguage ?? "")
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
    .sort((a, b) => b.quality - a.quality || a.index - b.index)
    .map((entry) => entry.primary);
}

/**
 * The language of a staff page: the `lang` cookie when it names a staff language, else the best
 * Accept-Language match (by q-value, primary subtag only), else English. A patient language in
 * the cookie (a clinic's desk device that showed a Turkish signing page) falls back the same way.
 */
export function resolveLang(cookieValue: string | undefined, acceptLanguage: string | null | undefined): Lang {
  if (isLang(cookieValue)) return cookieValue;
  return acceptedLanguages(acceptLanguage).find(isLang) ?? defaultLang;
}

/** The language of a patient page: the same rule over the seven patient languages. */
export function resolvePatientLang(
  cookieValue: string | undefined,
  acceptLanguage: string | null | undefined,
): PatientLang {
  if (isPatientLanguage(cookieValue)) return cookieValue;
  return acceptedLanguages(acceptLanguage).find(isPatientLanguage) ?? defaultLang;
}

/** Patient pages: the signing portal, form pages, the kiosk and the seal check (see proxy.ts). */
export function isPatientPath(pathname: string): boolean {
  return (
    ["/sign/", "/kiosk/", "/f/", "/embed/"].some((prefix) => pathname.startsWith(prefix)) ||
    /^\/(kiosk|verify)(\?|$)/.test(pathname)
  );
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
