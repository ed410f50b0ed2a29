"use client";

import type { Attachment, FormValues } from "@clinsign/contracts";
import { Badge, EmptyState, Notice, Skeleton } from "@clinsign/ui";
import { FormRenderer } from "@clinsign/ui/form";
import { useQuery } from "@tanstack/react-query";
import { useMemo, useState } from "react";
import { PageHeader } from "../../components/PageHeader";
import { format, languageNames, languages, locales, patientSections, type Lang, type PatientDictionary } from "../../i18n";
import { dictionaries } from "../../i18n/dictionaries";
import { useI18n } from "../../i18n/I18nProvider";
import { useTRPC } from "../../trpc/client";
import { isClientError } from "../../trpc/errors";
import { rendererLabels } from "../forms/renderer-labels";
import styles from "./preview.module.css";

type Width = "phone" | "desktop";

/** A file chosen in the preview: checked like a real one, never sent anywhere. */
const localAttachment = (file: File): Attachment => ({ name: file.name, path: `preview/${crypto.randomUUID()}`, size: file.size, type: file.type || "application/octet-stream" });

/**
 * The staff preview of a template: the patients' renderer and validators, at phone or desktop
 * width, with the page texts in either language. Nothing is saved or submitted; the form
 * builder will show it beside the editor.
 */
export function TemplatePreview({ identifier }: { identifier: string }) {
  const { t } = useI18n();
  const trpc = useTRPC();
  const template = useQuery(trpc.templates.get.queryOptions({ identifier, activeOnly: false }, { retry: (count, error) => !isClientError(error) && count < 2 }));
  const [width, setWidth] = useState<Width>("phone");
  const [pageLang, setPageLang] = useState<Lang>("en");
  const [values, setValues] = useState<FormValues>({});
  const [valid, setValid] = useState(false);
  const p = t.forms.preview;

  const labels = useMemo(() => {
    const all = dictionaries[pageLang];
    const patient = Object.fromEntries(patientSections.map((section) => [section, all[section]])) as PatientDictionary;
    return rendererLabels(patient, locales[pageLang]);
  }, [pageLang]);

  if (template.isPending) {
    return (
      <div aria-busy="true">
        <Skeleton label={t.common.loading} lines={6} />
      </div>
    );
  }
  if (template.isError) {
    return <EmptyState level={1} icon="alert" title={p.heading} description={isClientError(template.error) ? p.notFound : t.errors.loadFailed} />;
  }

  const current = template.data;
  return (
    <>
      <PageHeader
        title={format(p.pageTitle, { title: current.title })}
        description={p.intro}
        actions={<a href="/form-templates" className="cs-button cs-button--secondary">{p.back}</a>}
      />
      <div className={styles.toolbar}>
        <Badge>{format(p.status, { status: current.status })}</Badge>
        <div role="radiogroup" aria-label={p.width} className={styles.segmented}>
          {(["phone", "desktop"] as const).map((option) => (
            <label key={option} className={styles.segment}>
              <input type="radio" name="preview-width" checked={width === option} onChange={() => setWidth(option)} />
              <span>{option === "phone" ? p.phone : p.desktop}</span>
            </label>
          ))}
        </div>
        <div role="radiogroup" aria-label={p.pageLanguage} className={styles.segmented}>
          {languages.map((code) => (
            <label key={code} className={styles.segment} lang={code}>
              <input type="radio" name="preview-language" checked={pageLang === code} onChange={() => setPageLang(code)} />
              <span>{languageNames[code]}</span>
            </label>
          ))}
        </div>
      </div>
      <div className={styles.stage}>
        <div className={styles.frame} data-width={width} lang={pageLang}>
          <h2 className={styles.title}>{current.title}</h2>
          {current.description ? <p className={styles.description}>{current.description}</p> : null}
          <div role="status" aria-live="polite">
            {valid ? <Notice tone="success">{p.valid}</Notice> : null}
          </div>
          <FormRenderer
            idPrefix="preview"
            schema={current.schema}
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
    </>
  );
}
