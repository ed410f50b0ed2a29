"use client";

import type { LoginResult, SsoErrorCode } from "@clinsign/contracts";
import { useMutation, useQueryClient } from "@tanstack/react-query";
import { useRouter } from "next/navigation";
import { useState, type FormEvent } from "react";
import type { Dictionary } from "../../i18n";
import { useI18n } from "../../i18n/I18nProvider";
import { useTRPC } from "../../trpc/client";
import { describeApiError, readApiError, translateValidationMessage, type ApiError } from "../../trpc/errors";
import { getPasskeyAssertion, passkeyProblem } from "../account-security/webauthn";
import { AuthPage } from "./AuthPage";
import { checkCredentials, useCredentialFields, type CredentialFields, type FieldErrors } from "./credential-fields";
import { EnrollStep } from "./EnrollStep";
import { PasswordStep, type LoginReason } from "./PasswordStep";
import { SecondFactorStep } from "./SecondFactorStep";
import { rateLimitedText } from "./sign-in-errors";
import { useSsoProvider } from "./useSsoProvider";

type Stage =
  { step: "password" } | { step: "second_factor"; methods: NonNullable<LoginResult["methods"]> } | { step: "enroll" };

/** The organization to sign in to, for the server: the login URL's, else the account's first that admits it. */
type OrganizationChoice = { organizationId: string } | Record<string, never>;

/**
 * Why a sign-in was refused, where it is not about the typed fields: single sign-on only (with or
 * without its button on the page), too many attempts, or `null` for the caller to say.
 */
function refusal(apiError: ApiError, t: Dictionary, ssoButton: boolean): string | null {
  if (apiError.code === "FORBIDDEN" && apiError.details.reason === "sso_only")
    return ssoButton ? t.login.ssoOnly : t.login.ssoOnlyNoButton;
  if (apiError.code !== "TOO_MANY_REQUESTS") return null;
  return rateLimitedText(apiError, t);
}

/** A refused password sign-in, shown where it belongs: on the card, or at the field the server named. */
function showLoginFailure(error: unknown, fields: CredentialFields, t: Dictionary, ssoButton: boolean) {
  const apiError = readApiError(error);
  const refused = refusal(apiError, t, ssoButton);
  if (refused) {
    fields.setFormError(refused);
    if (apiError.code === "FORBIDDEN") fields.setPassword("");
  } else if (apiError.code === "UNAUTHORIZED") {
    fields.setFormError(t.login.wrongCredentials);
    fields.setPassword("");
    fields.passwordRef.current?.focus();
  } else if (apiError.fieldErrors.length > 0) {
    const errors: FieldErrors = {};
    for (const { key, message } of apiError.fieldErrors) {
      if (key === "email" || key === "password") errors[key] = translateValidationMessage(message, t);
    }
    fields.setFieldErrors(errors);
    (errors.email ? fields.emailRef : fields.passwordRef).current?.focus();
  } else {
    fields.setFormError(describeApiError(apiError, t));
  }
}

/** Passwordless: a discoverable passkey names the account and is both factors at once. */
function usePasskeySignIn(
  fields: CredentialFields,
  organization: OrganizationChoice,
  ssoButton: boolean,
  onSignedIn: () => void,
) {
  const { t } = useI18n();
  const trpc = useTRPC();
  const [busy, setBusy] = useState(false);
  const passkeyOptions = useMutation(trpc.auth.passkeyOptions.mutationOptions());
  const passkeySignIn = useMutation(trpc.auth.passkeySignIn.mutationOptions());

  async function signIn() {
    fields.setFormError(null);
    setBusy(true);
    try {
      const outcome = await getPasskeyAssertion(await passkeyOptions.mutateAsync({ secondStep: false }));
      if (!outcome.ok) {
        fields.setFormError(passkeyProblem(outcome.reason, t, "login"));
        return;
      }
      await passkeySignIn.mutateAsync({ response: outcome.response, ...organization });
      onSignedIn();
    } catch (error) {
      const apiError = readApiError(error);
      fields.setFormError(
        refusal(apiError, t, ssoButton) ??
          (apiError.code === "UNAUTHORIZED" ? t.login.passkeyFailed : describeApiError(apiError, t)),
      );
    } finally {
      setBusy(false);
    }
  }
  return { busy, signIn };
}

/** Into the console (`next`) once signed in; `entering` while the page changes. */
function useEnterConsole(next: string) {
  const router = useRouter();
  const queryClient = useQueryClient();
  const [entering, setEntering] = useState(false);

  function enter() {
    setEntering(true);
    // Forget answers cached while signed out (e.g. a failed auth.me) before entering.
    queryClient.clear();
    router.replace(next);
  }
  return { entering, enter };
}

export function LoginForm({
  next,
  reason,
  organizationId = null,
  ssoError = null,
}: {
  next: string;
  reason: LoginReason;
  /** From an organization's login URL (/login/<id>): its provider is offered straight away. */
  organizationId?: string | null;
  /** Why single sign-on brought the browser back here. */
  ssoError?: SsoErrorCode | null;
}) {
  const { t } = useI18n();
  const trpc = useTRPC();
  const fields = useCredentialFields();
  const sso = useSsoProvider(organizationId, fields.email);
  const [stage, setStage] = useState<Stage>({ step: "password" });
  const { entering, enter } = useEnterConsole(next);

  function restart(expired: boolean) {
    setStage({ step: "password" });
    fields.setPassword("");
    fields.setFormError(expired ? t.login.pendingExpired : null);
  }

  // On an organization's login URL, that organization; else the account's first that admits it.
  const organization: OrganizationChoice = organizationId ? { organizationId } : {};
  const passkey = usePasskeySignIn(fields, organization, sso !== null, enter);
  const login = useMutation(
    trpc.auth.login.mutationOptions({
      onSuccess: (result) => {
        if (result.step === "second_factor" && result.methods)
          setStage({ step: "second_factor", methods: result.methods });
        else if (result.step === "enroll") setStage({ step: "enroll" });
        else enter();
      },
      onError: (error) => showLoginFailure(error, fields, t, sso !== null),
    }),
  );

  function onSubmit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    fields.setFormError(null);
    const errors = checkCredentials(fields.email, fields.password, t);
    fields.setFieldErrors(errors);
    if (errors.email) return fields.emailRef.current?.focus();
    if (errors.password) return fields.passwordRef.current?.focus();
    login.mutate({ email: fields.email.trim(), password: fields.password, ...organization });
  }

  const busy = login.isPending || (login.isSuccess && stage.step === "password") || entering;

  return (
    <AuthPage wide={stage.step === "enroll"} footer={t.login.footer}>
      {stage.step === "second_factor" ? (
        <SecondFactorStep methods={stage.methods} onVerified={enter} onRestart={restart} />
      ) : stage.step === "enroll" ? (
        <EnrollStep onSignedIn={enter} onRestart={restart} />
      ) : (
        <PasswordStep
          fields={fields}
          sso={sso}
          organizationId={organizationId}
          reason={reason}
          ssoError={ssoError}
          busy={busy}
          passkeyBusy={passkey.busy}
          onSubmit={onSubmit}
          onPasskey={passkey.signIn}
        />
      )}
    </AuthPage>
  );
}
