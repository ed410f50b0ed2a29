"use client";

import { LOGO_MAX_BYTES, logoContentTypes } from "@clinsign/contracts";
import { Button, TextField } from "@clinsign/ui";
import { useMutation } from "@tanstack/react-query";
import { useId, useState, type ChangeEvent } from "react";
import { format } from "../../i18n";
import { useI18n } from "../../i18n/I18nProvider";
import { uploadLogo } from "./logo-upload";
import styles from "./branding.module.css";

/**
 * Uploading a logo file: its type and size checked here, then the API stores it and answers the
 * address, which `onUploaded` puts into the draft.
 */
export function useLogoUpload(onUploaded: (logoUrl: string) => void) {
  const { t } = useI18n();
  const b = t.brandingPage;
  const [error, setError] = useState<string | null>(null);
  const upload = useMutation({
    mutationFn: uploadLogo,
    onMutate: () => setError(null),
    onSuccess: (result) => onUploaded(result.logoUrl),
    onError: (failure) => setError(failure instanceof Error && failure.message ? failure.message : t.errors.generic),
  });

  function choose(file: File | undefined) {
    if (!file) return;
    if (!(logoContentTypes as readonly string[]).includes(file.type)) return setError(b.logoWrongType);
    if (file.size > LOGO_MAX_BYTES) return setError(format(b.logoTooLarge, { kb: String(LOGO_MAX_BYTES / 1024) }));
    upload.mutate(file);
  }

  return { choose, error, pending: upload.isPending, uploaded: upload.isSuccess };
}

export type LogoUpload = ReturnType<typeof useLogoUpload>;

/** The logo: a file to upload, or an https address typed in, and the button that removes it. */
export function LogoFieldset({
  upload,
  url,
  onRemove,
}: {
  upload: LogoUpload;
  url: { value: string; onChange(event: ChangeEvent<HTMLInputElement>): void; error: string | undefined };
  onRemove(): void;
}) {
  const { t } = useI18n();
  const b = t.brandingPage;
  const inputId = useId();
  return (
    <fieldset className={styles.colorField}>
      <legend className="cs-label">{b.logo}</legend>
      <span className="cs-hint">{format(b.logoHint, { kb: String(LOGO_MAX_BYTES / 1024) })}</span>
      <div className="cs-field">
        <label className="cs-label" htmlFor={inputId}>
          {b.logoUpload}
        </label>
        <input
          id={inputId}
          type="file"
          className={`cs-input ${styles.file}`}
          accept={logoContentTypes.join(",")}
          onChange={(e) => {
            upload.choose(e.target.files?.[0]);
            e.target.value = "";
          }}
          aria-invalid={upload.error ? true : undefined}
          aria-describedby={upload.error ? `${inputId}-error` : undefined}
        />
        {upload.error ? (
          <span id={`${inputId}-error`} className="cs-field-error">
            {upload.error}
          </span>
        ) : null}
        <span role="status" aria-live="polite" className="cs-hint">
          {upload.pending ? b.logoUploading : upload.uploaded ? b.logoUploaded : ""}
        </span>
      </div>
      <div className={styles.colorRow}>
        <TextField
          label={b.logoUrl}
          hint={b.logoUrlHint}
          type="url"
          inputMode="url"
          placeholder="https://"
          maxLength={2048}
          {...url}
          className={styles.grow}
        />
        {url.value ? (
          <Button size="small" variant="ghost" onClick={onRemove}>
            {b.removeLogo}
          </Button>
        ) : null}
      </div>
    </fieldset>
  );
}
