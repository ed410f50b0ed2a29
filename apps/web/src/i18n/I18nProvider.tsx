"use client";

import { useRouter } from "next/navigation";
import { createContext, useCallback, useContext, useMemo, useState, type ReactNode } from "react";
import { dictionaries, LANG_COOKIE, locales, type Dictionary, type Lang } from "./index";

interface I18nContextValue {
  lang: Lang;
  t: Dictionary;
  locale: string;
  setLang(lang: Lang): void;
}

const I18nContext = createContext<I18nContextValue | null>(null);

const ONE_YEAR_SECONDS = 365 * 24 * 60 * 60;

export function I18nProvider({ lang: initialLang, children }: { lang: Lang; children: ReactNode }) {
  const router = useRouter();
  const [lang, setLangState] = useState(initialLang);

  const setLang = useCallback(
    (next: Lang) => {
      document.cookie = `${LANG_COOKIE}=${next}; Path=/; Max-Age=${ONE_YEAR_SECONDS}; SameSite=Lax`;
      document.documentElement.lang = next;
      setLangState(next);
      // Server-rendered parts (page titles) follow on the next render.
      router.refresh();
    },
    [router],
  );

  const value = useMemo(() => ({ lang, t: dictionaries[lang], locale: locales[lang], setLang }), [lang, setLang]);
  return <I18nContext.Provider value={value}>{children}</I18nContext.Provider>;
}

export function useI18n(): I18nContextValue {
  const value = useContext(I18nContext);
  if (!value) throw new Error("useI18n must be used inside <I18nProvider>");
  return value;
}
