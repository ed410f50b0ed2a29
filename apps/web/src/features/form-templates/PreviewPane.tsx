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
import { Notice, Segmented, SelectField } from "@clinsign/ui";
import { FormRenderer } from "@clinsign/ui/form";
import { useEffect, useMemo, useState } from "react";
import { translationLanguages } from "./builder-model";
import { languageNames, languages, locales, patientSections, type Lang, type PatientDictionary } from "../../i18n";
import { dictionaries } from "../../i18n/dictionaries";
import { useI18n } from "../../i18n/I18nProvider";
import { rendererLabels } from "../forms/renderer-labels";
import styles from "./preview.module.css";

type Width = "phone" | "desktop";

/** A file chosen in the preview: checked like a real one, never sent anywhere. */
const localAttachment = (file: File): Attachment => ({
  name: file.name,
  path: `preview/${crypto.randomUUID()}`,
  size: file.size,
  type: file.type || "application/octet-stream",
});

/**
 * A template as patients see it, with the patients' renderer and validators, at phone or desktop
 * width and with the page texts in either language. Nothing is saved or submitted. The preview
 * page and the builder show it.
 */
export function PreviewPane({
  title,
  description,
  schema,
  defaultLanguage = "de",
  translations = {},
  formLanguage,
  initialWidth = "phone",
}: {
  title: string;
  description: string | null;
  schema: TemplateSchema;
  /** The template's language and its translations: the preview shows the form in any of them. */
  defaultLanguage?: PatientLanguage;
  translations?: TemplateTranslations;
  /** A language to show the form in (the builder's translations view); the pane's own choice otherwise. */
  formLanguage?: PatientLanguage | null;
  initialWidth?: Width;
}) {
  const { t } = useI18n();
  const p = t.formTemplates.preview;
  const [width, setWidth] = useState<Width>(initialWidth);
  const [pageLang, setPageLang] = useState<Lang>("en");
  const [values, setValues] = useState<FormValues>({});
  const [valid, setValid] = useState(false);
  const [shownLanguage, setShownLanguage] = useState<PatientLanguage>(defaultLanguage);
  useEffect(() => {
    if (formLanguage) setShownLanguage(formLanguage);
  }, [formLanguage]);
  const formLanguages = [defaultLanguage, ...translationLanguages(translations).filter((l) => l !== defaultLanguage)];
  const localized = useMemo(
    () => localizeTemplate({ title, description, schema, defaultLanguage, translations }, shownLanguage),
    [title, description, schema, defaultLanguage, translations, shownLanguage],
  );

  const labels = useMemo(() => {
    const all = dictionaries[pageLang];
    const patient = Object.fromEntries(patientSections.map((section) => [section, all[section]])) as PatientDictionary;
    return rendererLabels(patient, locales[pageLang]);
  }, [pageLang]);

  return (
    <div className={styles.pane}>
      <div className={styles.toolbar}>
        <Segmented<Width>
          label={p.width}
          name="preview-width"
          value={width}
          onChange={setWidth}
          options={[
            { value: "phone", label: p.phone },
            { value: "desktop", label: p.desktop },
          ]}
        />
        <Segmented<Lang>
          label={p.pageLanguage}
          name="preview-language"
          value={pageLang}
          onChange={setPageLang}
          options={languages.map((code) => ({ value: code, label: languageNames[code], lang: code }))}
        />
        {formLanguages.length > 1 ? (
          <SelectField
            id="preview-form-language"
            label={t.formTemplates.translations.formLanguage}
            options={formLanguages.map((code) => ({ value: code, label: languageEndonyms[code] }))}
            value={localized.language}
            onChange={(event) => setShownLanguage(event.target.value as PatientLanguage)}
          />
        ) : null}
      </div>
      <div className={styles.stage}>
        <div className={styles.frame} data-width={width} lang={pageLang}>
          <div
            lang={localized.language}
            dir={textDirection(localized.language)}
            data-form-language={localized.language}
          >
            <p className={styles.title}>{localized.title}</p>
            {localized.description ? <p className={styles.description}>{localized.description}</p> : null}
            <div role="status" aria-live="polite">
              {valid ? <Notice tone="success">{p.valid}</Notice> : null}
            </div>
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
              submitLabel={dictionaries[pageLang].forms.submit}
              uploadFile={async (file) => localAttachment(file)}
              actions={<span className="cs-hint">{p.uploadsOff}</span>}
            />
          </div>
        </div>
      </div>
    </div>
  );
}
