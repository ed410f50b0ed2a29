"use client";

import type { InviteDescription, LoginResult } from "@clinsign/contracts";
import { Button, LiveRegion, Notice, TextField } from "@clinsign/ui";
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useRouter } from "next/navigation";
import { useEffect, useRef, useState, type FormEvent, type ReactNode } from "react";
import { format } from "../../i18n";
import { useI18n } from "../../i18n/I18nProvider";
import { useTRPC } from "../../trpc/client";
import { describeApiError, readApiError } from "../../trpc/errors";
import { AuthPage } from "./AuthPage";
import { EnrollStep } from "./EnrollStep";
import { SecondFactorStep } from "./SecondFactorStep";
import styles from "./LoginForm.module.css";

/** After the name and password: the account's own second factor, or setting one up for the organization. */
type Stage =
  | { step: "form"; expired: boolean }
  | { step: "second_factor"; methods: NonNullable<LoginResult["methods"]> }
  | { step: "enroll" };

/**
 * Accepting an invitation: the invite's organization, role and address, then name and password,
 * then, as at any sign-in, the account's second factor or the set-up of one.
 */
export function AcceptInvite() {
  const { t } = useI18n();
  // The fragment is only readable in the browser; null until then, "" when there is none.
  const [token, setToken] = useState<string | null>(null);
  const [stage, setStage] = useState<Stage>({ step: "form", expired: false });
  useEffect(() => setToken(window.location.hash.slice(1)), []);

  return (
    <AuthPage wide={stage.step === "enroll"}>
      {token === null ? (
        <Checking />
      ) : token === "" ? (
        <Invalid title={t.invite.missingTitle} body={t.invite.missingBody} />
      ) : (
        <Invitation token={token} stage={stage} onStage={setStage} />
      )}
    </AuthPage>
  );
}

function Checking() {
  const { t } = useI18n();
  return (
    <p role="status" aria-live="polite">
      <span className="cs-spinner" aria-hidden="true" /> {t.invite.checking}
    </p>
  );
}

function Invalid({ title, body, children }: { title: string; body: string; children?: ReactNode }) {
  const { t } = useI18n();
  return (
    <div className="cs-stack">
      <h1>{title}</h1>
      <Notice tone="warning" role="alert">
        {body}
      </Notice>
      {children}
      <a className="cs-button" href="/login">
        {t.invite.toLogin}
      </a>
    </div>
  );
}

function Invitation({ token, stage, onStage }: { token: string; stage: Stage; onStage: (stage: Stage) => void }) {
  const { t } = useI18n();
  const trpc = useTRPC();
  const router = useRouter();
  const queryClient = useQueryClient();
  const invite = useQuery({ ...trpc.invitations.describe.queryOptions({ token }), retry: false });

  function enter() {
    queryClient.clear();
    // The link's secret is spent; leave it out of the history.
    window.history.replaceState(null, "", "/invite");
    router.replace("/");
  }
  const restart = (expired: boolean) => onStage({ step: "form", expired });

  if (stage.step === "second_factor")
    return (
      <SecondFactorStep
        methods={stage.methods}
        onVerified={enter}
        onRestart={restart}
        backLabel={t.invite.backToInvitation}
      />
    );
  if (stage.step === "enroll")
    return <EnrollStep onSignedIn={enter} onRestart={restart} backLabel={t.invite.backToInvitation} />;
  if (invite.isPending) return <Checking />;
  if (invite.error) {
    const apiError = readApiError(invite.error);
    if (apiError.code === "NOT_FOUND" || apiError.code === "BAD_REQUEST")
      return <Invalid title={t.invite.invalidTitle} body={t.invite.invalidBody} />;
    return (
      <Invalid title={t.errors.loadFailed} body={describeApiError(apiError, t)}>
        <Button onClick={() => invite.refetch()}>{t.common.retry}</Button>
      </Invalid>
    );
  }
  if (invite.data.ssoOnly) return <SsoOnly invite={invite.data} />;
  return (
    <InviteForm
      token={token}
      invite={invite.data}
      expired={stage.expired}
      onResult={(result) => {
        if (result.step === "second_factor" && result.methods)
          onStage({ step: "second_factor", methods: result.methods });
        else if (result.step === "enroll") onStage({ step: "enroll" });
        else enter();
      }}
      onGone={() => void invite.refetch()}
    />
  );
}

/** The organization signs in only with its provider: nothing to accept here, and no error either. */
function SsoOnly({ invite }: { invite: InviteDescription }) {
  const { t } = useI18n();
  const { organization, email, role } = invite;
  return (
    <div className="cs-stack">
      <div className={styles.heading}>
        <h1>{format(t.invite.title, { organization })}</h1>
        <p className={styles.subtitle}>{format(t.invite.subtitle, { role: t.roles[role], email })}</p>
      </div>
      <Notice tone="info" title={t.invite.ssoOnlyTitle}>
        {format(t.invite.ssoOnlyBody, { organization })}
      </Notice>
      <a className="cs-button cs-button--primary cs-button--block" href="/login">
        {t.invite.toLogin}
      </a>
    </div>
  );
}

function InviteForm({
  token,
  invite,
  expired,
  onResult,
  onGone,
}: {
  token: string;
  invite: InviteDescription;
  /** Back from a second step that took too long. */
  expired: boolean;
  onResult: (result: LoginResult) => void;
  /** The invitation was used or withdrawn meanwhile, or its organization turned to single sign-on only. */
  onGone: () => void;
}) {
  const { t } = useI18n();
  const trpc = useTRPC();
  const [name, setName] = useState("");
  const [password, setPassword] = useState("");
  const [errors, setErrors] = useState<{ name?: string; password?: string }>({});
  const [formError, setFormError] = useState<string | null>(expired ? t.login.pendingExpired : null);
  const nameRef = useRef<HTMLInputElement>(null);
  const passwordRef = useRef<HTMLInputElement>(null);

  const accept = useMutation(
    trpc.invitations.accept.mutationOptions({
      onSuccess: onResult,
      onError: (error) => {
        const apiError = readApiError(error);
        if (apiError.code === "UNAUTHORIZED") {
          setFormError(t.invite.wrongPassword);
          passwordRef.current?.focus();
        } else if (apiError.code === "NOT_FOUND" || apiError.details.reason === "sso_only") onGone();
        else setFormError(describeApiError(apiError, t));
      },
    }),
  );
  const { organization, email, role, existingAccount } = invite;

  function onSubmit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    setFormError(null);
    const next: typeof errors = {};
    if (!name.trim()) next.name = t.validation.required;
    if (password.length < 8) next.password = existingAccount ? t.validation.password : t.invite.passwordTooShort;
    setErrors(next);
    if (next.name) return nameRef.current?.focus();
    if (next.password) return passwordRef.current?.focus();
    accept.mutate({ token, name: name.trim(), password });
  }

  return (
    <>
      <div className={styles.heading}>
        <h1>{format(t.invite.title, { organization })}</h1>
        <p className={styles.subtitle}>{format(t.invite.subtitle, { role: t.roles[role], email })}</p>
      </div>
      {existingAccount ? <Notice tone="info">{format(t.invite.existingAccount, { organization })}</Notice> : null}
      <LiveRegion politeness="assertive" className={styles.alertSlot}>
        {formError ? (
          <Notice tone="danger" role="alert">
            {formError}
          </Notice>
        ) : null}
      </LiveRegion>
      <form className={styles.form} method="post" onSubmit={onSubmit} noValidate>
        {/* For password managers: the account the new password belongs to. */}
        <input type="hidden" name="username" autoComplete="username" value={email} />
        <TextField
          ref={nameRef}
          label={t.invite.name}
          name="name"
          autoComplete="name"
          required
          value={name}
          error={errors.name}
          onChange={(event) => setName(event.currentTarget.value)}
        />
        <TextField
          ref={passwordRef}
          label={t.invite.password}
          hint={existingAccount ? undefined : t.invite.passwordHint}
          name="password"
          type="password"
          autoComplete={existingAccount ? "current-password" : "new-password"}
          required
          value={password}
          error={errors.password}
          onChange={(event) => setPassword(event.currentTarget.value)}
        />
        <Button type="submit" variant="primary" block busy={accept.isPending || accept.isSuccess}>
          {t.invite.submit}
        </Button>
      </form>
    </>
  );
}
