"use client";

import { createTokenInput } from "@clinsign/contracts";
import { Button, Card, CopyField, Dialog, Icon, Notice, TextField, type CopyFieldLabels } from "@clinsign/ui";
import { useMutation, useQueryClient } from "@tanstack/react-query";
import { useRef, useState, type FormEvent } from "react";
import { format } from "../../i18n";
import { useI18n } from "../../i18n/I18nProvider";
import { useTRPC } from "../../trpc/client";
import { describeApiError, readApiError, translateValidationMessage } from "../../trpc/errors";
import styles from "./tokens.module.css";

interface CreatedToken {
  name: string;
  token: string;
}

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
        if (fieldError) {
          setNameError(translateValidationMessage(fieldError.message, t));
          nameRef.current?.focus();
        } else setFormError(describeApiError(apiError, t));
      },
    }),
  );

  function onSubmit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    setFormError(null);
    const parsed = createTokenInput.safeParse({ name });
    if (!parsed.success) {
      setNameError(translateValidationMessage(parsed.error.issues[0]?.message ?? "", t));
      nameRef.current?.focus();
      return;
    }
    setNameError(null);
    create.mutate(parsed.data);
  }

  return (
    <Card title={t.tokens.createTitle} description={t.tokens.createDescription}>
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
          onChange={(event) => setName(event.currentTarget.value)}
          error={nameError}
        />
        <Button
          type="submit"
          variant="primary"
          icon={<Icon name="plus" />}
          busy={create.isPending}
          className={styles.createButton}
        >
          {t.tokens.createButton}
        </Button>
      </form>
      {formError ? (
        <div className={styles.formError}>
          <Notice tone="danger" role="alert">
            {formError}
          </Notice>
        </div>
      ) : null}

      <Dialog
        open={created !== null}
        onClose={() => setCreated(null)}
        title={t.tokens.createdTitle}
        description={created?.name}
        closeLabel={t.common.close}
        footer={
          <Button variant="primary" onClick={() => setCreated(null)}>
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
            <CopyField
              label={t.tokens.orgIdLabel}
              hint={t.tokens.orgIdHint}
              value={organizationId}
              labels={copyLabels}
            />
          </>
        ) : null}
      </Dialog>
    </Card>
  );
}
