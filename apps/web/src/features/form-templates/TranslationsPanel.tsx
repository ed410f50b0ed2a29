"use client";

import {
  languageEndonyms,
  patientLanguages,
  textDirection,
  translatableTexts,
  translatedText,
  type PatientLanguage,
  type TemplateSchema,
  type TemplateTranslations,
  type TranslatableText,
} from "@clinsign/contracts";
import { Badge, Button, Card, Field, Icon, SelectField } from "@clinsign/ui";
import { useState } from "react";
import { format } from "../../i18n";
import { useI18n } from "../../i18n/I18nProvider";
import { addableLanguages, addLanguage, coverageByLanguage, removeLanguage, setTranslatedText } from "./builder-model";
import styles from "./builder.module.css";

export interface TranslationsPanelProps {
  title: string;
  description: string | null;
  schema: TemplateSchema;
  defaultLanguage: PatientLanguage;
  translations: TemplateTranslations;
  onDefaultLanguageChange(language: PatientLanguage): void;
  onTranslationsChange(translations: TemplateTranslations): void;
  /** The language being translated; the preview shows the form in it. */
  language: PatientLanguage | null;
  onLanguageChange(language: PatientLanguage | null): void;
  announce(text: string): void;
}

const inputId = (language: string, text: TranslatableText) =>
  `translation-${language}-${text.id.replace(/[^\w-]/g, "_")}`;

/**
 * The builder's translations view: the template's language, its other languages with how much of
 * each is translated ("12 of 15 translated"), and for the chosen one every text with the
 * original beside an input, missing ones marked. Empty inputs fall back to the template's language.
 */
export function TranslationsPanel({
  title,
  description,
  schema,
  defaultLanguage,
  translations,
  onDefaultLanguageChange,
  onTranslationsChange,
  language,
  onLanguageChange,
  announce,
}: TranslationsPanelProps) {
  const { t } = useI18n();
  const tt = t.formTemplates.translations;
  const template = { title, description, schema };
  const coverage = coverageByLanguage(template, translations);
  const addable = addableLanguages(defaultLanguage, translations);
  const [toAdd, setToAdd] = useState<PatientLanguage | "">("");
  const [onlyMissing, setOnlyMissing] = useState(false);
  const adding = toAdd && addable.includes(toAdd) ? toAdd : (addable[0] ?? "");
  const current = language && translations[language] ? language : null;
  const texts = translatableTexts(template);
  const setLabel = new Map((schema.optionSets ?? []).map((set) => [set.id, set.label]));
  const fieldLabel = new Map(
    schema.fields.map((field) => [field.key ?? field.id, field.label || field.key || field.id]),
  );

  const context = (text: TranslatableText) => {
    const part = tt.parts[text.part];
    if (text.optionSetId !== undefined) return `${part} · ${setLabel.get(text.optionSetId) ?? text.optionSetId}`;
    if (text.fieldKey === null) return part;
    const field = fieldLabel.get(text.fieldKey) ?? text.fieldKey;
    return text.part === "label" ? `${part} (${text.fieldKey})` : `${part} · ${field}`;
  };

  return (
    <Card>
      <section aria-labelledby="translations-heading" className="cs-stack">
        <h2 id="translations-heading">{tt.heading}</h2>
        <p className="cs-hint">{tt.intro}</p>
        <SelectField
          id="template-default-language"
          label={tt.defaultLanguage}
          hint={tt.defaultLanguageHint}
          options={patientLanguages
            .filter((code) => code === defaultLanguage || translations[code] === undefined)
            .map((code) => ({ value: code, label: `${languageEndonyms[code]} (${code})` }))}
          value={defaultLanguage}
          onChange={(event) => onDefaultLanguageChange(event.target.value as PatientLanguage)}
        />

        <h3 id="translation-languages-heading">{tt.languagesHeading}</h3>
        {coverage.length === 0 ? <p className="cs-hint">{tt.none}</p> : null}
        {coverage.length > 0 ? (
          <ul className={styles.languageList} aria-labelledby="translation-languages-heading">
            {coverage.map((entry) => {
              const name = languageEndonyms[entry.language];
              const missing = entry.total - entry.translated;
              return (
                <li key={entry.language} className={styles.languageRow} data-language={entry.language}>
                  <Button
                    size="small"
                    variant={current === entry.language ? "primary" : "secondary"}
                    aria-pressed={current === entry.language}
                    onClick={() => onLanguageChange(current === entry.language ? null : entry.language)}
                  >
                    <span lang={entry.language}>{name}</span>
                  </Button>
                  <span className={styles.languageCoverage} data-coverage>
                    {format(tt.coverage, { translated: entry.translated, total: entry.total })}
                  </span>
                  {missing > 0 ? <Badge tone="warning">{format(tt.missingCount, { count: missing })}</Badge> : null}
                  <Button
                    size="small"
                    variant="ghost"
                    iconOnly
                    aria-label={format(tt.remove, { language: name })}
                    title={format(tt.remove, { language: name })}
                    onClick={() => {
                      onTranslationsChange(removeLanguage(translations, entry.language));
                      if (current === entry.language) onLanguageChange(null);
                      announce(format(tt.removed, { language: name }));
                    }}
                  >
                    <Icon name="trash" />
                  </Button>
                </li>
              );
            })}
          </ul>
        ) : null}
        {addable.length > 0 ? (
          <div className={styles.addRow}>
            <SelectField
              id="translation-add-language"
              label={tt.addLanguage}
              options={addable.map((code) => ({ value: code, label: `${languageEndonyms[code]} (${code})` }))}
              value={adding}
              onChange={(event) => setToAdd(event.target.value as PatientLanguage)}
            />
            <Button
              icon={<Icon name="plus" />}
              onClick={() => {
                if (!adding) return;
                onTranslationsChange(addLanguage(translations, adding));
                onLanguageChange(adding);
                setToAdd("");
                announce(format(tt.added, { language: languageEndonyms[adding] }));
              }}
            >
              {tt.add}
            </Button>
          </div>
        ) : null}

        {current ? (
          <section aria-labelledby="translation-texts-heading" className="cs-stack">
            <h3 id="translation-texts-heading">{format(tt.textsHeading, { language: languageEndonyms[current] })}</h3>
            <label className={styles.onlyMissing}>
              <input type="checkbox" checked={onlyMissing} onChange={(event) => setOnlyMissing(event.target.checked)} />{" "}
              {tt.onlyMissing}
            </label>
            <TranslationTexts
              texts={texts}
              translations={translations}
              language={current}
              defaultLanguage={defaultLanguage}
              onlyMissing={onlyMissing}
              context={context}
              onChange={(text, value) => onTranslationsChange(setTranslatedText(translations, current, text, value))}
            />
          </section>
        ) : null}
      </section>
    </Card>
  );
}

function TranslationTexts({
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
