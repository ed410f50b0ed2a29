"use client";

import { dictionaries, languages } from "../i18n";
import { useI18n } from "../i18n/I18nProvider";
import styles from "./LanguageSwitch.module.css";

/** Two toggle buttons (EN | DE); the choice is kept in the `lang` cookie. */
export function LanguageSwitch() {
  const { lang, t, setLang } = useI18n();
  return (
    <div role="group" aria-label={t.shell.language} className={styles.group}>
      {languages.map((code) => (
        <button
          key={code}
          type="button"
          lang={code}
          className={styles.option}
          aria-pressed={code === lang}
          aria-label={dictionaries[code].common.languageName}
          onClick={() => code !== lang && setLang(code)}
        >
          {code.toUpperCase()}
        </button>
      ))}
    </div>
  );
}
