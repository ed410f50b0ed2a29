"use client";

import type { StepUpInput, StepUpMethods } from "@clinsign/contracts";
import { Button, Field, Icon } from "@clinsign/ui";
import { useMutation, useQueryClient } from "@tanstack/react-query";
import { useRef, useState } from "react";
import type { Dictionary } from "../../i18n";
import { useI18n } from "../../i18n/I18nProvider";
import { useTRPC } from "../../trpc/client";
import { describeApiError, readApiError } from "../../trpc/errors";
import { getPasskeyAssertion } from "./webauthn";
import styles from "./account-security.module.css";

/**
 * What a step-up asks for: the password (an account without a second factor), a code from the app
 * or a recovery code (with a passkey button beside it when there is one), only a passkey, or
 * nothing (an account without credentials of its own: its fresh sign-in confirms).
 */
export type StepUpKind = "password" | "code" | "passkey" | "fresh";

export function stepUpKind(methods: StepUpMethods): StepUpKind {
  if (methods.totp || methods.recoveryCode) return "code";
  if (methods.passkey) return "passkey";
  if (methods.password) return "password";
  return "fresh";
}

/** A typed code as the method it is: six digits are the app's, anything else a recovery code. */
function codeInput(text: string, methods: StepUpMethods): StepUpInput | null {
  const digits = text.replace(/\s/g, "");
  if (methods.totp && /^\d{6}$/.test(digits)) return { method: "totp", code: digits };
  return methods.recoveryCode ? { method: "recovery", code: text } : null;
}

function failureText(reason: unknown, sent: StepUpInput["method"] | null, t: Dictionary): string {
  if (reason === "step_up_stale") return t.stepUp.stale;
  if (reason === "step_up_factor_required") return t.stepUp.factorRequired;
  if (sent === "passkey") return t.stepUp.passkeyWrong;
  return sent === "password" ? t.stepUp.passwordWrong : t.stepUp.codeWrong;
}

/**
 * The state of one step-up: what is typed, its error, and a passkey's answer waiting for its form.
 * The form calls `read()` on submit (null: the field shows why, nothing to send) and hands its
 * call's failure to `fail()` (true: it was the step-up's, now shown at the field).
 */
export function useStepUp(methods: StepUpMethods) {
  const { t } = useI18n();
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const kind = stepUpKind(methods);
  const [value, setValue] = useState("");
  const [error, setError] = useState<string | null>(null);
  const [passkeyBusy, setPasskeyBusy] = useState(false);
  const inputRef = useRef<HTMLInputElement>(null);
  const boxRef = useRef<HTMLFieldSetElement>(null);
  const passkeyAnswer = useRef<StepUpInput | null>(null);
  const sent = useRef<StepUpInput["method"] | null>(null);
  const options = useMutation(trpc.accountSecurity.stepUpOptions.mutationOptions());

  function show(message: string) {
    setError(message);
    inputRef.current?.focus();
  }

  /** The passkey ceremony; its answer submits the form the step-up sits in. */
  async function confirmWithPasskey() {
    setError(null);
    setPasskeyBusy(true);
    try {
      const outcome = await getPasskeyAssertion(await options.mutateAsync());
      if (!outcome.ok) {
        const problems = { cancelled: t.stepUp.passkeyCancelled, failed: t.stepUp.passkeyWrong };
        return show(outcome.reason === "unsupported" ? t.login.passkeyUnsupported : problems[outcome.reason]);
      }
      passkeyAnswer.current = { method: "passkey", response: outcome.response };
      boxRef.current?.closest("form")?.requestSubmit();
    } catch (failure) {
      show(describeApiError(readApiError(failure), t));
    } finally {
      setPasskeyBusy(false);
    }
  }

  function typed(): StepUpInput | null {
    if (kind === "fresh") return { method: "fresh_sign_in" };
    if (kind === "passkey") {
      void confirmWithPasskey();
      return null;
    }
    if (kind === "password") {
      if (value) return { method: "password", password: value };
      show(t.validation.password);
      return null;
    }
    const text = value.trim();
    const input = text ? codeInput(text, methods) : null;
    if (!input) show(!text ? (methods.passkey ? t.stepUp.codeOrPasskey : t.validation.required) : t.login.totpHint);
    return input;
  }

  function read(): StepUpInput | null {
    setError(null);
    const input = passkeyAnswer.current ?? typed();
    passkeyAnswer.current = null;
    if (input) sent.current = input.method;
    return input;
  }

  function fail(failure: unknown): boolean {
    const apiError = readApiError(failure);
    const invalid = apiError.fieldErrors.some(({ key }) => key === "stepUp" || key.startsWith("stepUp."));
    if (apiError.details.field !== "stepUp" && !invalid) return false;
    // Asked for a factor the page did not know of: the overview is out of date.
    if (apiError.details.reason === "step_up_factor_required")
      void queryClient.invalidateQueries({ queryKey: trpc.accountSecurity.overview.queryKey() });
    setValue("");
    show(failureText(apiError.details.reason, sent.current, t));
    return true;
  }

  function reset() {
    setValue("");
    setError(null);
    passkeyAnswer.current = null;
  }

  return {
    methods,
    kind,
    value,
    setValue,
    error,
    passkeyBusy,
    inputRef,
    boxRef,
    confirmWithPasskey,
    read,
    fail,
    reset,
  };
}

export type StepUpState = ReturnType<typeof useStepUp>;

/**
 * The one step-up field of every change to how an account signs in: inside the change's form,
 * which sends what `read()` yields along with the change.
 */
export function StepUp({ stepUp, autoFocus = false }: { stepUp: StepUpState; autoFocus?: boolean }) {
  const { t } = useI18n();
  const { kind, methods } = stepUp;
  const typing = kind === "password" || kind === "code";
  const hints: Record<StepUpKind, string> = {
    password: t.stepUp.passwordHint,
    code: methods.passkey ? t.stepUp.codeOrPasskeyHint : t.stepUp.codeHint,
    passkey: t.stepUp.passkeyHint,
    fresh: t.stepUp.freshNote,
  };
  return (
    <fieldset ref={stepUp.boxRef} className={styles.stepUp} data-testid="step-up">
      <legend className="cs-label">{t.stepUp.legend}</legend>
      <p className="cs-hint">{hints[kind]}</p>
      {typing ? (
        <Field label={codeLabel(stepUp, t)} error={stepUp.error} announceError>
          {(attributes) => (
            <input
              ref={stepUp.inputRef}
              {...attributes}
              className="cs-input"
              name={kind === "password" ? "step-up-password" : "step-up-code"}
              type={kind === "password" ? "password" : "text"}
              autoComplete={kind === "password" ? "current-password" : "one-time-code"}
              autoCapitalize="none"
              spellCheck={false}
              // Shown by the person's own click on the change it confirms.
              autoFocus={autoFocus}
              value={stepUp.value}
              onChange={(event) => stepUp.setValue(event.currentTarget.value)}
            />
          )}
        </Field>
      ) : null}
      {methods.passkey ? (
        <div>
          <Button icon={<Icon name="key" />} busy={stepUp.passkeyBusy} onClick={stepUp.confirmWithPasskey}>
            {t.stepUp.usePasskey}
          </Button>
        </div>
      ) : null}
      {!typing && stepUp.error ? (
        <p className="cs-field-error" role="alert">
          {stepUp.error}
        </p>
      ) : null}
    </fieldset>
  );
}

function codeLabel({ kind, methods }: StepUpState, t: Dictionary): string {
  if (kind === "password") return t.stepUp.passwordLabel;
  if (methods.totp && methods.recoveryCode) return t.stepUp.codeLabel;
  return methods.totp ? t.login.totpLabel : t.login.recoveryLabel;
}
