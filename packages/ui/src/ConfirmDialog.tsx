"use client";

import type { ReactNode } from "react";
import { Button } from "./Button";
import { Dialog } from "./Dialog";
import { Notice } from "./Notice";

export interface ConfirmDialogProps {
  open: boolean;
  /** Cancel, the close button and Escape. */
  onCancel(): void;
  onConfirm(): void;
  title: ReactNode;
  description?: ReactNode;
  confirmLabel: ReactNode;
  cancelLabel: ReactNode;
  /** Accessible name of the close (×) button. */
  closeLabel: string;
  /** `danger` for what cannot be undone; `primary` for a weighty step that can. */
  tone?: "danger" | "primary";
  /** While the action runs: confirm shows it, cancel waits. */
  busy?: boolean;
  confirmDisabled?: boolean;
  /** Why the last attempt failed, announced as an alert. */
  error?: ReactNode;
  children?: ReactNode;
}

/**
 * Asks before an action (revoke, deactivate, delete, erase, rotate): an `alertdialog` whose focus
 * starts on Cancel, so Enter never confirms by accident; the action's failure shows inside it.
 */
export function ConfirmDialog({
  open,
  onCancel,
  onConfirm,
  title,
  description,
  confirmLabel,
  cancelLabel,
  closeLabel,
  tone = "danger",
  busy = false,
  confirmDisabled,
  error,
  children,
}: ConfirmDialogProps) {
  return (
    <Dialog
      open={open}
      role="alertdialog"
      onClose={onCancel}
      title={title}
      description={description}
      closeLabel={closeLabel}
      footer={
        <>
          <Button onClick={onCancel} disabled={busy} data-autofocus>
            {cancelLabel}
          </Button>
          <Button variant={tone} busy={busy} disabled={confirmDisabled} onClick={onConfirm}>
            {confirmLabel}
          </Button>
        </>
      }
    >
      {children || error ? (
        <>
          {children}
          {error ? (
            <Notice tone="danger" role="alert">
              {error}
            </Notice>
          ) : null}
        </>
      ) : null}
    </Dialog>
  );
}
