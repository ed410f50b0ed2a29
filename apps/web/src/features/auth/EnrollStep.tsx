"use client";

import type { TotpSetup as TotpSetupData } from "@clinsign/contracts";
import { Button, Icon } from "@clinsign/ui";
import { useMutation } from "@tanstack/react-query";
import { useState } from "react";
import { useI18n } from "../../i18n/I18nProvider";
import { useTRPC } from "../../trpc/client";
import { readApiError } from "../../trpc/errors";
import { RecoveryCodes } from "../account-security/RecoveryCodes";
import { TotpSetup } from "../account-security/TotpSetup";
import { createPasskey, passkeyProblem } from "../account-security/webauthn";
import { SignInAlert } from "./SignInAlert";
import styles from "./LoginForm.module.css";

/**
 * Where the organization requires a second factor and the account has none: set one up right
 * after the password. Confirming it opens the session; the recovery codes are shown before the
 * console.
 */
export function EnrollStep({
  onSignedIn,
  onRestart,
  backLabel,
}: {
  onSignedIn: () => void;
  onRestart: (expired: boolean) => void;
  /** The way back, where it is not to the e-mail and password. */
  backLabel?: string;
}) {
  const { t } = useI18n();
  const trpc = useTRPC();
  const [setup, setSetup] = useState<TotpSetupData | null>(null);
  const [codes, setCodes] = useState<string[] | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [codeError, setCodeError] = useState<string | null>(null);
  const [passkeyBusy, setPasskeyBusy] = useState(false);

  function explain(failure: unknown): string {
    const apiError = readApiError(failure);
    if (apiError.details.reason === "sign_in_expired") onRestart(true);
    return apiError.code === undefined ? t.errors.network : t.errors.generic;
  }

  const start = useMutation(
    trpc.auth.enrollTotpStart.mutationOptions({ onSuccess: setSetup, onError: (e) => setError(explain(e)) }),
  );
  const confirm = useMutation(
    trpc.auth.enrollTotpConfirm.mutationOptions({
      onSuccess: (data) => (data.recoveryCodes ? setCodes(data.recoveryCodes) : onSignedIn()),
      onError: (e) => setCodeError(readApiError(e).code === "BAD_REQUEST" ? t.login.wrongCode : explain(e)),
    }),
  );
  const passkeyOptions = useMutation(trpc.auth.enrollPasskeyOptions.mutationOptions());
  const passkeyVerify = useMutation(trpc.auth.enrollPasskeyVerify.mutationOptions());

  async function withPasskey() {
    setError(null);
    setPasskeyBusy(true);
    try {
      const outcome = await createPasskey(await passkeyOptions.mutateAsync());
      if (!outcome.ok) {
        setError(passkeyProblem(outcome.reason, t, "security"));
        return;
      }
      const done = await passkeyVerify.mutateAsync({
        name: t.security.passkeyNameDefault,
        response: outcome.response,
      });
      if (done.recoveryCodes) setCodes(done.recoveryCodes);
      else onSignedIn();
    } catch (failure) {
      setError(readApiError(failure).code === "BAD_REQUEST" ? t.security.passkeyFailed : explain(failure));
    } finally {
      setPasskeyBusy(false);
    }
  }

  if (codes) {
    return (
      <>
        <div className={styles.heading}>
          <h1>{t.security.recoveryTitle}</h1>
          <p className={styles.subtitle}>{t.security.recoveryDescription}</p>
        </div>
        <RecoveryCodes codes={codes} onDone={onSignedIn} doneLabel={t.login.continueToConsole} />
      </>
    );
  }

  return (
    <>
      <div className={styles.heading}>
        <h1>{t.login.enrollTitle}</h1>
        <p className={styles.subtitle}>{t.login.enrollSubtitle}</p>
      </div>
      <SignInAlert message={error} />
      {setup ? (
        <TotpSetup
          setup={setup}
          busy={confirm.isPending}
          error={codeError}
          onConfirm={(code) => confirm.mutate({ code })}
          onCancel={() => setSetup(null)}
        />
      ) : (
        <div className="cs-stack">
          <p className={styles.subtitle}>{t.login.enrollChoose}</p>
          <div className={styles.choice}>
            <strong>{t.login.enrollTotp}</strong>
            <p className={styles.subtitle}>{t.login.enrollTotpBody}</p>
            <Button variant="primary" block busy={start.isPending} onClick={() => start.mutate()}>
              {t.security.totpAdd}
            </Button>
          </div>
          <div className={styles.choice}>
            <strong>{t.login.enrollPasskey}</strong>
            <p className={styles.subtitle}>{t.login.enrollPasskeyBody}</p>
            <Button block icon={<Icon name="key" />} busy={passkeyBusy} onClick={withPasskey}>
              {t.security.passkeyAdd}
            </Button>
          </div>
        </div>
      )}
      <div className={styles.alternatives}>
        <Button variant="ghost" size="small" onClick={() => onRestart(false)}>
          {backLabel ?? t.login.backToPassword}
        </Button>
      </div>
    </>
  );
}
