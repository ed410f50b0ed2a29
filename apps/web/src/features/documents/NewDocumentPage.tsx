"use client";

import type { EditorField } from "./FieldPlacementEditor";
import { Button, Card, Notice, TextField } from "@clinsign/ui";
import { useMutation } from "@tanstack/react-query";
import dynamic from "next/dynamic";
import { useRouter } from "next/navigation";
import { useState, type ChangeEvent, type FormEvent } from "react";
import { PageHeader } from "../../components/PageHeader";
import { useLeaveGuard } from "../../components/useLeaveGuard";
import { useI18n } from "../../i18n/I18nProvider";
import { useTRPC } from "../../trpc/client";
import { describeApiError, readApiError } from "../../trpc/errors";
import styles from "./documents.module.css";
import { fieldEditorLabels } from "./labels";
import { DocumentLanguageSelect } from "./DocumentLanguageSelect";
import type { PatientLanguage } from "@clinsign/contracts/language-list";
import { uploadDocument, UploadError } from "./upload";

/** pdf.js comes with the editor, only once a file is chosen. */
const FieldPlacementEditor = dynamic(() => import("./FieldPlacementEditor").then((m) => m.FieldPlacementEditor), {
  ssr: false,
});

const MAX_PDF_BYTES = 20 * 1024 * 1024;
const DEFAULT_URL_FIELD = { page: 1, x: 50, y: 50, width: 200, height: 60 };

/**
 * Adding a document: upload a PDF (shown with pdf.js right away, fields drawn on it before
 * anything is sent), or register one by URL as A6 does. Either way it arrives as a new document
 * whose page says what to do next.
 */
export function NewDocumentPage() {
  const { t } = useI18n();
  const d = t.documentsPage;
  const router = useRouter();
  const trpc = useTRPC();
  const [file, setFile] = useState<{ bytes: Uint8Array; name: string } | null>(null);
  const [fileError, setFileError] = useState<string | null>(null);
  const [name, setName] = useState("");
  const [description, setDescription] = useState("");
  const [language, setLanguage] = useState<PatientLanguage | null>(null);
  const [fields, setFields] = useState<EditorField[]>([]);
  const [uploadError, setUploadError] = useState<{ message: string; field?: string } | null>(null);
  const [uploading, setUploading] = useState(false);
  const [tried, setTried] = useState(false);
  useLeaveGuard(file !== null && !uploading, d.leaveWarning);

  async function choose(event: ChangeEvent<HTMLInputElement>) {
    const chosen = event.target.files?.[0];
    setFileError(null);
    setUploadError(null);
    if (!chosen) return;
    if (chosen.size > MAX_PDF_BYTES) return setFileError(d.fileTooLarge);
    const bytes = new Uint8Array(await chosen.arrayBuffer());
    // "%PDF-" within the first kilobyte, as the API checks.
    if (!new TextDecoder("latin1").decode(bytes.subarray(0, 1024)).includes("%PDF-")) return setFileError(d.notPdf);
    setFile({ bytes, name: chosen.name });
    setFields([]);
    if (!name.trim()) setName(chosen.name.replace(/\.pdf$/i, "").slice(0, 200));
  }

  async function create(event: FormEvent) {
    event.preventDefault();
    setTried(true);
    if (!file || !name.trim() || fields.length === 0) return;
    setUploading(true);
    setUploadError(null);
    try {
      const created = await uploadDocument(file, {
        document_name: name.trim(),
        document_description: description.trim() || null,
        signingfield_koordinates: fields,
        ...(language && { language }),
      });
      router.push(`/documents/${created.id}?created=1`);
    } catch (error) {
      setUploading(false);
      setUploadError(
        error instanceof UploadError ? { message: error.message, field: error.field } : { message: t.errors.network },
      );
    }
  }

  const [url, setUrl] = useState("");
  const [urlName, setUrlName] = useState("");
  const [urlField, setUrlField] = useState(DEFAULT_URL_FIELD);
  const [urlLanguage, setUrlLanguage] = useState<PatientLanguage | null>(null);
  const register = useMutation(
    trpc.documents.create.mutationOptions({
      onSuccess: (created) => router.push(`/documents/${created.document_id}?created=1`),
    }),
  );
  const registerError = register.error ? readApiError(register.error) : null;

  return (
    <>
      <PageHeader title={d.newTitle} description={d.newDescription} />
      <div className="cs-stack cs-stack--lg">
        <Card title={d.uploadTitle}>
          <form className="cs-stack" onSubmit={create} noValidate aria-label={d.uploadTitle}>
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
                aria-invalid={fileError ? true : undefined}
                onChange={(event) => void choose(event)}
              />
              <p id="document-file-hint" className="cs-hint">
                {d.chooseFileHint}
              </p>
              {fileError ? (
                <p id="document-file-error" className="cs-field-error" role="alert">
                  {fileError}
                </p>
              ) : null}
            </div>
            {file ? (
              <>
                <div className={styles.formGrid}>
                  <TextField
                    label={d.name}
                    hint={d.nameHint}
                    value={name}
                    maxLength={200}
                    required
                    error={
                      (tried && !name.trim()) || uploadError?.field === "document_name"
                        ? t.validation.required
                        : undefined
                    }
                    onChange={(event) => setName(event.target.value)}
                  />
                  <TextField
                    label={d.descriptionLabel}
                    value={description}
                    maxLength={2000}
                    onChange={(event) => setDescription(event.target.value)}
                  />
                  <DocumentLanguageSelect value={language} onChange={setLanguage} />
                </div>
                <h3>{d.placeFieldsTitle}</h3>
                <FieldPlacementEditor
                  data={file.bytes}
                  fields={fields}
                  onChange={setFields}
                  labels={fieldEditorLabels(d, t.signing.signerRoles)}
                />
                {tried && fields.length === 0 ? (
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
                {(["page", "x", "y", "width", "height"] as const).map((key) => (
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
            {registerError ? (
              <Notice tone="danger" role="alert">
                {registerError.code === "BAD_REQUEST" ? registerError.message : describeApiError(registerError, t)}
              </Notice>
            ) : null}
            <div className={styles.actions}>
              <Button type="submit" variant="secondary" busy={register.isPending}>
                {d.register}
              </Button>
            </div>
          </form>
        </Card>
      </div>
    </>
  );
}
