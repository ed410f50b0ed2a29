"use client";

import { languageNames, languages, patientLanguages, type PatientLang } from "../i18n";
import { usePatientI18n } from "../i18n/I18nProvider";
import styles from "./LanguageSwitch.module.css";

/**
 * The language switch; the choice is kept in the `lang` cookie.
 * Staff pages: two toggle buttons (EN | DE). The visible code is the start of each button's name
 * ("DE Deutsch"), so speech users can say what they see (WCAG 2.5.3).
 * Patient pages: seven languages, a native select (the phone's own picker), each language named
 * in itself and marked with its `lang`, so a patient who reads none of the page finds theirs. The
 * globe says what it is; the select's name is "Language" in the page's language, and its visible
 * text is the chosen language, which screen readers read as its value.
 */
export function LanguageSwitch() {
  const { lang, t, setLang, scope } = usePatientI18n();
  if (scope === "patient")
    return (
      <label className={styles.picker}>
        <GlobeIcon />
        <span className="cs-visually-hidden">{t.shell.language}</span>
        <select
          className={styles.select}
          value={lang}
          lang={lang}
          onChange={(event) => setLang(event.currentTarget.value as PatientLang)}
          data-testid="language-select"
        >
          {patientLanguages.map((code) => (
            <option key={code} value={code} lang={code}>
              {languageNames[code]}
            </option>
          ))}
        </select>
      </label>
    );
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

function GlobeIcon() {
  return (
    <svg
      className={styles.globe}
      viewBox="0 0 24 24"
      width="18"
      height="18"
      fill="none"
      stroke="currentColor"
      strokeWidth="2"
      strokeLinecap="round"
      aria-hidden="true"
      focusable="false"
    >
      <circle cx="12" cy="12" r="9" />
      <path d="M3 12h18M12 3a14 14 0 0 1 0 18M12 3a14 14 0 0 0 0 18" />
    </svg>
  );
}
