"use client";

import type { TotpSetup as TotpSetupData } from "@clinsign/contracts";
import { Button, CopyField, TextField } from "@clinsign/ui";
import { useRef, useState, type FormEvent, type ReactNode } from "react";
import { useI18n } from "../../i18n/I18nProvider";
import { QrCode } from "../signature-requests/QrCode";
import styles from "./account-security.module.css";

/**
 * Setting up an authenticator app: the QR code of the otpauth URI, the key for typing it in, and
 * the first code to confirm. `error` comes from the caller's confirm call; `children` go between
 * the code and the buttons (the security page's step-up).
 */
export function TotpSetup({
  setup,
  busy,
  error,
  onConfirm,
  onCancel,
  children,
}: {
  setup: TotpSetupData;
  busy: boolean;
  error: string | null;
  onConfirm: (code: string) => void;
  onCancel?: () => void;
  children?: ReactNode;
}) {
  const { t } = useI18n();
  const [code, setCode] = useState("");
  const [localError, setLocalError] = useState<string | null>(null);
  const codeRef = useRef<HTMLInputElement>(null);
  const grouped = setup.secret.replace(/(.{4})/g, "$1 ").trim();

  function submit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const digits = code.replace(/\s/g, "");
    if (!/^\d{6}$/.test(digits)) {
      setLocalError(t.login.totpHint);
      codeRef.current?.focus();
      return;
    }
    setLocalError(null);
    onConfirm(digits);
  }

  return (
    <div className={styles.totpSetup} data-testid="totp-setup">
      <div className={styles.qrColumn}>
        <p>{t.security.totpScan}</p>
        <QrCode value={setup.uri} label={t.security.totpQrLabel} />
      </div>
      <div className="cs-stack">
        <CopyField
          label={t.security.totpManualLabel}
          hint={t.security.totpManual}
          value={grouped}
          labels={{ copy: t.common.copy, copied: t.common.copied, copyManually: t.common.copyManually }}
          testId="totp-secret"
        />
        <form className="cs-stack" onSubmit={submit} noValidate>
          <p>{t.security.totpEnterCode}</p>
          <TextField
            ref={codeRef}
            label={t.security.totpCodeLabel}
            name="totp-code"
            inputMode="numeric"
            autoComplete="one-time-code"
            hint={t.login.totpHint}
            value={code}
            maxLength={7}
            onChange={(event) => setCode(event.currentTarget.value)}
            error={localError ?? error ?? undefined}
          />
          {children}
          <div className="cs-row">
            <Button type="submit" variant="primary" busy={busy}>
              {t.security.totpConfirm}
            </Button>
            {onCancel ? <Button onClick={onCancel}>{t.common.cancel}</Button> : null}
          </div>
        </form>
      </div>
    </div>
  );
}
