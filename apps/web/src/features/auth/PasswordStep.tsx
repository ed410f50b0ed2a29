"use client";

import type { SsoErrorCode } from "@clinsign/contracts";
import { Button, Icon, Notice, TextField } from "@clinsign/ui";
import type { FormEvent } from "react";
import { format } from "../../i18n";
import { useI18n } from "../../i18n/I18nProvider";
import type { CredentialFields } from "./credential-fields";
import { SignInAlert } from "./SignInAlert";
import { StepHeading } from "./StepHeading";
import { ssoStartUrl, type SsoProvider } from "./useSsoProvider";
import styles from "./LoginForm.module.css";

/** Why the login page was opened: the session expired, or the person signed out. */
export type LoginReason = "expired" | "signed-out" | null;

/**
 * The first step: why the page opened, single sign-on where a provider is offered, the e-mail and
 * password, and signing in with a passkey instead.
 */
export function PasswordStep({
  fields,
  sso,
  organizationId,
  reason,
  ssoError,
  busy,
  passkeyBusy,
  onSubmit,
  onPasskey,
}: {
  fields: CredentialFields;
  sso: SsoProvider | null;
  organizationId: string | null;
  reason: LoginReason;
  ssoError: SsoErrorCode | null;
  busy: boolean;
  passkeyBusy: boolean;
  onSubmit: (event: FormEvent<HTMLFormElement>) => void;
  onPasskey: () => void;
}) {
  const { t } = useI18n();
  const { formError } = fields;
  return (
    <>
      <StepHeading title={t.login.title} subtitle={t.login.subtitle} />

      {ssoError && !formError ? (
        <Notice tone="danger" role="alert">
          <span data-testid="sso-error">{t.login.ssoErrors[ssoError]}</span>
        </Notice>
      ) : null}
      {reason === "expired" && !formError ? <Notice tone="info">{t.login.sessionExpired}</Notice> : null}
      {reason === "signed-out" && !formError ? <Notice tone="success">{t.login.signedOut}</Notice> : null}
      <SignInAlert message={formError} />

      {sso ? <SsoOffer sso={sso} email={fields.email} /> : null}

      {/* On an organization's login URL its provider comes first: decided before the lookup answers, so the button does not change colour under the reader. */}
      <CredentialsForm
        fields={fields}
        submitVariant={sso || organizationId ? "secondary" : "primary"}
        busy={busy}
        onSubmit={onSubmit}
      />
      <div className={styles.divider}>{t.login.or}</div>
      <Button block icon={<Icon name="key" />} busy={passkeyBusy} onClick={onPasskey}>
        {t.login.passkeySignIn}
      </Button>
    </>
  );
}

/** The organization's single sign-on button, above the password form. */
function SsoOffer({ sso, email }: { sso: SsoProvider; email: string }) {
  const { t } = useI18n();
  return (
    <div className={styles.sso}>
      <a className="cs-button cs-button--primary cs-button--block" href={ssoStartUrl(sso.organizationId, email)}>
        {format(t.login.ssoButton, { provider: sso.displayName })}
      </a>
      <p className={styles.divider}>
        <span>{t.login.orPassword}</span>
      </p>
    </div>
  );
}

function CredentialsForm({
  fields,
  submitVariant,
  busy,
  onSubmit,
}: {
  fields: CredentialFields;
  submitVariant: "primary" | "secondary";
  busy: boolean;
  onSubmit: (event: FormEvent<HTMLFormElement>) => void;
}) {
  const { t } = useI18n();
  return (
    // method="post": should the page's script fail to load, a native submit never puts the password in a URL.
    <form className={styles.form} method="post" onSubmit={onSubmit} noValidate>
      <TextField
        ref={fields.emailRef}
        label={t.login.email}
        name="email"
        type="email"
        inputMode="email"
        autoComplete="username"
        autoCapitalize="none"
        spellCheck={false}
        required
        value={fields.email}
        onChange={(event) => fields.setEmail(event.currentTarget.value)}
        error={fields.fieldErrors.email}
      />
      <TextField
        ref={fields.passwordRef}
        label={t.login.password}
        name="password"
        type="password"
        autoComplete="current-password"
        required
        value={fields.password}
        onChange={(event) => fields.setPassword(event.currentTarget.value)}
        error={fields.fieldErrors.password}
      />
      <Button type="submit" variant={submitVariant} block busy={busy}>
        {t.login.submit}
      </Button>
    </form>
  );
}
