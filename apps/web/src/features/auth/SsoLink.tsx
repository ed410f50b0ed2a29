"use client";

import type { LoginResult, SsoLinkDescription } from "@clinsign/contracts";
import { Button, TextField } from "@clinsign/ui";
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useRouter } from "next/navigation";
import { useRef, useState, type FormEvent } from "react";
import { format } from "../../i18n";
import { useI18n } from "../../i18n/I18nProvider";
import { useTRPC } from "../../trpc/client";
import { describeApiError, readApiError, retryAfterMinutes } from "../../trpc/errors";
import { AuthPage } from "./AuthPage";
import { SecondFactorStep } from "./SecondFactorStep";
import { SignInAlert } from "./SignInAlert";
import styles from "./LoginForm.module.css";

/** Where this browser is in proving the account, beyond what the link itself says (`description.step`). */
type Stage = { step: "second_factor"; methods: NonNullable<LoginResult["methods"]> } | { step: "confirm" } | null;

/** A link request that is gone (expired, used, cancelled, or from another browser). */
const isGone = (error: unknown) => {
  const { code, details } = readApiError(error);
  return details.reason === "link_expired" || code === "NOT_FOUND";
};

/**
 * Connecting an organization's single sign-on to an existing account: the organization's provider
 * signed someone in whose address already has an account. Before the provider may sign in to it,
 * the account proves itself here (its password, then its own second factor) and the person confirms.
 */
export function SsoLink() {
  const { t } = useI18n();
  const trpc = useTRPC();
  const link = useQuery({ ...trpc.auth.ssoLinkDescribe.queryOptions(), retry: false, staleTime: Infinity });
  const [stage, setStage] = useState<Stage>(null);
  const [notice, setNotice] = useState<string | null>(null);

  function restart(expired: boolean) {
    setStage(null);
    setNotice(expired ? t.ssoLink.pendingExpired : null);
    void link.refetch();
  }
  const afterProof = (result: LoginResult) =>
    result.step === "second_factor" && result.methods
      ? setStage({ step: "second_factor", methods: result.methods })
      : setStage({ step: "confirm" });

  let body;
  if (link.isPending)
    body = (
      <p role="status" aria-live="polite">
        <span className="cs-spinner" aria-hidden="true" /> {t.ssoLink.checking}
      </p>
    );
  // Without a link cookie the description is refused whatever the reason: nothing to connect here.
  else if (link.error)
    body =
      isGone(link.error) || readApiError(link.error).code === "UNAUTHORIZED" ? (
        <Expired />
      ) : (
        <LoadProblem error={link.error} retry={restart} />
      );
  else if (stage?.step === "second_factor")
    body = (
      <SecondFactorStep
        methods={stage.methods}
        onVerified={afterProof}
        onRestart={restart}
        backLabel={t.ssoLink.backToPassword}
      />
    );
  else if (stage?.step === "confirm" || link.data.step === "confirm")
    body = <ConfirmStep link={link.data} onGone={() => void link.refetch()} />;
  else
    body = <PasswordStep link={link.data} notice={notice} onProven={afterProof} onGone={() => void link.refetch()} />;

  return <AuthPage>{body}</AuthPage>;
}

/** What is being connected (the organization, its provider, the account) and what this step asks. */
function Intro({ link, text }: { link: SsoLinkDescription; text: string }) {
  const { t } = useI18n();
  const values = { organization: link.organization.name, provider: link.provider, email: link.email };
  return (
    <div className={styles.heading}>
      <h1>{format(t.ssoLink.title, { organization: link.organization.name })}</h1>
      <p className={styles.subtitle}>{format(text, values)}</p>
    </div>
  );
}

function useCancel() {
  const trpc = useTRPC();
  return useMutation(
    trpc.auth.ssoLinkCancel.mutationOptions({
      // Gone already or not: either way nothing is connected, and the login page is where to go.
      onSettled: () => window.location.assign("/login"),
    }),
  );
}

function PasswordStep({
  link,
  notice,
  onProven,
  onGone,
}: {
  link: SsoLinkDescription;
  /** Why the person is back here (the second step took too long). */
  notice: string | null;
  onProven: (result: LoginResult) => void;
  onGone: () => void;
}) {
  const { t } = useI18n();
  const trpc = useTRPC();
  const cancel = useCancel();
  const [password, setPassword] = useState("");
  const [fieldError, setFieldError] = useState<string | null>(null);
  const [formError, setFormError] = useState<string | null>(notice);
  const passwordRef = useRef<HTMLInputElement>(null);
  const prove = useMutation(
    trpc.auth.ssoLinkPassword.mutationOptions({
      onSuccess: onProven,
      onError: (error) => {
        const apiError = readApiError(error);
        if (isGone(error)) return onGone();
        setPassword("");
        passwordRef.current?.focus();
        const minutes = apiError.code === "TOO_MANY_REQUESTS" ? retryAfterMinutes(apiError) : undefined;
        if (minutes) setFormError(format(t.login.rateLimitedMinutes, { minutes }));
        else setFormError(apiError.code === "UNAUTHORIZED" ? t.ssoLink.wrongPassword : describeApiError(apiError, t));
      },
    }),
  );

  function submit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    setFormError(null);
    setFieldError(password ? null : t.validation.password);
    if (!password) return passwordRef.current?.focus();
    prove.mutate({ password });
  }

  return (
    <>
      <Intro link={link} text={t.ssoLink.explanation} />
      <SignInAlert message={formError} />
      <form className={styles.form} method="post" onSubmit={submit} noValidate>
        {/* For password managers: the account whose password this is. */}
        <input type="hidden" name="username" autoComplete="username" value={link.email} />
        <TextField
          ref={passwordRef}
          label={format(t.ssoLink.passwordLabel, { email: link.email })}
          name="password"
          type="password"
          autoComplete="current-password"
          required
          autoFocus
          value={password}
          error={fieldError}
          onChange={(event) => setPassword(event.currentTarget.value)}
        />
        <Button type="submit" variant="primary" block busy={prove.isPending || prove.isSuccess}>
          {t.ssoLink.continue}
        </Button>
        <Button block busy={cancel.isPending} onClick={() => cancel.mutate()}>
          {t.common.cancel}
        </Button>
      </form>
    </>
  );
}

function ConfirmStep({ link, onGone }: { link: SsoLinkDescription; onGone: () => void }) {
  const { t } = useI18n();
  const trpc = useTRPC();
  const router = useRouter();
  const queryClient = useQueryClient();
  const cancel = useCancel();
  const [error, setError] = useState<string | null>(null);
  const connect = useMutation(
    trpc.auth.ssoLinkConfirm.mutationOptions({
      onSuccess: () => {
        // Forget answers cached while signed out before entering the console.
        queryClient.clear();
        router.replace("/");
      },
      onError: (failure) => (isGone(failure) ? onGone() : setError(describeApiError(readApiError(failure), t))),
    }),
  );
  const values = { organization: link.organization.name, role: t.roles[link.role] };
  return (
    <>
      <Intro link={link} text={t.ssoLink.confirmBody} />
      <SignInAlert message={error} />
      <div className={styles.form}>
        <Button variant="primary" block busy={connect.isPending || connect.isSuccess} onClick={() => connect.mutate()}>
          {format(t.ssoLink.confirm, values)}
        </Button>
        <Button block busy={cancel.isPending} disabled={connect.isPending} onClick={() => cancel.mutate()}>
          {t.common.cancel}
        </Button>
      </div>
    </>
  );
}

/** No link request in this browser (any more): calm, with the way to start again. */
function Expired() {
  const { t } = useI18n();
  return (
    <div className="cs-stack">
      <div className={styles.heading}>
        <h1>{t.ssoLink.expiredTitle}</h1>
        <p className={styles.subtitle}>{t.ssoLink.expiredBody}</p>
      </div>
      <a className="cs-button cs-button--primary cs-button--block" href="/login">
        {t.invite.toLogin}
      </a>
    </div>
  );
}

function LoadProblem({ error, retry }: { error: unknown; retry: (expired: boolean) => void }) {
  const { t } = useI18n();
  return (
    <div className="cs-stack">
      <SignInAlert message={describeApiError(readApiError(error), t)} />
      <Button onClick={() => retry(false)}>{t.common.retry}</Button>
    </div>
  );
}
