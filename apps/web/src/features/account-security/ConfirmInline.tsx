"use client";

import { Button, Icon, type IconName } from "@clinsign/ui";
import { useI18n } from "../../i18n/I18nProvider";

/**
 * An action asked twice in place: the button, then the question with the action and "Cancel".
 * The caller holds `confirming`, so its mutation can close the question when it settles.
 */
export function ConfirmInline({
  confirming,
  onConfirmingChange,
  question,
  action,
  icon,
  danger = false,
  ariaLabel,
  busy,
  onConfirm,
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
  busy: boolean;
  onConfirm(): void;
}) {
  const { t } = useI18n();
  if (!confirming) {
    return (
      <Button
        variant={danger ? "danger-outline" : undefined}
        size="small"
        icon={<Icon name={icon} />}
        aria-label={ariaLabel}
        onClick={() => onConfirmingChange(true)}
      >
        {action}
      </Button>
    );
  }
  return (
    <span className="cs-row">
      <span>{question}</span>
      <Button variant={danger ? "danger" : "primary"} size="small" busy={busy} onClick={onConfirm}>
        {action}
      </Button>
      <Button size="small" onClick={() => onConfirmingChange(false)}>
        {t.common.cancel}
      </Button>
    </span>
  );
}
