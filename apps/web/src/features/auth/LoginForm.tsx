"use client";

import { Button, Icon, Notice, TextField } from "@clinsign/ui";
import type { LoginResult, SsoErrorCode } from "@clinsign/contracts";
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useRouter } from "next/navigation";
import { useEffect, useRef, useState, type FormEvent } from "react";
import { format, type Dictionary } from "../../i18n";
import { useI18n } from "../../i18n/I18nProvider";
import { useTRPC } from "../../trpc/client";
import {
  describeApiError,
  readApiError,
  retryAfterMinutes,
  translateValidationMessage,
  type ApiError,
} from "../../trpc/errors";
import { getPasskeyAssertion, passkeyProblem } from "../account-security/webauthn";
import { AuthPage } from "./AuthPage";
import { EnrollStep } from "./EnrollStep";
import { SecondFactorStep } from "./SecondFactorStep";
import { SignInAlert } from "./SignInAlert";
import styles from "./LoginForm.module.css";

type Stage =
  { step: "password" } | { step: "second_factor"; methods: NonNullable<LoginResult["methods"]> } | { step: "enroll" };

interface FieldErrors {
  email?: string;
  password?: string;
}

/**
 * Why a sign-in was refused, where it is not about the typed fields: single sign-on only (with or
 * without its button on the page), too many attempts, or `null` for the caller to say.
 */
function refusal(apiError: ApiError, t: Dictionary, ssoButton: boolean): string | null {
  if (apiError.code === "FORBIDDEN" && apiError.details.reason === "sso_only")
    return ssoButton ? t.login.ssoOnly : t.login.ssoOnlyNoButton;
  if (apiError.code !== "TOO_MANY_REQUESTS") return null;
  const minutes = retryAfterMinutes(apiError);
  return minutes ? format(t.login.rateLimitedMinutes, { minutes }) : t.login.rateLimited;
}

/** The domain of a typed address once it looks complete (`name@host.tld`), else null. */
function typedDomain(email: string): string | null {
  const match = /^[^\s@]+@([^\s@]+\.[a-z]{2,})$/i.exec(email.trim());
  return match ? match[1]!.toLowerCase() : null;
}

export function LoginForm({
  next,
  reason,
  organizationId = null,
  ssoError = null,
}: {
  next: string;
  reason: "expired" | "signed-out" | null;
  /** From an organization's login URL (/login/<id>): its provider is offered straight away. */
  organizationId?: string | null;
  /** Why single sign-on brought the browser back here. */
  ssoError?: SsoErrorCode | null;
}) {
  const { t } = useI18n();
  const trpc = useTRPC();
  const router = useRouter();
  const queryClient = useQueryClient();
  const [email, setEmail] = useState("");
  const [password, setPassword] = useState("");
  const [fieldErrors, setFieldErrors] = useState<FieldErrors>({});
  const [formError, setFormError] = useState<string | null>(null);
  const emailRef = useRef<HTMLInputElement>(null);
  const passwordRef = useRef<HTMLInputElement>(null);
  const sso = useSsoProvider(organizationId, email);
  const [stage, setStage] = useState<Stage>({ step: "password" });
  const [passkeyBusy, setPasskeyBusy] = useState(false);
  const [entering, setEntering] = useState(false);

  function enter() {
    setEntering(true);
    // Forget answers cached while signed out (e.g. a failed auth.me) before entering.
    queryClient.clear();
    router.replace(next);
  }

  function restart(expired: boolean) {
    setStage({ step: "password" });
    setPassword("");
    setFormError(expired ? t.login.pendingExpired : null);
  }

  // On an organization's login URL, that organization; else the account's first that admits it.
  const organization = organizationId ? { organizationId } : {};
  const passkeyOptions = useMutation(trpc.auth.passkeyOptions.mutationOptions());
  const passkeySignIn = useMutation(trpc.auth.passkeySignIn.mutationOptions());

  /** Passwordless: a discoverable passkey names the account and is both factors at once. */
  async function signInWithPasskey() {
    setFormError(null);
    setPasskeyBusy(true);
    try {
      const outcome = await getPasskeyAssertion(await passkeyOptions.mutateAsync({ secondStep: false }));
      if (!outcome.ok) {
        setFormError(passkeyProblem(outcome.reason, t, "login"));
        return;
      }
      await passkeySignIn.mutateAsync({ response: outcome.response, ...organization });
      enter();
    } catch (error) {
      const apiError = readApiError(error);
      setFormError(
        refusal(apiError, t, sso !== null) ??
          (apiError.code === "UNAUTHORIZED" ? t.login.passkeyFailed : describeApiError(apiError, t)),
      );
    } finally {
      setPasskeyBusy(false);
    }
  }

  const login = useMutation(
    trpc.auth.login.mutationOptions({
      onSuccess: (result) => {
        if (result.step === "second_factor" && result.methods)
          setStage({ step: "second_factor", methods: result.methods });
        else if (result.step === "enroll") setStage({ step: "enroll" });
        else enter();
      },
      onError: (error) => {
        const apiError = readApiError(error);
        const refused = refusal(apiError, t, sso !== null);
        if (refused) {
          setFormError(refused);
          if (apiError.code === "FORBIDDEN") setPassword("");
        } else if (apiError.code === "UNAUTHORIZED") {
          setFormError(t.login.wrongCredentials);
          setPassword("");
          passwordRef.current?.focus();
        } else if (apiError.fieldErrors.length > 0) {
          const errors: FieldErrors = {};
          for (const { key, message } of apiError.fieldErrors) {
            if (key === "email" || key === "password") errors[key] = translateValidationMessage(message, t);
          }
          setFieldErrors(errors);
          (errors.email ? emailRef : passwordRef).current?.focus();
        } else {
          setFormError(describeApiError(apiError, t));
        }
      },
    }),
  );

  function onSubmit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    setFormError(null);
    const errors: FieldErrors = {};
    if (!email.trim()) errors.email = t.validation.required;
    else if (!/^[^\s@]+@[^\s@]+$/.test(email.trim())) errors.email = t.validation.email;
    if (!password) errors.password = t.validation.password;
    setFieldErrors(errors);
    if (errors.email) return emailRef.current?.focus();
    if (errors.password) return passwordRef.current?.focus();
    login.mutate({ email: email.trim(), password, ...organization });
  }

  const busy = login.isPending || (login.isSuccess && stage.step === "password") || entering;

  return (
    <AuthPage wide={stage.step === "enroll"} footer={t.login.footer}>
      {stage.step === "second_factor" ? (
        <SecondFactorStep methods={stage.methods} onVerified={enter} onRestart={restart} />
      ) : stage.step === "enroll" ? (
        <EnrollStep onSignedIn={enter} onRestart={restart} />
      ) : (
        <>
          <div className={styles.heading}>
            <h1>{t.login.title}</h1>
            <p className={styles.subtitle}>{t.login.subtitle}</p>
          </div>

          {ssoError && !formError ? (
            <Notice tone="danger" role="alert">
              <span data-testid="sso-error">{t.login.ssoErrors[ssoError]}</span>
            </Notice>
          ) : null}
          {reason === "expired" && !formError ? <Notice tone="info">{t.login.sessionExpired}</Notice> : null}
          {reason === "signed-out" && !formError ? <Notice tone="success">{t.login.signedOut}</Notice> : null}
          <SignInAlert message={formError} />

          {sso ? (
            <div className={styles.sso}>
              <a
                className="cs-button cs-button--primary cs-button--block"
                href={ssoStartUrl(sso.organizationId, email)}
              >
                {format(t.login.ssoButton, { provider: sso.displayName })}
              </a>
              <p className={styles.divider}>
                <span>{t.login.orPassword}</span>
              </p>
            </div>
          ) : null}

          {/* method="post": should the page's script fail to load, a native submit never puts the password in a URL. */}
          <form className={styles.form} method="post" onSubmit={onSubmit} noValidate>
            <TextField
              ref={emailRef}
              label={t.login.email}
              name="email"
              type="email"
              inputMode="email"
              autoComplete="username"
              autoCapitalize="none"
              spellCheck={false}
              required
              value={email}
              onChange={(event) => setEmail(event.currentTarget.value)}
              error={fieldErrors.email}
            />
            <TextField
              ref={passwordRef}
              label={t.login.password}
              name="password"
              type="password"
              autoComplete="current-password"
              required
              value={password}
              onChange={(event) => setPassword(event.currentTarget.value)}
              error={fieldErrors.password}
            />
            {/* On an organization's login URL its provider comes first: decided before the lookup answers, so the button does not change colour under the reader. */}
            <Button type="submit" variant={sso || organizationId ? "secondary" : "primary"} block busy={busy}>
              {t.login.submit}
            </Button>
          </form>
          <div className={styles.divider}>{t.login.or}</div>
          <Button block icon={<Icon name="key" />} busy={passkeyBusy} onClick={signInWithPasskey}>
            {t.login.passkeySignIn}
          </Button>
        </>
      )}
    </AuthPage>
  );
}

function ssoStartUrl(organizationId: string, email: string): string {
  const params = new URLSearchParams({ org: organizationId });
  if (typedDomain(email)) params.set("login_hint", email.trim());
  return `/sso/start?${params}`;
}

/**
 * The provider to offer: the organization's of the login URL, else the one whose e-mail domain the
 * typed address has (asked once typing pauses). Only domains named for single sign-on answer, so
 * this reveals nothing about accounts.
 */
function useSsoProvider(organizationId: string | null, email: string) {
  const trpc = useTRPC();
  const [domain, setDomain] = useState<string | null>(null);
  useEffect(() => {
    const timer = setTimeout(() => setDomain(typedDomain(email)), 300);
    return () => clearTimeout(timer);
  }, [email]);
  const byOrganization = useQuery({
    ...trpc.auth.ssoProvider.queryOptions({ organizationId: organizationId ?? "" }),
    enabled: organizationId !== null,
    staleTime: 60_000,
  });
  const byDomain = useQuery({
    ...trpc.auth.ssoProvider.queryOptions({ email: `x@${domain ?? ""}` }),
    enabled: domain !== null,
    staleTime: 60_000,
  });
  return byDomain.data?.provider ?? byOrganization.data?.provider ?? null;
}
