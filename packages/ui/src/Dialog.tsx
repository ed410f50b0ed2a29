"use client";

import { useEffect, useId, useRef, useState, type ReactNode } from "react";
import { createPortal } from "react-dom";
import { Button } from "./Button";
import { Icon } from "./Icon";

export interface DialogProps {
  open: boolean;
  /** Called when the dialog closes by Escape, the close button, or the app's own buttons. */
  onClose(): void;
  title: ReactNode;
  description?: ReactNode;
  /** Accessible name of the close (×) button. */
  closeLabel: string;
  children?: ReactNode;
  footer?: ReactNode;
  /** `alertdialog` for confirmations of destructive actions. */
  role?: "dialog" | "alertdialog";
}

/**
 * A modal on the native <dialog> element: the browser traps focus, closes it on Escape and
 * returns focus to the element that opened it. It is rendered into <body>, so a dialog opened
 * from inside a <form> never submits that form (Enter in a dialog field).
 */
export function Dialog({
  open,
  onClose,
  title,
  description,
  closeLabel,
  children,
  footer,
  role = "dialog",
}: DialogProps) {
  const ref = useRef<HTMLDialogElement>(null);
  const titleId = useId();
  const descriptionId = useId();
  // document.body exists only in the browser, after the first render.
  const [container, setContainer] = useState<HTMLElement | null>(null);
  useEffect(() => setContainer(document.body), []);

  useEffect(() => {
    const dialog = ref.current;
    if (!dialog) return;
    if (open && !dialog.open) {
      dialog.showModal();
      // showModal() focuses the first focusable element (the × button); a child marked
      // data-autofocus (e.g. Cancel in a confirmation) is the better place to start.
      dialog.querySelector<HTMLElement>("[data-autofocus]")?.focus();
    }
    if (!open && dialog.open) dialog.close();
  }, [open, container]);

  if (!container) return null;
  return createPortal(
    <dialog
      ref={ref}
      className="cs-dialog"
      role={role === "alertdialog" ? "alertdialog" : undefined}
      aria-modal="true"
      aria-labelledby={titleId}
      aria-describedby={description ? descriptionId : undefined}
      onClose={() => {
        if (open) onClose();
      }}
    >
      {open ? (
        <>
          <div className="cs-dialog__header">
            <div className="cs-card__heading">
              <h2 id={titleId}>{title}</h2>
              {description ? (
                <p id={descriptionId} className="cs-card__description">
                  {description}
                </p>
              ) : null}
            </div>
            <Button variant="ghost" iconOnly aria-label={closeLabel} onClick={onClose}>
              <Icon name="close" />
            </Button>
          </div>
          {children ? <div className="cs-dialog__body">{children}</div> : null}
          {footer ? <div className="cs-dialog__footer">{footer}</div> : null}
        </>
      ) : null}
    </dialog>,
    container,
  );
}
