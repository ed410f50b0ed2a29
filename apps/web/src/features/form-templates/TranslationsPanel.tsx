"use client";

import {
  languageEndonyms,
  patientLanguages,
  translatableTexts,
  type PatientLanguage,
  type TemplateSchema,
  type TemplateTranslations,
  type TranslatableText,
} from "@clinsign/contracts";
import { Badge, Button, Card, Icon, SelectField } from "@clinsign/ui";
import { useState } from "react";
import { format, type Dictionary } from "../../i18n";
import { useI18n } from "../../i18n/I18nProvider";
import { addableLanguages, addLanguage, coverageByLanguage, removeLanguage, setTranslatedText } from "./builder-model";
import styles from "./builder.module.css";
import { TranslationTexts } from "./TranslationTexts";

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
  const addable = addableLanguages(defaultLanguage, translations);
  const [toAdd, setToAdd] = useState<PatientLanguage | "">("");
  const [onlyMissing, setOnlyMissing] = useState(false);
  const adding = toAdd && addable.includes(toAdd) ? toAdd : (addable[0] ?? "");
  const current = language && translations[language] ? language : null;

  function remove(removed: PatientLanguage) {
    onTranslationsChange(removeLanguage(translations, removed));
    if (current === removed) onLanguageChange(null);
    announce(format(tt.removed, { language: languageEndonyms[removed] }));
  }

  function add() {
    if (!adding) return;
    onTranslationsChange(addLanguage(translations, adding));
    onLanguageChange(adding);
    setToAdd("");
    announce(format(tt.added, { language: languageEndonyms[adding] }));
  }

  return (
    <Card>
      <section aria-labelledby="translations-heading" className="cs-stack">
        <h2 id="translations-heading">{tt.heading}</h2>
        <p className="cs-hint">{tt.intro}</p>
        <DefaultLanguageSelect value={defaultLanguage} translations={translations} onChange={onDefaultLanguageChange} />

        <h3 id="translation-languages-heading">{tt.languagesHeading}</h3>
        <LanguageCoverage
          coverage={coverageByLanguage(template, translations)}
          current={current}
          onSelect={(chosen) => onLanguageChange(current === chosen ? null : chosen)}
          onRemove={remove}
        />
        {addable.length > 0 ? (
          <AddLanguageRow addable={addable} value={adding} onChange={setToAdd} onAdd={add} />
        ) : null}

        {current ? (
          <section aria-labelledby="translation-texts-heading" className="cs-stack">
            <h3 id="translation-texts-heading">{format(tt.textsHeading, { language: languageEndonyms[current] })}</h3>
            <OnlyMissingSwitch checked={onlyMissing} onChange={setOnlyMissing} />
            <TranslationTexts
              texts={translatableTexts(template)}
              translations={translations}
              language={current}
              defaultLanguage={defaultLanguage}
              onlyMissing={onlyMissing}
              context={textContext(schema, tt)}
              onChange={(text, value) => onTranslationsChange(setTranslatedText(translations, current, text, value))}
            />
          </section>
        ) : null}
      </section>
    </Card>
  );
}

/** "Deutsch (de)": a language as the choosers name it. */
const languageOption = (code: PatientLanguage) => `${languageEndonyms[code]} (${code})`;

/** Where a text sits in the form ("Label (pain)", "Help · Pain"), shown above its input. */
function textContext(schema: TemplateSchema, tt: Dictionary["formTemplates"]["translations"]) {
  const setLabel = new Map((schema.optionSets ?? []).map((set) => [set.id, set.label]));
  const fieldLabel = new Map(
    schema.fields.map((field) => [field.key ?? field.id, field.label || field.key || field.id]),
  );
  return (text: TranslatableText) => {
    const part = tt.parts[text.part];
    if (text.optionSetId !== undefined) return `${part} · ${setLabel.get(text.optionSetId) ?? text.optionSetId}`;
    if (text.fieldKey === null) return part;
    const field = fieldLabel.get(text.fieldKey) ?? text.fieldKey;
    return text.part === "label" ? `${part} (${text.fieldKey})` : `${part} · ${field}`;
  };
}

/** The template's other languages: choose one to translate, how much of it is done, remove it. */
function LanguageCoverage({
  coverage,
  current,
  onSelect,
  onRemove,
}: {
  coverage: ReturnType<typeof coverageByLanguage>;
  current: PatientLanguage | null;
  onSelect(language: PatientLanguage): void;
  onRemove(language: PatientLanguage): void;
}) {
  const { t } = useI18n();
  const tt = t.formTemplates.translations;
  if (coverage.length === 0) return <p className="cs-hint">{tt.none}</p>;
  return (
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
              onClick={() => onSelect(entry.language)}
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
              onClick={() => onRemove(entry.language)}
            >
              <Icon name="trash" />
            </Button>
          </li>
        );
      })}
    </ul>
  );
}

/** The template's own language: itself or one it has no translation in. */
function DefaultLanguageSelect({
  value,
  translations,
  onChange,
}: {
  value: PatientLanguage;
  translations: TemplateTranslations;
  onChange(language: PatientLanguage): void;
}) {
  const { t } = useI18n();
  const tt = t.formTemplates.translations;
  return (
    <SelectField
      id="template-default-language"
      label={tt.defaultLanguage}
      hint={tt.defaultLanguageHint}
      options={patientLanguages
        .filter((code) => code === value || translations[code] === undefined)
        .map((code) => ({ value: code, label: languageOption(code) }))}
      value={value}
      onChange={(event) => onChange(event.target.value as PatientLanguage)}
    />
  );
}

/** Adds one of the languages the template has no translation in yet. */
function AddLanguageRow({
  addable,
  value,
  onChange,
  onAdd,
}: {
  addable: readonly PatientLanguage[];
  value: PatientLanguage | "";
  onChange(language: PatientLanguage): void;
  onAdd(): void;
}) {
  const { t } = useI18n();
  const tt = t.formTemplates.translations;
  return (
    <div className={styles.addRow}>
      <SelectField
        id="translation-add-language"
        label={tt.addLanguage}
        options={addable.map((code) => ({ value: code, label: languageOption(code) }))}
        value={value}
        onChange={(event) => onChange(event.target.value as PatientLanguage)}
      />
      <Button icon={<Icon name="plus" />} onClick={onAdd}>
        {tt.add}
      </Button>
    </div>
  );
}

/** "Only missing texts": the filter over the texts below. */
function OnlyMissingSwitch({ checked, onChange }: { checked: boolean; onChange(checked: boolean): void }) {
  const { t } = useI18n();
  return (
    <label className={styles.onlyMissing}>
      <input type="checkbox" checked={checked} onChange={(event) => onChange(event.target.checked)} />{" "}
      {t.formTemplates.translations.onlyMissing}
    </label>
  );
}
