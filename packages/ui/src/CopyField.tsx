"use client";

import { useEffect, useId, useRef, useState, type ReactNode } from "react";
import { Button } from "./Button";
import { Icon } from "./Icon";

export interface CopyFieldLabels {
  copy: string;
  copied: string;
  /** Shown when neither the Clipboard API nor the fallback worked; the text is left selected. */
  copyManually: string;
}

export interface CopyFieldProps {
  label: ReactNode;
  value: string;
  labels: CopyFieldLabels;
  hint?: ReactNode;
  hideLabel?: boolean;
  /** data-testid of the read-only input, for end-to-end tests. */
  testId?: string;
}

type Status = { tone: "success" | "danger"; text: string } | null;

/** A read-only value with a Copy button and a polite live region that says what happened. */
export function CopyField({ label, value, labels, hint, hideLabel, testId }: CopyFieldProps) {
  const inputRef = useRef<HTMLInputElement>(null);
  const [status, setStatus] = useState<Status>(null);
  const id = useId();
  const inputId = `copy${id}`;
  const hintId = hint ? `${inputId}-hint` : undefined;

  useEffect(() => {
    if (!status) return;
    const timer = window.setTimeout(() => setStatus(null), 5000);
    return () => window.clearTimeout(timer);
  }, [status]);

  async function copy() {
    try {
      if (!navigator.clipboard || !window.isSecureContext) throw new Error("clipboard unavailable");
      await navigator.clipboard.writeText(value);
      setStatus({ tone: "success", text: labels.copied });
    } catch {
      // Plain-HTTP origins and some browsers refuse the Clipboard API: select the text instead.
      const input = inputRef.current;
      input?.focus();
      input?.select();
      let copied = false;
      try {
        copied = document.execCommand("copy");
      } catch {
        copied = false;
      }
      setStatus(copied ? { tone: "success", text: labels.copied } : { tone: "danger", text: labels.copyManually });
    }
  }

  return (
    <div className="cs-field">
      <label htmlFor={inputId} className={hideLabel ? "cs-visually-hidden" : "cs-label"}>
        {label}
      </label>
      {hint ? (
        <span id={hintId} className="cs-hint">
          {hint}
        </span>
      ) : null}
      <div className="cs-copy-field__row">
        <input
          ref={inputRef}
          id={inputId}
          className="cs-input cs-input--mono"
          value={value}
          readOnly
          spellCheck={false}
          aria-describedby={hintId}
          data-testid={testId}
          onFocus={(event) => event.currentTarget.select()}
        />
        <Button variant="secondary" icon={<Icon name={status?.tone === "success" ? "check" : "copy"} />} onClick={copy}>
          {labels.copy}
        </Button>
      </div>
      <span className="cs-copy-field__status" role="status" aria-live="polite" data-tone={status?.tone}>
        {status?.text ?? ""}
      </span>
    </div>
  );
}
