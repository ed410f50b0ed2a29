import { cookies, headers } from "next/headers";
import { PATH_HEADER } from "../lib/paths";
import { dictionaries, patientDictionary } from "./dictionaries";
import {
  isPatientPath,
  LANG_COOKIE,
  resolveLang,
  resolvePatientLang,
  type Dictionary,
  type Lang,
  type PatientDictionary,
  type PatientLang,
} from "./index";

/** A staff page's language (cookie, then Accept-Language; en/de). Makes the page dynamic. */
export async function getLang(): Promise<Lang> {
  const [cookieStore, headerList] = await Promise.all([cookies(), headers()]);
  return resolveLang(cookieStore.get(LANG_COOKIE)?.value, headerList.get("accept-language"));
}

export async function getDictionary(): Promise<{ lang: Lang; t: Dictionary }> {
  const lang = await getLang();
  return { lang, t: dictionaries[lang] };
}

/** A patient page's language: the same rule over the seven patient languages. */
export async function getPatientLang(): Promise<PatientLang> {
  const [cookieStore, headerList] = await Promise.all([cookies(), headers()]);
  return resolvePatientLang(cookieStore.get(LANG_COOKIE)?.value, headerList.get("accept-language"));
}

export async function getPatientDictionary(): Promise<{ lang: PatientLang; t: PatientDictionary }> {
  const lang = await getPatientLang();
  return { lang, t: patientDictionary(lang) };
}

/** The language of the requested page (for `<html lang dir>`): a patient page's or a staff page's. */
export async function getPageLang(): Promise<PatientLang> {
  const path = (await headers()).get(PATH_HEADER) ?? "/";
  return isPatientPath(path) ? getPatientLang() : getLang();
}
