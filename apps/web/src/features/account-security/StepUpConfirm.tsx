"use client";

import type { StepUpInput, StepUpMethods } from "@clinsign/contracts";
import { Button, Icon, type IconName } from "@clinsign/ui";
import { useState, type FormEvent } from "react";
import { useI18n } from "../../i18n/I18nProvider";
import { StepUp, useStepUp } from "./StepUp";
import styles from "./account-security.module.css";

/**
 * A change to the account's sign-in, asked twice in place: the button, then the question with the
 * step-up, the action and "Cancel". `onConfirm` makes the call; a wrong step-up is shown at its
 * field and the question stays open, any other failure closes it and goes to `onError`.
 */
export function StepUpConfirm({
  confirming,
  onConfirmingChange,
  question,
  action,
  icon,
  danger = false,
  ariaLabel,
  methods,
  onConfirm,
  onError,
}: {
  confirming: boolean;
  onConfirmingChange(confirming: boolean): void;
  question: string;
  /** The label of both the first button and the confirming one. */
  action: string;
  icon: IconName;
  /** A destructive action: outlined in danger first, then a danger button. */
  danger?: boolean;
  /** The first button's accessible name where its label alone is ambiguous. */
  ariaLabel?: string;
  methods: StepUpMethods;
  onConfirm(stepUp: StepUpInput): Promise<unknown>;
  onError(error: unknown): void;
}) {
  const { t } = useI18n();
  const stepUp = useStepUp(methods);
  const [busy, setBusy] = useState(false);

  function toggle(open: boolean) {
    stepUp.reset();
    onConfirmingChange(open);
  }

  async function submit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const input = stepUp.read();
    if (!input) return;
    setBusy(true);
    try {
      await onConfirm(input);
      onConfirmingChange(false);
    } catch (error) {
      if (stepUp.fail(error)) return;
      onConfirmingChange(false);
      onError(error);
    } finally {
      setBusy(false);
    }
  }

  if (!confirming) {
    return (
      <Button
        variant={danger ? "danger-outline" : undefined}
        size="small"
        icon={<Icon name={icon} />}
        aria-label={ariaLabel}
        onClick={() => toggle(true)}
      >
        {action}
      </Button>
    );
  }
  return (
    <form className={styles.stepUpConfirm} onSubmit={submit} noValidate aria-label={ariaLabel ?? action}>
      <p>{question}</p>
      <StepUp stepUp={stepUp} autoFocus />
      <div className="cs-row">
        <Button type="submit" variant={danger ? "danger" : "primary"} size="small" busy={busy}>
          {action}
        </Button>
        <Button size="small" disabled={busy} onClick={() => toggle(false)}>
          {t.common.cancel}
        </Button>
      </div>
    </form>
  );
}
