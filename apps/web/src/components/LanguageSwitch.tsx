"use client";

import { languageNames, languages } from "../i18n";
import { usePatientI18n } from "../i18n/I18nProvider";
import styles from "./LanguageSwitch.module.css";

/**
 * Two toggle buttons (EN | DE); the choice is kept in the `lang` cookie. The visible code is the
 * start of each button's name ("DE Deutsch"), so speech users can say what they see (WCAG 2.5.3).
 */
export function LanguageSwitch() {
  const { lang, t, setLang } = usePatientI18n();
  return (
    <div role="group" aria-label={t.shell.language} className={styles.group}>
      {languages.map((code) => (
        <button
          key={code}
          type="button"
          lang={code}
          className={styles.option}
          aria-pressed={code === lang}
          onClick={() => code !== lang && setLang(code)}
        >
          {code.toUpperCase()}
          <span className={styles.fullName}> {languageNames[code]}</span>
        </button>
      ))}
    </div>
  );
}
