"use client";

import type { TotpSetup as TotpSetupData } from "@clinsign/contracts";
import { Button, Icon } from "@clinsign/ui";
import { useMutation } from "@tanstack/react-query";
import { useState } from "react";
import type { Dictionary } from "../../i18n";
import { useI18n } from "../../i18n/I18nProvider";
import { useTRPC } from "../../trpc/client";
import { readApiError } from "../../trpc/errors";
import { RecoveryCodes } from "../account-security/RecoveryCodes";
import { TotpSetup } from "../account-security/TotpSetup";
import { createPasskey, passkeyProblem } from "../account-security/webauthn";
import { SignInAlert } from "./SignInAlert";
import { StepAlternatives, StepHeading } from "./StepHeading";
import styles from "./LoginForm.module.css";

/** A failed set-up step in words; where the pending sign-in expired, it also starts over (`onRestart(true)`). */
function explainFailure(failure: unknown, t: Dictionary, onRestart: (expired: boolean) => void): string {
  const apiError = readApiError(failure);
  if (apiError.details.reason === "sign_in_expired") onRestart(true);
  return apiError.code === undefined ? t.errors.network : t.errors.generic;
}

/** Setting up a passkey as the second factor; what goes wrong shows in the step's error slot (`onError`). */
function usePasskeyEnrollment({
  onCodes,
  onSignedIn,
  onRestart,
  onError,
}: {
  onCodes: (codes: string[]) => void;
  onSignedIn: () => void;
  onRestart: (expired: boolean) => void;
  onError: (message: string | null) => void;
}) {
  const { t } = useI18n();
  const trpc = useTRPC();
  const [busy, setBusy] = useState(false);
  const passkeyOptions = useMutation(trpc.auth.enrollPasskeyOptions.mutationOptions());
  const passkeyVerify = useMutation(trpc.auth.enrollPasskeyVerify.mutationOptions());

  async function enroll() {
    onError(null);
    setBusy(true);
    try {
      const outcome = await createPasskey(await passkeyOptions.mutateAsync());
      if (!outcome.ok) {
        onError(passkeyProblem(outcome.reason, t, "security"));
        return;
      }
      const done = await passkeyVerify.mutateAsync({
        name: t.security.passkeyNameDefault,
        response: outcome.response,
      });
      if (done.recoveryCodes) onCodes(done.recoveryCodes);
      else onSignedIn();
    } catch (failure) {
      onError(
        readApiError(failure).code === "BAD_REQUEST" ? t.security.passkeyFailed : explainFailure(failure, t, onRestart),
      );
    } finally {
      setBusy(false);
    }
  }
  return { busy, enroll };
}

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
  const explain = (failure: unknown) => explainFailure(failure, t, onRestart);

  const start = useMutation(
    trpc.auth.enrollTotpStart.mutationOptions({ onSuccess: setSetup, onError: (e) => setError(explain(e)) }),
  );
  const confirm = useMutation(
    trpc.auth.enrollTotpConfirm.mutationOptions({
      onSuccess: (data) => (data.recoveryCodes ? setCodes(data.recoveryCodes) : onSignedIn()),
      onError: (e) => setCodeError(readApiError(e).code === "BAD_REQUEST" ? t.login.wrongCode : explain(e)),
    }),
  );
  const passkey = usePasskeyEnrollment({ onCodes: setCodes, onSignedIn, onRestart, onError: setError });

  if (codes) {
    return (
      <>
        <StepHeading title={t.security.recoveryTitle} subtitle={t.security.recoveryDescription} />
        <RecoveryCodes codes={codes} onDone={onSignedIn} doneLabel={t.login.continueToConsole} />
      </>
    );
  }

  return (
    <>
      <StepHeading title={t.login.enrollTitle} subtitle={t.login.enrollSubtitle} />
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
        <EnrollChoices
          totpBusy={start.isPending}
          passkeyBusy={passkey.busy}
          onTotp={() => start.mutate()}
          onPasskey={passkey.enroll}
        />
      )}
      <StepAlternatives backLabel={backLabel} onBack={() => onRestart(false)} />
    </>
  );
}

/** The two factors to set up: an authenticator app's codes or a passkey. */
function EnrollChoices({
  totpBusy,
  passkeyBusy,
  onTotp,
  onPasskey,
}: {
  totpBusy: boolean;
  passkeyBusy: boolean;
  onTotp: () => void;
  onPasskey: () => void;
}) {
  const { t } = useI18n();
  return (
    <div className="cs-stack">
      <p className={styles.subtitle}>{t.login.enrollChoose}</p>
      <div className={styles.choice}>
        <strong>{t.login.enrollTotp}</strong>
        <p className={styles.subtitle}>{t.login.enrollTotpBody}</p>
        <Button variant="primary" block busy={totpBusy} onClick={onTotp}>
          {t.security.totpAdd}
        </Button>
      </div>
      <div className={styles.choice}>
        <strong>{t.login.enrollPasskey}</strong>
        <p className={styles.subtitle}>{t.login.enrollPasskeyBody}</p>
        <Button block icon={<Icon name="key" />} busy={passkeyBusy} onClick={onPasskey}>
          {t.security.passkeyAdd}
        </Button>
      </div>
    </div>
  );
}
