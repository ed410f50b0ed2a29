"use client";

import { Button, Icon, Notice } from "@clinsign/ui";
import { useState } from "react";
import { useI18n } from "../../i18n/I18nProvider";
import styles from "./account-security.module.css";

/** New recovery codes, shown once: a list to write down or copy, and a button to say they are saved. */
export function RecoveryCodes({
  codes,
  onDone,
  doneLabel,
}: {
  codes: string[];
  onDone: () => void;
  doneLabel?: string;
}) {
  const { t } = useI18n();
  const [copied, setCopied] = useState(false);
  async function copy() {
    try {
      await navigator.clipboard.writeText(codes.join("\n"));
      setCopied(true);
    } catch {
      setCopied(false);
    }
  }
  return (
    <div className="cs-stack" data-testid="recovery-codes">
      <Notice tone="warning">{t.security.recoveryShownOnce}</Notice>
      <ol className={styles.codes} aria-label={t.security.recoveryCodesLabel}>
        {codes.map((code) => (
          <li key={code}>
            <code>{code}</code>
          </li>
        ))}
      </ol>
      <div className="cs-row">
        <Button icon={<Icon name={copied ? "check" : "copy"} />} onClick={copy}>
          {copied ? t.common.copied : t.security.recoveryCopy}
        </Button>
        <Button variant="primary" onClick={onDone}>
          {doneLabel ?? t.security.recoverySaved}
        </Button>
      </div>
    </div>
  );
}
