"use client";

import { useEffect, useRef, useState, type ReactNode } from "react";
import { Button } from "./Button";
import { Field } from "./Field";
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
    <Field label={label} hideLabel={hideLabel} hint={hint}>
      {(attributes) => (
        <>
          <div className="cs-copy-field__row">
            <input
              ref={inputRef}
              {...attributes}
              className="cs-input cs-input--mono"
              value={value}
              readOnly
              spellCheck={false}
              data-testid={testId}
              onFocus={(event) => event.currentTarget.select()}
            />
            <Button
              variant="secondary"
              icon={<Icon name={status?.tone === "success" ? "check" : "copy"} />}
              onClick={copy}
            >
              {labels.copy}
            </Button>
          </div>
          <span className="cs-copy-field__status" role="status" aria-live="polite" data-tone={status?.tone}>
            {status?.text ?? ""}
          </span>
        </>
      )}
    </Field>
  );
}
