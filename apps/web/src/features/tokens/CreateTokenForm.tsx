"use client";

import { createTokenInput } from "@clinsign/contracts";
import { Button, Card, CopyField, Dialog, Icon, Notice, TextField, type CopyFieldLabels } from "@clinsign/ui";
import { useMutation, useQueryClient } from "@tanstack/react-query";
import { useRef, useState, type FormEvent, type RefObject } from "react";
import { format } from "../../i18n";
import { useI18n } from "../../i18n/I18nProvider";
import { useTRPC } from "../../trpc/client";
import { describeApiError, readApiError, translateValidationMessage } from "../../trpc/errors";
import styles from "./tokens.module.css";

interface CreatedToken {
  name: string;
  token: string;
}

/** Creating an API token: its name, checked like the API checks it, and the token shown once. */
export function CreateTokenForm({
  organizationId,
  copyLabels,
  onAnnounce,
}: {
  organizationId: string;
  copyLabels: CopyFieldLabels;
  onAnnounce(text: string): void;
}) {
  const { t } = useI18n();
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const [name, setName] = useState("");
  const [nameError, setNameError] = useState<string | null>(null);
  const [formError, setFormError] = useState<string | null>(null);
  const [created, setCreated] = useState<CreatedToken | null>(null);
  const nameRef = useRef<HTMLInputElement>(null);
  /** The name's message, in the reader's language, and the focus on the name to correct it. */
  const refuseName = (message: string) => {
    setNameError(translateValidationMessage(message, t));
    nameRef.current?.focus();
  };

  const create = useMutation(
    trpc.tokens.create.mutationOptions({
      onSuccess: (result) => {
        setCreated({ name: result.summary.name, token: result.token });
        setName("");
        onAnnounce(format(t.tokens.createdAnnouncement, { name: result.summary.name }));
        void queryClient.invalidateQueries({ queryKey: trpc.tokens.list.queryKey() });
      },
      onError: (error) => {
        const apiError = readApiError(error);
        const fieldError = apiError.fieldErrors.find((issue) => issue.key === "name");
        if (fieldError) refuseName(fieldError.message);
        else setFormError(describeApiError(apiError, t));
      },
    }),
  );

  function onSubmit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    setFormError(null);
    const parsed = createTokenInput.safeParse({ name });
    if (!parsed.success) return refuseName(parsed.error.issues[0]?.message ?? "");
    setNameError(null);
    create.mutate(parsed.data);
  }

  return (
    <Card title={t.tokens.createTitle} description={t.tokens.createDescription}>
      <TokenNameForm
        nameRef={nameRef}
        name={name}
        error={nameError}
        busy={create.isPending}
        onNameChange={setName}
        onSubmit={onSubmit}
      />
      {formError ? (
        <div className={styles.formError}>
          <Notice tone="danger" role="alert">
            {formError}
          </Notice>
        </div>
      ) : null}

      <CreatedTokenDialog
        created={created}
        organizationId={organizationId}
        copyLabels={copyLabels}
        onClose={() => setCreated(null)}
      />
    </Card>
  );
}

/** The name of the token to create, and the button that creates it. */
function TokenNameForm({
  nameRef,
  name,
  error,
  busy,
  onNameChange,
  onSubmit,
}: {
  nameRef: RefObject<HTMLInputElement | null>;
  name: string;
  error: string | null;
  busy: boolean;
  onNameChange(name: string): void;
  onSubmit(event: FormEvent<HTMLFormElement>): void;
}) {
  const { t } = useI18n();
  return (
    <form className={styles.createForm} onSubmit={onSubmit} noValidate>
      <TextField
        ref={nameRef}
        className={styles.createName}
        label={t.tokens.nameLabel}
        name="tokenName"
        placeholder={t.tokens.namePlaceholder}
        autoComplete="off"
        maxLength={100}
        value={name}
        onChange={(event) => onNameChange(event.currentTarget.value)}
        error={error}
      />
      <Button type="submit" variant="primary" icon={<Icon name="plus" />} busy={busy} className={styles.createButton}>
        {t.tokens.createButton}
      </Button>
    </form>
  );
}

/** The new token, shown this once beside the organization id, with the warning to store it now. */
function CreatedTokenDialog({
  created,
  organizationId,
  copyLabels,
  onClose,
}: {
  created: CreatedToken | null;
  organizationId: string;
  copyLabels: CopyFieldLabels;
  onClose(): void;
}) {
  const { t } = useI18n();
  return (
    <Dialog
      open={created !== null}
      onClose={onClose}
      title={t.tokens.createdTitle}
      description={created?.name}
      closeLabel={t.common.close}
      footer={
        <Button variant="primary" onClick={onClose}>
          {t.tokens.createdDone}
        </Button>
      }
    >
      {created ? (
        <>
          <Notice tone="warning" title={t.tokens.createdWarning}>
            {t.tokens.createdBody}
          </Notice>
          <CopyField label={t.tokens.tokenLabel} value={created.token} labels={copyLabels} testId="new-token" />
          <CopyField label={t.tokens.orgIdLabel} hint={t.tokens.orgIdHint} value={organizationId} labels={copyLabels} />
        </>
      ) : null}
    </Dialog>
  );
}
