"use client";

import type { Attachment } from "@clinsign/contracts";
import { useRef, useState } from "react";
import { Button } from "../Button";
import { cx } from "../cx";
import { loadFormValidation, type FileField, type FormValidation, type UploadFile } from "./form-parts";
import { describeAcceptedKinds } from "./file-kinds";
import type { FormRendererLabels } from "./labels";
import styles from "./FormRenderer.module.css";

interface Sending {
  id: number;
  name: string;
  progress: number;
  error: string | null;
}

function formatSize(bytes: number): string {
  if (bytes < 1024 * 1024) return `${Math.max(1, Math.round(bytes / 1024))} KB`;
  return `${(bytes / (1024 * 1024)).toFixed(1)} MB`;
}

const isAttachment = (item: unknown): item is Attachment =>
  typeof item === "object" &&
  item !== null &&
  typeof (item as Attachment).name === "string" &&
  typeof (item as Attachment).path === "string";

/** The chosen files the field takes, and a line for each it refuses (count, type, size). */
function sortChosenFiles(
  chosen: File[],
  alreadySent: number,
  field: FileField,
  labels: FormRendererLabels,
  validation: FormValidation,
): { accepted: File[]; problems: string[] } {
  const problems: string[] = [];
  const accepted: File[] = [];
  for (const file of chosen) {
    if (alreadySent + accepted.length >= validation.MAX_FILES_PER_FIELD) {
      problems.push(
        `${file.name}: ${labels.problem({ code: "too_many_files", params: { max: validation.MAX_FILES_PER_FIELD } }, field)}`,
      );
    } else if (!validation.acceptsFileType(field.accept, file.type, file.name)) {
      problems.push(
        `${file.name}: ${labels.problem({ code: "file_type", params: { type: file.type || file.name } }, field)}`,
      );
    } else if (field.maxSizeMb !== undefined && file.size > field.maxSizeMb * 1024 * 1024) {
      problems.push(
        `${file.name}: ${labels.problem({ code: "file_too_large", params: { maxMb: field.maxSizeMb } }, field)}`,
      );
    } else accepted.push(file);
  }
  return { accepted, problems };
}

/**
 * The uploads of one file field: the files being sent (with their progress or failure), the
 * chosen ones refused, and `choose`, which checks and sends what the picker gave.
 */
function useFileUploads({
  field,
  files,
  labels,
  onChange,
  onBlur,
  uploadFile,
}: {
  field: FileField;
  files: Attachment[];
  labels: FormRendererLabels;
  onChange(value: unknown): void;
  onBlur(): void;
  uploadFile?: UploadFile;
}) {
  const [sending, setSending] = useState<Sending[]>([]);
  const [rejected, setRejected] = useState<string[]>([]);
  const counter = useRef(0);
  // Uploads finish one by one; each adds to the newest list, not to the one it started with.
  const latest = useRef(files);
  latest.current = files;

  async function choose(chosen: File[]) {
    if (chosen.length === 0 || !uploadFile) return;
    const { accepted, problems } = sortChosenFiles(chosen, files.length, field, labels, await loadFormValidation());
    setRejected(problems);
    for (const file of accepted) {
      const entry: Sending = { id: ++counter.current, name: file.name, progress: 0, error: null };
      setSending((previous) => [...previous, entry]);
      const update = (patch: Partial<Sending>) =>
        setSending((previous) => previous.map((s) => (s.id === entry.id ? { ...s, ...patch } : s)));
      try {
        const attachment = await uploadFile(file, field, (progress) => update({ progress }));
        setSending((previous) => previous.filter((s) => s.id !== entry.id));
        onChange([...latest.current, attachment]);
      } catch {
        update({ error: labels.file.uploadFailed });
      }
    }
    onBlur();
  }

  const dismiss = (id: number) => setSending((previous) => previous.filter((s) => s.id !== id));
  return { sending, rejected, choose, dismiss };
}

/**
 * A file field: the browser's own file picker (keyboard and screen readers know it), the field's
 * type and size rules checked before anything is sent, a progress bar per file, and the files
 * already sent with a remove button each.
 */
export function FileInput({
  field,
  id,
  value,
  labels,
  disabled,
  describedBy,
  invalid,
  onChange,
  onBlur,
  uploadFile,
}: {
  field: FileField;
  id: string;
  value: unknown;
  labels: FormRendererLabels;
  disabled: boolean;
  describedBy: string | undefined;
  invalid: true | undefined;
  onChange(value: unknown): void;
  onBlur(): void;
  uploadFile?: UploadFile;
}) {
  const files = Array.isArray(value) ? value.filter(isAttachment) : [];
  const uploads = useFileUploads({ field, files, labels, onChange, onBlur, uploadFile });
  const rules = [
    field.accept
      ? labels.file.accepts.replace("{types}", describeAcceptedKinds(field.accept, labels.file.kinds))
      : null,
    field.maxSizeMb ? labels.file.maxSize.replace("{size}", `${field.maxSizeMb} MB`) : null,
  ].filter(Boolean);

  return (
    <div className={styles.file}>
      {rules.length > 0 ? <p className="cs-hint">{rules.join(" · ")}</p> : null}
      {files.length > 0 ? (
        <SentFileList
          files={files}
          labels={labels}
          disabled={disabled}
          onRemove={(path) => onChange(files.filter((f) => f.path !== path))}
        />
      ) : null}
      {uploads.sending.map((entry) => (
        <SendingFile key={entry.id} entry={entry} labels={labels} onDismiss={() => uploads.dismiss(entry.id)} />
      ))}
      {uploads.rejected.map((problem) => (
        <p key={problem} className="cs-field-error" role="alert">
          {problem}
        </p>
      ))}
      <input
        id={id}
        type="file"
        className={cx(styles.fileInput)}
        multiple
        accept={field.accept}
        disabled={disabled || !uploadFile}
        aria-describedby={describedBy}
        aria-invalid={invalid}
        aria-label={files.length > 0 ? labels.file.chooseMore : labels.file.choose}
        onChange={(event) => {
          // Copied before the input is cleared: the FileList is live and empties with it.
          const chosen = Array.from(event.target.files ?? []);
          event.target.value = "";
          void uploads.choose(chosen);
        }}
      />
    </div>
  );
}

/** The files already sent, each with its size and a remove button. */
function SentFileList({
  files,
  labels,
  disabled,
  onRemove,
}: {
  files: Attachment[];
  labels: FormRendererLabels;
  disabled: boolean;
  onRemove(path: string): void;
}) {
  return (
    <ul className={styles.fileList} aria-label={labels.file.listLabel}>
      {files.map((file) => (
        <li key={file.path} className={styles.fileItem}>
          <span className={styles.fileName}>{file.name}</span>
          <span className="cs-hint">{formatSize(file.size)}</span>
          <Button
            size="small"
            variant="ghost"
            disabled={disabled}
            aria-label={`${labels.file.remove}: ${file.name}`}
            onClick={() => onRemove(file.path)}
          >
            {labels.file.remove}
          </Button>
        </li>
      ))}
    </ul>
  );
}

/** A file on its way: its progress bar, or (an alert) why it failed, with a button to dismiss it. */
function SendingFile({ entry, labels, onDismiss }: { entry: Sending; labels: FormRendererLabels; onDismiss(): void }) {
  return (
    <div className={styles.fileItem} role={entry.error ? "alert" : undefined}>
      <span className={styles.fileName}>{entry.name}</span>
      {entry.error ? (
        <span className="cs-field-error">{entry.error}</span>
      ) : (
        <progress
          className={styles.progress}
          max={1}
          value={entry.progress}
          aria-label={labels.file.uploading.replace("{name}", entry.name)}
        />
      )}
      {entry.error ? (
        <Button size="small" variant="ghost" onClick={onDismiss}>
          {labels.file.remove}
        </Button>
      ) : null}
    </div>
  );
}
