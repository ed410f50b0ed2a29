"use client";

import {
  languageEndonyms,
  localizeTemplate,
  textDirection,
  type Attachment,
  type FormValues,
  type PatientLanguage,
  type TemplateSchema,
  type TemplateTranslations,
} from "@clinsign/contracts";
import { LiveRegion, Notice, Segmented, SelectField } from "@clinsign/ui";
import { FormRenderer } from "@clinsign/ui/form";
import { useEffect, useMemo, useState } from "react";
import { translationLanguages } from "./builder-model";
import { format, locales, patientLanguages } from "../../i18n";
import { patientDictionary } from "../../i18n/dictionaries";
import { useI18n } from "../../i18n/I18nProvider";
import { templateRendererLabels } from "../forms/renderer-labels";
import styles from "./preview.module.css";

type Width = "phone" | "desktop";

/** A file chosen in the preview: checked like a real one, never sent anywhere. */
const localAttachment = (file: File): Attachment => ({
  name: file.name,
  path: `preview/${crypto.randomUUID()}`,
  size: file.size,
  type: file.type || "application/octet-stream",
});

interface PreviewPaneProps {
  title: string;
  description: string | null;
  schema: TemplateSchema;
  /** The template's language and its translations. */
  defaultLanguage?: PatientLanguage;
  translations?: TemplateTranslations;
  /** A language to show (the builder's translations view); the pane's own choice otherwise. */
  formLanguage?: PatientLanguage | null;
  initialWidth?: Width;
}

/**
 * A template as patients see it, with the patients' renderer and validators, at phone or desktop
 * width and in any of the patients' languages: the page's texts in that language and the form in
 * its translation there, falling back to the template's language as the patient's page does.
 * Nothing is saved or submitted. The preview page and the builder show it.
 */
export function PreviewPane({
  title,
  description,
  schema,
  defaultLanguage = "de",
  translations = {},
  formLanguage,
  initialWidth = "phone",
}: PreviewPaneProps) {
  const { t, lang } = useI18n();
  const p = t.formTemplates.preview;
  const [width, setWidth] = useState<Width>(initialWidth);
  const [values, setValues] = useState<FormValues>({});
  const [valid, setValid] = useState(false);
  // At first the page as a patient whose browser speaks the staff member's language sees it.
  const [language, setLanguage] = useState<PatientLanguage>(formLanguage ?? lang);
  useEffect(() => {
    if (formLanguage) setLanguage(formLanguage);
  }, [formLanguage]);
  const translated = new Set([defaultLanguage, ...translationLanguages(translations)]);
  const localized = useMemo(
    () => localizeTemplate({ title, description, schema, defaultLanguage, translations }, language),
    [title, description, schema, defaultLanguage, translations, language],
  );
  const page = useMemo(() => patientDictionary(language), [language]);
  const labels = useMemo(
    () => templateRendererLabels(page, locales[language], localized.errors),
    [page, language, localized],
  );

  return (
    <div className={styles.pane}>
      <PreviewToolbar
        width={width}
        onWidthChange={setWidth}
        language={language}
        onLanguageChange={setLanguage}
        translated={translated}
      />
      {localized.language !== language ? (
        <p className="cs-hint" role="status">
          {format(p.fallback, { language: languageEndonyms[language], fallback: languageEndonyms[localized.language] })}
        </p>
      ) : null}
      <div className={styles.stage}>
        <div className={styles.frame} data-width={width} lang={language} dir={textDirection(language)}>
          <div
            lang={localized.language}
            dir={textDirection(localized.language)}
            data-form-language={localized.language}
          >
            <p className={styles.title}>{localized.title}</p>
            {localized.description ? <p className={styles.description}>{localized.description}</p> : null}
            <LiveRegion>{valid ? <Notice tone="success">{p.valid}</Notice> : null}</LiveRegion>
            <FormRenderer
              idPrefix="preview"
              schema={localized.schema}
              values={values}
              onValueChange={(key, value) => {
                setValid(false);
                setValues((previous) => ({ ...previous, [key]: value }));
              }}
              onSubmit={() => setValid(true)}
              labels={labels}
              submitLabel={page.forms.submit}
              uploadFile={async (file) => localAttachment(file)}
              actions={<span className="cs-hint">{p.uploadsOff}</span>}
            />
          </div>
        </div>
      </div>
    </div>
  );
}

/** The preview's width (phone or desktop) and language; languages without a translation say so. */
function PreviewToolbar({
  width,
  onWidthChange,
  language,
  onLanguageChange,
  translated,
}: {
  width: Width;
  onWidthChange(width: Width): void;
  language: PatientLanguage;
  onLanguageChange(language: PatientLanguage): void;
  /** The template's language and the ones it has a translation for. */
  translated: ReadonlySet<PatientLanguage>;
}) {
  const { t } = useI18n();
  const p = t.formTemplates.preview;
  return (
    <div className={styles.toolbar}>
      <Segmented<Width>
        label={p.width}
        name="preview-width"
        value={width}
        onChange={onWidthChange}
        options={[
          { value: "phone", label: p.phone },
          { value: "desktop", label: p.desktop },
        ]}
      />
      <SelectField
        id="preview-language"
        label={p.language}
        options={patientLanguages.map((code) => ({
          value: code,
          label: translated.has(code)
            ? languageEndonyms[code]
            : format(p.untranslated, { language: languageEndonyms[code] }),
        }))}
        value={language}
        onChange={(event) => onLanguageChange(event.target.value as PatientLanguage)}
      />
    </div>
  );
}
