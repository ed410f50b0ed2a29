"use client";

import type { SigningState } from "@clinsign/contracts";
import { Button, Dialog, Notice } from "@clinsign/ui";
import { useMutation } from "@tanstack/react-query";
import { useId, useState, type FormEvent } from "react";
import { usePatientI18n } from "../../i18n/I18nProvider";
import { describeApiError, readApiError } from "../../trpc/errors";
import { closedState } from "./closed-state";
import styles from "./signing.module.css";

const MAX_REASON = 1000;

/**
 * Confirms declining, with an optional reason for the clinic. `submit` sends it: the patient page
 * with its signing pass (`signing.decline`), the console with the staff session.
 */
export function DeclineDialog({
  open,
  submit,
  onClose,
  onDeclined,
  onClosed,
  onSessionEnded,
}: {
  open: boolean;
  submit(reason: string | undefined): Promise<unknown>;
  onClose(): void;
  onDeclined(): void;
  onClosed(state: SigningState): void;
  onSessionEnded(): void;
}) {
  const { t } = usePatientI18n();
  const [reason, setReason] = useState("");
  const [error, setError] = useState<string | null>(null);
  const reasonId = useId();
  const decline = useMutation({ mutationFn: submit });

  function onSubmit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    if (decline.isPending) return;
    setError(null);
    decline.mutate(reason.trim() || undefined, {
      onSuccess: onDeclined,
      onError: (cause) => {
        const apiError = readApiError(cause);
        const closed = closedState(apiError);
        if (apiError.code === "UNAUTHORIZED") onSessionEnded();
        else if (closed) onClosed(closed);
        else setError(describeApiError(apiError, t));
      },
    });
  }

  const formId = `${reasonId}-form`;
  return (
    <Dialog
      open={open}
      onClose={onClose}
      role="alertdialog"
      title={t.signing.declineTitle}
      description={t.signing.declineDescription}
      closeLabel={t.common.close}
      footer={
        <>
          <Button onClick={onClose} data-autofocus disabled={decline.isPending}>
            {t.common.cancel}
          </Button>
          <Button type="submit" form={formId} variant="danger" busy={decline.isPending}>
            {t.signing.declineConfirm}
          </Button>
        </>
      }
    >
      <form id={formId} className="cs-stack" onSubmit={onSubmit} noValidate>
        <div className="cs-field">
          <label htmlFor={reasonId} className="cs-label">
            {t.signing.declineReasonLabel}
          </label>
          <span id={`${reasonId}-hint`} className="cs-hint">
            {t.signing.declineReasonHint}
          </span>
          <textarea
            id={reasonId}
            name="declineReason"
            className={`cs-input ${styles.textarea}`}
            rows={4}
            maxLength={MAX_REASON}
            aria-describedby={`${reasonId}-hint`}
            value={reason}
            onChange={(event) => setReason(event.currentTarget.value)}
          />
        </div>
        {error ? (
          <Notice tone="danger" role="alert" title={t.signing.declineFailed}>
            {error}
          </Notice>
        ) : null}
      </form>
    </Dialog>
  );
}
