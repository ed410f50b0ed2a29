"use client";

import type { LoginResult } from "@clinsign/contracts";
import { Button, Icon, TextField } from "@clinsign/ui";
import { useMutation } from "@tanstack/react-query";
import { useRef, useState, type FormEvent, type RefObject } from "react";
import type { Dictionary } from "../../i18n";
import { useI18n } from "../../i18n/I18nProvider";
import { useTRPC } from "../../trpc/client";
import { readApiError } from "../../trpc/errors";
import { getPasskeyAssertion, passkeyProblem } from "../account-security/webauthn";
import { rateLimitedText } from "./sign-in-errors";
import { SignInAlert } from "./SignInAlert";
import { StepAlternatives, StepHeading } from "./StepHeading";
import styles from "./LoginForm.module.css";

type Methods = NonNullable<LoginResult["methods"]>;
type CodeMethod = "totp" | "recovery";

/**
 * A refused second step in words, or `null` where the pending sign-in expired: then it starts over
 * (`onRestart(true)`), which says so itself.
 */
function explainFailure(failure: unknown, t: Dictionary, onRestart: (expired: boolean) => void): string | null {
  const apiError = readApiError(failure);
  if (apiError.details.reason === "sign_in_expired") {
    onRestart(true);
    return null;
  }
  if (apiError.code === "TOO_MANY_REQUESTS") return rateLimitedText(apiError, t);
  if (apiError.code === "UNAUTHORIZED") return t.login.wrongCode;
  return apiError.code === undefined ? t.errors.network : t.errors.generic;
}

/** The passkey answer to the second step; what goes wrong shows in the step's error slot (`onError`). */
function usePasskeyAnswer(
  onVerified: (result: LoginResult) => void,
  onRestart: (expired: boolean) => void,
  onError: (message: string | null) => void,
) {
  const { t } = useI18n();
  const trpc = useTRPC();
  const [busy, setBusy] = useState(false);
  const passkeyOptions = useMutation(trpc.auth.passkeyOptions.mutationOptions());
  const verifyPasskey = useMutation(trpc.auth.verifyPasskey.mutationOptions());

  async function answer() {
    onError(null);
    setBusy(true);
    try {
      const outcome = await getPasskeyAssertion(await passkeyOptions.mutateAsync({ secondStep: true }));
      if (!outcome.ok) {
        onError(passkeyProblem(outcome.reason, t, "login"));
        return;
      }
      onVerified(await verifyPasskey.mutateAsync({ response: outcome.response }));
    } catch (failure) {
      const text = explainFailure(failure, t, onRestart);
      onError(text === t.login.wrongCode ? t.login.passkeyFailed : text);
    } finally {
      setBusy(false);
    }
  }
  return { busy, answer };
}

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
  const [method, setMethod] = useState<CodeMethod>(methods.totp ? "totp" : "recovery");
  const [code, setCode] = useState("");
  const [error, setError] = useState<string | null>(null);
  const codeRef = useRef<HTMLInputElement>(null);
  const passkey = usePasskeyAnswer(onVerified, onRestart, setError);

  const verifyCode = useMutation(
    trpc.auth.verifyCode.mutationOptions({
      onSuccess: onVerified,
      onError: (failure) => {
        setError(explainFailure(failure, t, onRestart));
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

  function switchTo(next: CodeMethod) {
    setMethod(next);
    setCode("");
    setError(null);
  }

  return (
    <>
      <StepHeading title={t.login.secondStepTitle} subtitle={t.login.secondStepSubtitle} />
      <SignInAlert message={error} />
      {methods.passkey ? (
        <Button
          variant={methods.totp ? "secondary" : "primary"}
          block
          icon={<Icon name="key" />}
          busy={passkey.busy}
          onClick={passkey.answer}
        >
          {t.login.usePasskey}
        </Button>
      ) : null}
      {methods.totp || methods.recoveryCode ? (
        <CodeForm
          methods={methods}
          method={method}
          code={code}
          codeRef={codeRef}
          busy={verifyCode.isPending || verifyCode.isSuccess}
          onCodeChange={setCode}
          onSubmit={submit}
        />
      ) : null}
      <StepAlternatives backLabel={backLabel} onBack={() => onRestart(false)}>
        <CodeMethodSwitch methods={methods} method={method} onSwitch={switchTo} />
      </StepAlternatives>
    </>
  );
}

/** The code from the app or a recovery code, and Verify. */
function CodeForm({
  methods,
  method,
  code,
  codeRef,
  busy,
  onCodeChange,
  onSubmit,
}: {
  methods: Methods;
  method: CodeMethod;
  code: string;
  codeRef: RefObject<HTMLInputElement | null>;
  busy: boolean;
  onCodeChange: (code: string) => void;
  onSubmit: (event: FormEvent<HTMLFormElement>) => void;
}) {
  const { t } = useI18n();
  return (
    <form className={styles.form} method="post" onSubmit={onSubmit} noValidate>
      <TextField
        ref={codeRef}
        key={method}
        label={method === "totp" ? t.login.totpLabel : t.login.recoveryLabel}
        hint={method === "totp" ? t.login.totpHint : t.login.recoveryHint}
        name={method === "totp" ? "totp" : "recovery-code"}
        inputMode={method === "totp" ? "numeric" : "text"}
        autoComplete={method === "totp" ? "one-time-code" : "off"}
        autoCapitalize="none"
        spellCheck={false}
        autoFocus={!methods.passkey}
        value={code}
        onChange={(event) => onCodeChange(event.currentTarget.value)}
      />
      <Button type="submit" variant={methods.passkey && !methods.totp ? "secondary" : "primary"} block busy={busy}>
        {t.login.verify}
      </Button>
    </form>
  );
}

/** The switch between a code from the app and a recovery code, where the account has both kinds. */
function CodeMethodSwitch({
  methods,
  method,
  onSwitch,
}: {
  methods: Methods;
  method: CodeMethod;
  onSwitch: (method: CodeMethod) => void;
}) {
  const { t } = useI18n();
  if (methods.totp && method === "totp" && methods.recoveryCode)
    return (
      <Button variant="ghost" size="small" onClick={() => onSwitch("recovery")}>
        {t.login.useRecoveryCode}
      </Button>
    );
  if (methods.totp && method === "recovery")
    return (
      <Button variant="ghost" size="small" onClick={() => onSwitch("totp")}>
        {t.login.useTotp}
      </Button>
    );
  return null;
}
