"use client";

import {
  ssoMappableRoles,
  type SsoRoleMapping,
  type SsoSettings as Settings,
  type StepUpMethods,
} from "@clinsign/contracts";
import { Button, Card, CopyField, Icon, Notice, SelectField, Skeleton, Switch, TextField } from "@clinsign/ui";
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useState, type FormEvent } from "react";
import { useCan } from "../../components/admin-shell/SessionContext";
import { LoadFailed } from "../../components/LoadFailed";
import { format, type Dictionary } from "../../i18n";
import { useI18n } from "../../i18n/I18nProvider";
import { useTRPC } from "../../trpc/client";
import { describeApiError, readApiError, translateValidationMessage, type ApiError } from "../../trpc/errors";
import { StepUp, useStepUp, type StepUpState } from "../account-security/StepUp";
import { settingBinders, urlInput } from "./setting-binders";
import { ssoFormStateFrom, validateSsoForm, type SsoFormErrors, type SsoFormState } from "./sso-form";
import { SaveRow } from "./SaveRow";
import { SsoDomains } from "./SsoDomains";
import styles from "./settings.module.css";

/**
 * Single sign-on with the organization's OpenID Connect provider: admins read it, owners change it
 * (each save asks again: step-up, with the owner's own methods from the security overview).
 */
export function SsoSettings() {
  const { t } = useI18n();
  const trpc = useTRPC();
  const owner = useCan()("organization.saveSso");
  const settings = useQuery(trpc.organization.sso.queryOptions());
  const security = useQuery({ ...trpc.accountSecurity.overview.queryOptions(), enabled: owner });
  const pending = settings.isPending || (owner && security.isPending);
  const failed = settings.error ? settings : owner && security.error ? security : null;
  return (
    <Card title={t.sso.title} description={t.sso.description}>
      {pending ? (
        <Skeleton label={t.common.loading} lines={4} />
      ) : failed ? (
        <LoadFailed query={failed} />
      ) : settings.data ? (
        <SsoForm settings={settings.data} stepUpMethods={owner ? (security.data?.stepUp ?? null) : null} />
      ) : null}
    </Card>
  );
}

/** The server's word on a failed save, at the field it names where it names one. */
function saveErrors(apiError: ApiError, form: SsoFormState, t: Dictionary): SsoFormErrors {
  const errors: SsoFormErrors = {};
  for (const { key, message } of apiError.fieldErrors) {
    const field = (key.split(".")[0] ?? key) as keyof SsoFormState;
    if (field in form) errors[field] ??= translateValidationMessage(message, t);
  }
  const field = typeof apiError.details.field === "string" ? (apiError.details.field as keyof SsoFormState) : null;
  // A public mail domain (gmail.com …) proves nothing about who belongs to the organization: the
  // server's one refusal of this field that names no reason.
  if (field === "allowedDomains" && (apiError.details.reason ?? "public_domain") === "public_domain")
    errors.allowedDomains = t.sso.domainsPublic;
  else if (field && field in form) errors[field] = apiError.message;
  if (Object.keys(errors).length === 0) errors.form = describeApiError(apiError, t);
  return errors;
}

function SsoForm({ settings, stepUpMethods }: { settings: Settings; stepUpMethods: StepUpMethods | null }) {
  const { t } = useI18n();
  const s = t.sso;
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const readOnly = stepUpMethods === null;
  const [form, setForm] = useState(() => ssoFormStateFrom(settings));
  const [errors, setErrors] = useState<SsoFormErrors>({});
  const [saved, setSaved] = useState(false);
  // Admins have no step-up to give: the hook is there, its field is not shown.
  const stepUp = useStepUp(stepUpMethods ?? noStepUp);
  const change = <K extends keyof SsoFormState>(key: K, value: SsoFormState[K]) => {
    setForm((f) => ({ ...f, [key]: value }));
    setSaved(false);
  };
  const save = useMutation(
    trpc.organization.saveSso.mutationOptions({
      onSuccess: (next) => {
        queryClient.setQueryData(trpc.organization.sso.queryKey(), next);
        setForm(ssoFormStateFrom(next));
        setErrors({});
        stepUp.reset();
        setSaved(true);
      },
      onError: (error) => {
        if (stepUp.fail(error)) return setErrors({});
        setErrors(saveErrors(readApiError(error), form, t));
      },
    }),
  );

  function onSubmit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    setSaved(false);
    const { errors: found, input } = validateSsoForm(form, settings.hasClientSecret, t);
    setErrors(found);
    if (Object.keys(found).length > 0) return;
    const confirmed = stepUp.read();
    if (confirmed) save.mutate({ ...input, stepUp: confirmed });
  }

  const binders = settingBinders({ form, errors, disabled: readOnly, change });

  return (
    <form className="cs-stack cs-stack--lg" onSubmit={onSubmit} noValidate aria-label={s.title}>
      {readOnly ? <Notice tone="info">{s.ownersOnly}</Notice> : null}
      {errors.form ? (
        <Notice tone="danger" role="alert">
          {errors.form}
        </Notice>
      ) : null}
      <SsoProviderFields settings={settings} binders={binders} readOnly={readOnly} />
      <div className={styles.divider} />
      <TextField
        label={s.roleClaimLabel}
        hint={s.roleClaimHint}
        spellCheck={false}
        mono
        {...binders.textSetting("roleClaim", "ssoRoleClaim")}
      />
      <RoleMappingFieldset
        rows={form.roleMapping}
        error={errors.roleMapping}
        readOnly={readOnly}
        onChange={(rows) => change("roleMapping", rows)}
      />
      <div className={styles.divider} />
      <SsoOnlyFields settings={settings} ssoOnly={form.ssoOnly} binders={binders} />
      {readOnly ? null : <SaveBar stepUp={stepUp} saved={saved} busy={save.isPending} />}
    </form>
  );
}

type SsoBinders = ReturnType<typeof settingBinders<SsoFormState>>;

/**
 * The provider: whether sign-on is on, the two addresses to give the provider, the client it
 * issued, and the mail domains whose people may sign on (with their DNS proof).
 */
function SsoProviderFields({
  settings,
  binders: { textSetting, switchSetting },
  readOnly,
}: {
  settings: Settings;
  binders: SsoBinders;
  readOnly: boolean;
}) {
  const { t } = useI18n();
  const s = t.sso;
  const copyLabels = { copy: t.common.copy, copied: t.common.copied, copyManually: t.common.copyManually };
  return (
    <>
      <Switch label={s.enabledLabel} description={s.enabledDescription} {...switchSetting("enabled", "ssoEnabled")} />
      <CopyField
        label={s.redirectUriLabel}
        hint={s.redirectUriHint}
        value={settings.redirectUri}
        labels={copyLabels}
        testId="sso-redirect-uri"
      />
      <CopyField
        label={s.loginUrlLabel}
        hint={s.loginUrlHint}
        value={settings.loginUrl}
        labels={copyLabels}
        testId="sso-login-url"
      />
      <TextField
        label={s.displayNameLabel}
        hint={s.displayNameHint}
        maxLength={80}
        {...textSetting("displayName", "ssoDisplayName")}
      />
      <TextField label={s.issuerLabel} hint={s.issuerHint} {...urlInput} {...textSetting("issuer", "ssoIssuer")} />
      <TextField label={s.clientIdLabel} spellCheck={false} mono {...textSetting("clientId", "ssoClientId")} />
      <TextField
        label={s.clientSecretLabel}
        hint={settings.hasClientSecret ? s.clientSecretHintSet : s.clientSecretHintUnset}
        type="password"
        autoComplete="new-password"
        spellCheck={false}
        mono
        {...textSetting("clientSecret", "ssoClientSecret")}
      />
      <TextField
        label={s.domainsLabel}
        hint={s.domainsHint}
        spellCheck={false}
        autoCapitalize="none"
        {...textSetting("allowedDomains", "ssoDomains")}
      />
      <SsoDomains domains={settings.domains} canVerify={!readOnly} />
    </>
  );
}

/** Sign-on as the only way in, with the owner who may still sign in with a password (break glass). */
function SsoOnlyFields({ settings, ssoOnly, binders }: { settings: Settings; ssoOnly: boolean; binders: SsoBinders }) {
  const { t } = useI18n();
  const s = t.sso;
  return (
    <>
      <Switch label={s.ssoOnlyLabel} description={s.ssoOnlyDescription} {...binders.switchSetting("ssoOnly")} />
      {ssoOnly ? (
        <SelectField
          label={s.breakGlassLabel}
          hint={s.breakGlassHint}
          {...binders.textSetting("breakGlassUserId", "ssoBreakGlass")}
          placeholder={s.breakGlassNone}
          options={settings.owners.map((owner) => ({
            value: owner.id,
            label: owner.name ? `${owner.name} (${owner.email})` : owner.email,
          }))}
        />
      ) : null}
    </>
  );
}

/** Never used: an admin's form is read-only and sends nothing. */
const noStepUp: StepUpMethods = {
  password: false,
  totp: false,
  passkey: false,
  recoveryCode: false,
  freshSignIn: false,
};

/** The owner's step-up and the save button, with what the last save did. */
function SaveBar({ stepUp, saved, busy }: { stepUp: StepUpState; saved: boolean; busy: boolean }) {
  const { t } = useI18n();
  return (
    <>
      <StepUp stepUp={stepUp} />
      <SaveRow
        feedback={saved ? { tone: "success", text: t.sso.saved } : null}
        busy={busy || stepUp.passkeyBusy}
        saveLabel={t.sso.save}
      />
    </>
  );
}

/** Claim values and the role each grants; never the owner (owners are made in the console, by owners). */
function RoleMappingFieldset({
  rows,
  error,
  readOnly,
  onChange,
}: {
  rows: SsoRoleMapping[];
  error: string | undefined;
  readOnly: boolean;
  onChange: (rows: SsoRoleMapping[]) => void;
}) {
  const { t } = useI18n();
  const s = t.sso;
  const setRow = (row: number, patch: Partial<SsoRoleMapping>) =>
    onChange(rows.map((m, i) => (i === row ? { ...m, ...patch } : m)));
  const roleOptions = ssoMappableRoles.map((role) => ({ value: role, label: t.roles[role] }));
  return (
    <fieldset className={`cs-stack ${styles.fieldset}`}>
      <legend className="cs-label">{s.mappingLegend}</legend>
      <p className="cs-hint">{s.mappingHint}</p>
      <p className="cs-hint">{s.mappingNoOwner}</p>
      {error ? <p className="cs-field-error">{error}</p> : null}
      <ol className={styles.urlList}>
        {rows.map((m, row) => (
          <li key={row} className={styles.mappingRow}>
            <TextField
              className={styles.urlField}
              label={format(s.mappingValueLabel, { number: row + 1 })}
              name={`ssoMappingValue-${row}`}
              spellCheck={false}
              mono
              disabled={readOnly}
              value={m.value}
              onChange={(e) => setRow(row, { value: e.currentTarget.value })}
            />
            <SelectField
              label={format(s.mappingRoleLabel, { number: row + 1 })}
              name={`ssoMappingRole-${row}`}
              disabled={readOnly}
              value={m.role}
              onChange={(event) => setRow(row, { role: event.currentTarget.value as SsoRoleMapping["role"] })}
              options={roleOptions}
            />
            {rows.length > 1 && !readOnly ? (
              <Button
                className={styles.mappingRemove}
                variant="ghost"
                iconOnly
                aria-label={format(s.removeMapping, { number: row + 1 })}
                onClick={() => onChange(rows.filter((_, i) => i !== row))}
              >
                <Icon name="trash" />
              </Button>
            ) : null}
          </li>
        ))}
      </ol>
      {readOnly ? null : (
        <div>
          <Button
            size="small"
            icon={<Icon name="plus" />}
            disabled={rows.length >= 100}
            onClick={() => onChange([...rows, { value: "", role: "staff" }])}
          >
            {s.addMapping}
          </Button>
        </div>
      )}
    </fieldset>
  );
}
