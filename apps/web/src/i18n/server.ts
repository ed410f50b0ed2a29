import { cookies, headers } from "next/headers";
import { dictionaries } from "./dictionaries";
import { LANG_COOKIE, resolveLang, type Dictionary, type Lang } from "./index";

/** The request's language (cookie, then Accept-Language). Makes the page dynamic. */
export async function getLang(): Promise<Lang> {
  const [cookieStore, headerList] = await Promise.all([cookies(), headers()]);
  return resolveLang(cookieStore.get(LANG_COOKIE)?.value, headerList.get("accept-language"));
}

export async function getDictionary(): Promise<{ lang: Lang; t: Dictionary }> {
  const lang = await getLang();
  return { lang, t: dictionaries[lang] };
}
