"use client";

import type { PatientLanguage } from "@clinsign/contracts/language-list";
import { Button, Card, Notice, TextField } from "@clinsign/ui";
import { useMutation } from "@tanstack/react-query";
import { useRouter } from "next/navigation";
import { useState, type ChangeEvent, type FormEvent } from "react";
import { useI18n } from "../../i18n/I18nProvider";
import { useTRPC } from "../../trpc/client";
import { DocumentLanguageSelect } from "./DocumentLanguageSelect";
import styles from "./documents.module.css";
import { fieldEditorLabels } from "./labels";
import { LazyFieldPlacementEditor } from "./LazyFieldPlacementEditor";
import { RefusalNotice } from "./RefusalNotice";
import type { UploadFormAction, UploadFormState } from "./upload-form";

/**
 * Uploading a PDF: choose the file (checked here first), then name it and place its fields on the
 * rendered pages before anything is sent.
 */
export function UploadDocumentCard({
  form,
  onChoose,
  onEdit,
  onSubmit,
}: {
  form: UploadFormState;
  onChoose(event: ChangeEvent<HTMLInputElement>): void;
  onEdit(change: Extract<UploadFormAction, { type: "edit" }>["change"]): void;
  onSubmit(event: FormEvent): void;
}) {
  const { t } = useI18n();
  const d = t.documentsPage;
  const { file, fileError, uploadError, uploading, tried } = form;
  return (
    <Card title={d.uploadTitle}>
      <form className="cs-stack" onSubmit={onSubmit} noValidate aria-label={d.uploadTitle}>
        <PdfFileInput error={fileError} onChoose={onChoose} />
        {file ? (
          <>
            <div className={styles.formGrid}>
              <TextField
                label={d.name}
                hint={d.nameHint}
                value={form.name}
                maxLength={200}
                required
                error={
                  (tried && !form.name.trim()) || uploadError?.field === "document_name"
                    ? t.validation.required
                    : undefined
                }
                onChange={(event) => onEdit({ name: event.target.value })}
              />
              <TextField
                label={d.descriptionLabel}
                value={form.description}
                maxLength={2000}
                onChange={(event) => onEdit({ description: event.target.value })}
              />
              <DocumentLanguageSelect value={form.language} onChange={(language) => onEdit({ language })} />
            </div>
            <h3>{d.placeFieldsTitle}</h3>
            <LazyFieldPlacementEditor
              data={file.bytes}
              fields={form.fields}
              onChange={(fields) => onEdit({ fields })}
              labels={fieldEditorLabels(d, t.signing.signerRoles)}
            />
            {tried && form.fields.length === 0 ? (
              <Notice tone="warning" role="alert">
                {d.needAField}
              </Notice>
            ) : null}
            {uploadError ? (
              <Notice tone="danger" role="alert">
                {uploadError.message}
              </Notice>
            ) : null}
            <div className={styles.actions}>
              <Button type="submit" variant="primary" busy={uploading}>
                {uploading ? d.creating : d.create}
              </Button>
            </div>
          </>
        ) : null}
      </form>
    </Card>
  );
}

/** The PDF file input, with its hint and the reason a chosen file was refused. */
function PdfFileInput({
  error,
  onChoose,
}: {
  error: string | null;
  onChoose(event: ChangeEvent<HTMLInputElement>): void;
}) {
  const d = useI18n().t.documentsPage;
  return (
    <div className="cs-field">
      <label className="cs-label" htmlFor="document-file">
        {d.chooseFile}
      </label>
      <input
        id="document-file"
        className="cs-input"
        type="file"
        accept="application/pdf,.pdf"
        aria-describedby="document-file-hint document-file-error"
        aria-invalid={error ? true : undefined}
        onChange={onChoose}
      />
      <p id="document-file-hint" className="cs-hint">
        {d.chooseFileHint}
      </p>
      {error ? (
        <p id="document-file-error" className="cs-field-error" role="alert">
          {error}
        </p>
      ) : null}
    </div>
  );
}

const DEFAULT_URL_FIELD = { page: 1, x: 50, y: 50, width: 200, height: 60 };
const FIELD_NUMBERS = ["page", "x", "y", "width", "height"] as const;

/** Registering a PDF by its URL, as A6 does: a name, the URL, a language and the first field's numbers. */
export function RegisterByUrlCard() {
  const { t } = useI18n();
  const d = t.documentsPage;
  const trpc = useTRPC();
  const router = useRouter();
  const [url, setUrl] = useState("");
  const [urlName, setUrlName] = useState("");
  const [urlField, setUrlField] = useState(DEFAULT_URL_FIELD);
  const [urlLanguage, setUrlLanguage] = useState<PatientLanguage | null>(null);
  const register = useMutation(
    trpc.documents.create.mutationOptions({
      onSuccess: (created) => router.push(`/documents/${created.document_id}?created=1`),
    }),
  );
  return (
    <Card title={d.urlTitle} description={d.urlDescription}>
      <form
        className="cs-stack"
        aria-label={d.urlTitle}
        onSubmit={(event) => {
          event.preventDefault();
          register.mutate({
            document_name: urlName.trim(),
            document_bloburl: url.trim(),
            signingfield_koordinates: urlField,
            ...(urlLanguage && { language: urlLanguage }),
          });
        }}
      >
        <div className={styles.formGrid}>
          <TextField
            label={d.name}
            value={urlName}
            maxLength={200}
            required
            onChange={(event) => setUrlName(event.target.value)}
          />
          <TextField
            label={d.urlLabel}
            type="url"
            inputMode="url"
            value={url}
            maxLength={2048}
            required
            onChange={(event) => setUrl(event.target.value)}
          />
          <DocumentLanguageSelect value={urlLanguage} onChange={setUrlLanguage} />
        </div>
        <fieldset className={styles.fieldsetReset}>
          <legend className="cs-label">{d.firstField}</legend>
          <div className={styles.numbers}>
            {FIELD_NUMBERS.map((key) => (
              <TextField
                key={key}
                label={key === "page" ? d.fieldEditor.page : d.fieldEditor[key]}
                type="number"
                inputMode="decimal"
                min={key === "page" ? 1 : 0}
                value={String(urlField[key])}
                onChange={(event) => setUrlField({ ...urlField, [key]: Number(event.target.value) })}
              />
            ))}
          </div>
        </fieldset>
        <RefusalNotice error={register.error} />
        <div className={styles.actions}>
          <Button type="submit" variant="secondary" busy={register.isPending}>
            {d.register}
          </Button>
        </div>
      </form>
    </Card>
  );
}
