"use client";

import type { LoginResult } from "@clinsign/contracts";
import { Button, Icon, TextField } from "@clinsign/ui";
import { useMutation } from "@tanstack/react-query";
import { useRef, useState, type FormEvent } from "react";
import { format } from "../../i18n";
import { useI18n } from "../../i18n/I18nProvider";
import { useTRPC } from "../../trpc/client";
import { readApiError, retryAfterMinutes } from "../../trpc/errors";
import { getPasskeyAssertion, passkeyProblem } from "../account-security/webauthn";
import { SignInAlert } from "./SignInAlert";
import styles from "./LoginForm.module.css";

type Methods = NonNullable<LoginResult["methods"]>;

/**
 * The second step after the password: a code from the app, a passkey, or a recovery code. Used by
 * the login, the invitation and connecting single sign-on; each says what the answer leads to.
 */
export function SecondFactorStep({
  methods,
  onVerified,
  onRestart,
  backLabel,
}: {
  methods: Methods;
  /** The step's answer: `done`, or `confirm_link` when connecting single sign-on. */
  onVerified: (result: LoginResult) => void;
  onRestart: (expired: boolean) => void;
  /** The way back, where it is not to the e-mail and password. */
  backLabel?: string;
}) {
  const { t } = useI18n();
  const trpc = useTRPC();
  const [method, setMethod] = useState<"totp" | "recovery">(methods.totp ? "totp" : "recovery");
  const [code, setCode] = useState("");
  const [error, setError] = useState<string | null>(null);
  const [passkeyBusy, setPasskeyBusy] = useState(false);
  const codeRef = useRef<HTMLInputElement>(null);
  const passkeyOptions = useMutation(trpc.auth.passkeyOptions.mutationOptions());
  const verifyPasskey = useMutation(trpc.auth.verifyPasskey.mutationOptions());

  function explain(failure: unknown): string | null {
    const apiError = readApiError(failure);
    if (apiError.details.reason === "sign_in_expired") {
      onRestart(true);
      return null;
    }
    if (apiError.code === "TOO_MANY_REQUESTS") {
      const minutes = retryAfterMinutes(apiError);
      return minutes ? format(t.login.rateLimitedMinutes, { minutes }) : t.login.rateLimited;
    }
    if (apiError.code === "UNAUTHORIZED") return t.login.wrongCode;
    return apiError.code === undefined ? t.errors.network : t.errors.generic;
  }

  const verifyCode = useMutation(
    trpc.auth.verifyCode.mutationOptions({
      onSuccess: onVerified,
      onError: (failure) => {
        setError(explain(failure));
        setCode("");
        codeRef.current?.focus();
      },
    }),
  );

  function submit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    setError(null);
    if (!code.trim()) {
      setError(t.validation.required);
      return codeRef.current?.focus();
    }
    verifyCode.mutate({ method, code: code.trim() });
  }

  async function withPasskey() {
    setError(null);
    setPasskeyBusy(true);
    try {
      const outcome = await getPasskeyAssertion(await passkeyOptions.mutateAsync({ secondStep: true }));
      if (!outcome.ok) {
        setError(passkeyProblem(outcome.reason, t, "login"));
        return;
      }
      onVerified(await verifyPasskey.mutateAsync({ response: outcome.response }));
    } catch (failure) {
      const text = explain(failure);
      setError(text === t.login.wrongCode ? t.login.passkeyFailed : text);
    } finally {
      setPasskeyBusy(false);
    }
  }

  const label = method === "totp" ? t.login.totpLabel : t.login.recoveryLabel;
  return (
    <>
      <div className={styles.heading}>
        <h1>{t.login.secondStepTitle}</h1>
        <p className={styles.subtitle}>{t.login.secondStepSubtitle}</p>
      </div>
      <SignInAlert message={error} />
      {methods.passkey ? (
        <Button
          variant={methods.totp ? "secondary" : "primary"}
          block
          icon={<Icon name="key" />}
          busy={passkeyBusy}
          onClick={withPasskey}
        >
          {t.login.usePasskey}
        </Button>
      ) : null}
      {methods.totp || methods.recoveryCode ? (
        <form className={styles.form} method="post" onSubmit={submit} noValidate>
          <TextField
            ref={codeRef}
            key={method}
            label={label}
            hint={method === "totp" ? t.login.totpHint : t.login.recoveryHint}
            name={method === "totp" ? "totp" : "recovery-code"}
            inputMode={method === "totp" ? "numeric" : "text"}
            autoComplete={method === "totp" ? "one-time-code" : "off"}
            autoCapitalize="none"
            spellCheck={false}
            autoFocus={!methods.passkey}
            value={code}
            onChange={(event) => setCode(event.currentTarget.value)}
          />
          <Button
            type="submit"
            variant={methods.passkey && !methods.totp ? "secondary" : "primary"}
            block
            busy={verifyCode.isPending || verifyCode.isSuccess}
          >
            {t.login.verify}
          </Button>
        </form>
      ) : null}
      <div className={styles.alternatives}>
        {methods.totp && method === "totp" && methods.recoveryCode ? (
          <Button variant="ghost" size="small" onClick={() => (setMethod("recovery"), setCode(""), setError(null))}>
            {t.login.useRecoveryCode}
          </Button>
        ) : null}
        {methods.totp && method === "recovery" ? (
          <Button variant="ghost" size="small" onClick={() => (setMethod("totp"), setCode(""), setError(null))}>
            {t.login.useTotp}
          </Button>
        ) : null}
        <Button variant="ghost" size="small" onClick={() => onRestart(false)}>
          {backLabel ?? t.login.backToPassword}
        </Button>
      </div>
    </>
  );
}
