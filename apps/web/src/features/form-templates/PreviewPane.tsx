"use client";

import type { Attachment, FormValues, TemplateSchema } from "@clinsign/contracts";
import { Notice, Segmented } from "@clinsign/ui";
import { FormRenderer } from "@clinsign/ui/form";
import { useMemo, useState } from "react";
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
  initialWidth = "phone",
}: {
  title: string;
  description: string | null;
  schema: TemplateSchema;
  initialWidth?: Width;
}) {
  const { t } = useI18n();
  const p = t.formTemplates.preview;
  const [width, setWidth] = useState<Width>(initialWidth);
  const [pageLang, setPageLang] = useState<Lang>("en");
  const [values, setValues] = useState<FormValues>({});
  const [valid, setValid] = useState(false);

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
      </div>
      <div className={styles.stage}>
        <div className={styles.frame} data-width={width} lang={pageLang}>
          <p className={styles.title}>{title}</p>
          {description ? <p className={styles.description}>{description}</p> : null}
          <div role="status" aria-live="polite">
            {valid ? <Notice tone="success">{p.valid}</Notice> : null}
          </div>
          <FormRenderer
            idPrefix="preview"
            schema={schema}
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
  );
}
