"use client";

import {
  languageEndonyms,
  textDirection,
  translatedText,
  type PatientLanguage,
  type TemplateTranslations,
  type TranslatableText,
} from "@clinsign/contracts";
import { Badge, Field } from "@clinsign/ui";
import { useState } from "react";
import { format } from "../../i18n";
import { useI18n } from "../../i18n/I18nProvider";
import styles from "./builder.module.css";

const inputId = (language: string, text: TranslatableText) =>
  `translation-${language}-${text.id.replace(/[^\w-]/g, "_")}`;

/**
 * The texts of one language, each with its place in the form and the original beside an input;
 * with `onlyMissing`, the untranslated ones (and those being typed in since).
 */
export function TranslationTexts({
  texts,
  translations,
  language,
  defaultLanguage,
  onlyMissing,
  context,
  onChange,
}: {
  texts: TranslatableText[];
  translations: TemplateTranslations;
  language: PatientLanguage;
  defaultLanguage: PatientLanguage;
  onlyMissing: boolean;
  context(text: TranslatableText): string;
  onChange(text: TranslatableText, value: string): void;
}) {
  const { t } = useI18n();
  const tt = t.formTemplates.translations;
  const translation = translations[language];
  // Which texts were missing when the filter was turned on stay listed while they are typed in.
  const [shown] = useState(() => new Set<string>());
  const rows = texts.filter((text) => {
    const missing = !translatedText(translation, text)?.trim();
    if (missing) shown.add(text.id);
    return !onlyMissing || missing || shown.has(text.id);
  });
  if (rows.length === 0) return <p className="cs-hint">{tt.allTranslated}</p>;
  return (
    <ol className={styles.translationList}>
      {rows.map((text) => {
        const value = translatedText(translation, text) ?? "";
        const missing = !value.trim();
        const long = text.part === "description" || text.part === "help" || text.source.length > 80;
        return (
          <li key={text.id} className={styles.translationRow} data-missing={missing || undefined}>
            <Field
              id={inputId(language, text)}
              label={
                <>
                  {context(text)} {missing ? <Badge tone="warning">{tt.missing}</Badge> : null}
                </>
              }
              hint={
                <>
                  {format(tt.original, { language: languageEndonyms[defaultLanguage] })}{" "}
                  <span lang={defaultLanguage} dir={textDirection(defaultLanguage)} className={styles.original}>
                    {text.source}
                  </span>
                </>
              }
            >
              {(control) =>
                long ? (
                  <textarea
                    {...control}
                    className="cs-input"
                    rows={2}
                    lang={language}
                    dir={textDirection(language)}
                    value={value}
                    maxLength={text.part === "description" || text.part === "help" ? 1000 : 500}
                    onChange={(event) => onChange(text, event.target.value)}
                  />
                ) : (
                  <input
                    {...control}
                    className="cs-input"
                    lang={language}
                    dir={textDirection(language)}
                    value={value}
                    maxLength={text.part === "title" ? 120 : text.part === "placeholder" ? 200 : 500}
                    onChange={(event) => onChange(text, event.target.value)}
                  />
                )
              }
            </Field>
          </li>
        );
      })}
    </ol>
  );
}
