"use client";

import {
  createContext,
  useCallback,
  useContext,
  useEffect,
  useMemo,
  useRef,
  useState,
  type ReactNode,
  type RefObject,
} from "react";
import {
  LANG_COOKIE,
  locales,
  textDirection,
  translateTitle,
  type Dictionary,
  type Lang,
  type PatientDictionary,
  type PatientLang,
} from "./index";
import { loadPatientTexts } from "./patient-texts";

/**
 * Staff pages get the whole dictionary of both staff languages; patient pages only the patient
 * slice (`PatientDictionary`) of their own language, handed over as props so their bundle carries
 * no texts of the admin UI and no other language: another language's texts are fetched when the
 * patient switches to it (`loadPatientTexts`).
 */
type Scope =
  | { scope: "staff"; dictionaries: Record<Lang, Dictionary> }
  | { scope: "patient"; dictionaries: Partial<Record<PatientLang, PatientDictionary>> };

interface I18nContextValue<T, L extends string> {
  lang: L;
  t: T;
  locale: string;
  /** "rtl" for Arabic. */
  dir: "ltr" | "rtl";
  setLang(lang: L): void;
}

type AnyContext = I18nContextValue<PatientDictionary, PatientLang> & { scope: Scope["scope"] };
const I18nContext = createContext<AnyContext | null>(null);

const ONE_YEAR_SECONDS = 365 * 24 * 60 * 60;

export function I18nProvider({
  lang: initialLang,
  children,
  ...texts
}: { lang: PatientLang; children: ReactNode } & Scope) {
  const [lang, setLangState] = useState(initialLang);
  const [loaded, setLoaded] = useState<Partial<Record<PatientLang, PatientDictionary>>>(texts.dictionaries);
  const { scope } = texts;
  const wanted = useRef(initialLang);
  // setLang stays the same function for the page's life (pages list it in effects' dependencies:
  // a new identity would reload an embedded form); it reads the current state through refs.
  const current = useRef({ lang, loaded });
  useEffect(() => {
    current.current = { lang, loaded };
  }, [lang, loaded]);

  const setLang = useCallback((next: PatientLang) => {
    const { loaded } = current.current;
    wanted.current = next;
    // The cookie makes the next server-rendered page (and a reload) come in this language.
    document.cookie = `${LANG_COOKIE}=${next}; Path=/; Max-Age=${ONE_YEAR_SECONDS}; SameSite=Lax`;
    const apply = (nextTexts: PatientDictionary) => {
      if (wanted.current !== next) return; // a later choice won
      document.documentElement.lang = next;
      document.documentElement.dir = textDirection(next);
      // The page switches in the browser, at once: the only server-rendered text of a page, its
      // title, is translated in place. (A refresh of the server parts took over a second, and
      // an embedded form's iframe may not keep cookies.)
      const shown = current.current.loaded[current.current.lang];
      if (shown) document.title = translateTitle(document.title, shown, nextTexts);
      setLoaded((all) => ({ ...all, [next]: nextTexts }));
      setLangState(next);
    };
    const have = loaded[next];
    if (have) apply(have);
    else
      void loadPatientTexts(next).then(apply, () => {
        // Offline or the server is away: the page stays in its language; the cookie still
        // brings the chosen one with the next page.
      });
  }, []);

  useLateTitleTranslated(initialLang, wanted, current);

  const t = loaded[lang] ?? loaded[initialLang]!;
  const value = useMemo(
    () => ({ scope, lang, t, locale: locales[lang], dir: textDirection(lang), setLang }),
    [scope, lang, t, setLang],
  );
  return <I18nContext.Provider value={value}>{children}</I18nContext.Provider>;
}

/**
 * Next streams a page's metadata: its <title>, in the language the server rendered, may arrive
 * after the patient switched language. It is translated when it arrives into the language last
 * chosen (`wanted`), as the switch translated the one that was there.
 */
function useLateTitleTranslated(
  initialLang: PatientLang,
  wanted: RefObject<PatientLang>,
  current: RefObject<{ loaded: Partial<Record<PatientLang, PatientDictionary>> }>,
) {
  useEffect(() => {
    const retitle = () => {
      const from = current.current.loaded[initialLang];
      const to = current.current.loaded[wanted.current];
      if (wanted.current === initialLang || !from || !to) return;
      const translated = translateTitle(document.title, from, to);
      if (translated !== document.title) document.title = translated;
    };
    const observer = new MutationObserver(retitle);
    observer.observe(document.head, { childList: true, subtree: true, characterData: true });
    return () => observer.disconnect();
  }, [initialLang, wanted, current]);
}

function useI18nContext() {
  const value = useContext(I18nContext);
  if (!value) throw new Error("useI18n must be used inside <I18nProvider>");
  return value;
}

/** Staff pages: every text of the app, in English or German. */
export function useI18n(): I18nContextValue<Dictionary, Lang> {
  const value = useI18nContext();
  if (value.scope !== "staff") throw new Error("useI18n is for staff pages; patient pages use usePatientI18n");
  // The context holds either dictionary; the scope check above says it is the staff one.
  return value as unknown as I18nContextValue<Dictionary, Lang>;
}

/** Patient pages and pieces shared with them (language switch): the patient texts. */
export function usePatientI18n(): I18nContextValue<PatientDictionary, PatientLang> & { scope: Scope["scope"] } {
  return useI18nContext();
}
