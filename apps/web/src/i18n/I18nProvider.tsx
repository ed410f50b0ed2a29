"use client";

import { createContext, useCallback, useContext, useMemo, useState, type ReactNode } from "react";
import { LANG_COOKIE, locales, translateTitle, type Dictionary, type Lang, type PatientDictionary } from "./index";

/**
 * Staff pages get the whole dictionary; patient pages only their slice (`PatientDictionary`),
 * handed over as props so their bundle carries no texts of the admin UI.
 */
type Scope =
  | { scope: "staff"; dictionaries: Record<Lang, Dictionary> }
  | { scope: "patient"; dictionaries: Record<Lang, PatientDictionary> };

interface I18nContextValue<T> {
  lang: Lang;
  t: T;
  locale: string;
  setLang(lang: Lang): void;
}

const I18nContext = createContext<(I18nContextValue<PatientDictionary> & { scope: Scope["scope"] }) | null>(null);

const ONE_YEAR_SECONDS = 365 * 24 * 60 * 60;

export function I18nProvider({ lang: initialLang, children, ...texts }: { lang: Lang; children: ReactNode } & Scope) {
  const [lang, setLangState] = useState(initialLang);
  const { scope, dictionaries } = texts;

  const setLang = useCallback(
    (next: Lang) => {
      // The cookie makes the next server-rendered page (and a reload) come in this language.
      document.cookie = `${LANG_COOKIE}=${next}; Path=/; Max-Age=${ONE_YEAR_SECONDS}; SameSite=Lax`;
      document.documentElement.lang = next;
      // Every page switches in the browser, at once: the dictionaries are here already, and the
      // only server-rendered text of a page, its title, is translated in place. (A refresh of the
      // server parts took over a second, and an embedded form's iframe may not keep cookies.)
      document.title = translateTitle(document.title, dictionaries[lang], dictionaries[next]);
      setLangState(next);
    },
    [lang, dictionaries],
  );

  const value = useMemo(
    () => ({ scope, lang, t: texts.dictionaries[lang], locale: locales[lang], setLang }),
    [scope, lang, texts.dictionaries, setLang],
  );
  return <I18nContext.Provider value={value}>{children}</I18nContext.Provider>;
}

function useI18nContext() {
  const value = useContext(I18nContext);
  if (!value) throw new Error("useI18n must be used inside <I18nProvider>");
  return value;
}

/** Staff pages: every text of the app. */
export function useI18n(): I18nContextValue<Dictionary> {
  const value = useI18nContext();
  if (value.scope !== "staff") throw new Error("useI18n is for staff pages; patient pages use usePatientI18n");
  return value as unknown as I18nContextValue<Dictionary>;
}

/** Patient pages and pieces shared with them (language switch): the patient texts. */
export function usePatientI18n(): I18nContextValue<PatientDictionary> {
  return useI18nContext();
}
