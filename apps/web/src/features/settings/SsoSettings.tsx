"use client";

import { roles, type SsoSettings as Settings } from "@clinsign/contracts";
import { Button, Card, CopyField, Icon, Notice, SelectField, Skeleton, Switch, TextField } from "@clinsign/ui";
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useState, type FormEvent } from "react";
import { LoadFailed } from "../../components/LoadFailed";
import { format } from "../../i18n";
import { useI18n } from "../../i18n/I18nProvider";
import { useTRPC } from "../../trpc/client";
import { describeApiError, readApiError, translateValidationMessage } from "../../trpc/errors";
import { settingBinders, urlInput } from "./setting-binders";
import styles from "./settings.module.css";

type Role = (typeof roles)[number];

interface FormState {
  enabled: boolean;
  displayName: string;
  issuer: string;
  clientId: string;
  clientSecret: string;
  allowedDomains: string;
  roleClaim: string;
  roleMapping: { value: string; role: Role }[];
  ssoOnly: boolean;
  breakGlassUserId: string;
}

type Errors = Partial<Record<keyof FormState | "form", string>>;

const stateFrom = (s: Settings): FormState => ({
  enabled: s.enabled,
  displayName: s.displayName,
  issuer: s.issuer,
  clientId: s.clientId,
  clientSecret: "",
  allowedDomains: s.allowedDomains.join(", "),
  roleClaim: s.roleClaim,
  roleMapping: s.roleMapping.length > 0 ? s.roleMapping : [{ value: "", role: "staff" }],
  ssoOnly: s.ssoOnly,
  breakGlassUserId: s.breakGlassUserId ?? "",
});

/** Single sign-on with the organization's OpenID Connect provider (admins only). */
export function SsoSettings() {
  const { t } = useI18n();
  const trpc = useTRPC();
  const settings = useQuery(trpc.organization.sso.queryOptions());
  return (
    <Card title={t.sso.title} description={t.sso.description}>
      {settings.isPending ? (
        <Skeleton label={t.common.loading} lines={4} />
      ) : settings.error ? (
        <LoadFailed query={settings} />
      ) : (
        <SsoForm settings={settings.data} />
      )}
    </Card>
  );
}

function SsoForm({ settings }: { settings: Settings }) {
  const { t } = useI18n();
  const s = t.sso;
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const [form, setForm] = useState(() => stateFrom(settings));
  const [errors, setErrors] = useState<Errors>({});
  const [saved, setSaved] = useState(false);
  const change = <K extends keyof FormState>(key: K, value: FormState[K]) => {
    setForm((f) => ({ ...f, [key]: value }));
    setSaved(false);
  };
  const save = useMutation(
    trpc.organization.saveSso.mutationOptions({
      onSuccess: (next) => {
        queryClient.setQueryData(trpc.organization.sso.queryKey(), next);
        setForm(stateFrom(next));
        setErrors({});
        setSaved(true);
      },
      onError: (error) => {
        const apiError = readApiError(error);
        const next: Errors = {};
        for (const { key, message } of apiError.fieldErrors) {
          const field = (key.split(".")[0] ?? key) as keyof FormState;
          next[field] ??= translateValidationMessage(message, t);
        }
        const field = typeof apiError.details.field === "string" ? (apiError.details.field as keyof FormState) : null;
        if (field && field in form) next[field] = apiError.message;
        if (Object.keys(next).length === 0) next.form = describeApiError(apiError, t);
        setErrors(next);
      },
    }),
  );

  function onSubmit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    setSaved(false);
    const next: Errors = {};
    if (!form.displayName.trim()) next.displayName = t.validation.required;
    if (!/^https?:\/\/\S+$/.test(form.issuer.trim())) next.issuer = s.issuerInvalid;
    if (!form.clientId.trim()) next.clientId = t.validation.required;
    if (!settings.hasClientSecret && !form.clientSecret) next.clientSecret = t.validation.required;
    const domains = form.allowedDomains
      .split(/[\s,;]+/)
      .map((d) => d.trim())
      .filter(Boolean);
    if (domains.length === 0) next.allowedDomains = s.domainsRequired;
    if (!form.roleClaim.trim()) next.roleClaim = t.validation.required;
    const mapping = form.roleMapping.filter((m) => m.value.trim());
    if (mapping.length === 0) next.roleMapping = s.mappingRequired;
    if (form.ssoOnly && !form.breakGlassUserId) next.breakGlassUserId = s.breakGlassRequired;
    setErrors(next);
    if (Object.keys(next).length > 0) return;
    save.mutate({
      enabled: form.enabled,
      displayName: form.displayName.trim(),
      issuer: form.issuer.trim(),
      clientId: form.clientId.trim(),
      ...(form.clientSecret ? { clientSecret: form.clientSecret } : {}),
      allowedDomains: domains,
      roleClaim: form.roleClaim.trim(),
      roleMapping: mapping.map((m) => ({ value: m.value.trim(), role: m.role })),
      ssoOnly: form.ssoOnly,
      breakGlassUserId: form.breakGlassUserId || null,
    });
  }

  // Only admins reach this form, so nothing in it is read-only.
  const { textSetting, switchSetting } = settingBinders({ form, errors, disabled: false, change });
  const copyLabels = { copy: t.common.copy, copied: t.common.copied, copyManually: t.common.copyManually };
  const setMapping = (row: number, patch: Partial<FormState["roleMapping"][number]>) =>
    change(
      "roleMapping",
      form.roleMapping.map((m, i) => (i === row ? { ...m, ...patch } : m)),
    );

  return (
    <form className="cs-stack cs-stack--lg" onSubmit={onSubmit} noValidate aria-label={s.title}>
      {errors.form ? (
        <Notice tone="danger" role="alert">
          {errors.form}
        </Notice>
      ) : null}
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
      <div className={styles.divider} />
      <TextField
        label={s.roleClaimLabel}
        hint={s.roleClaimHint}
        spellCheck={false}
        mono
        {...textSetting("roleClaim", "ssoRoleClaim")}
      />
      <fieldset className={`cs-stack ${styles.fieldset}`}>
        <legend className="cs-label">{s.mappingLegend}</legend>
        <p className="cs-hint">{s.mappingHint}</p>
        {errors.roleMapping ? <p className="cs-field-error">{errors.roleMapping}</p> : null}
        <ol className={styles.urlList}>
          {form.roleMapping.map((m, row) => (
            <li key={row} className={styles.mappingRow}>
              <TextField
                className={styles.urlField}
                label={format(s.mappingValueLabel, { number: row + 1 })}
                name={`ssoMappingValue-${row}`}
                spellCheck={false}
                mono
                value={m.value}
                onChange={(e) => setMapping(row, { value: e.currentTarget.value })}
              />
              <SelectField
                label={format(s.mappingRoleLabel, { number: row + 1 })}
                name={`ssoMappingRole-${row}`}
                value={m.role}
                onChange={(event) => setMapping(row, { role: event.currentTarget.value as Role })}
                options={roles.map((role) => ({
                  value: role,
                  label: (t.roles as Record<string, string>)[role] ?? role,
                }))}
              />
              {form.roleMapping.length > 1 ? (
                <Button
                  className={styles.mappingRemove}
                  variant="ghost"
                  iconOnly
                  aria-label={format(s.removeMapping, { number: row + 1 })}
                  onClick={() =>
                    change(
                      "roleMapping",
                      form.roleMapping.filter((_, i) => i !== row),
                    )
                  }
                >
                  <Icon name="trash" />
                </Button>
              ) : null}
            </li>
          ))}
        </ol>
        <div>
          <Button
            size="small"
            icon={<Icon name="plus" />}
            disabled={form.roleMapping.length >= 100}
            onClick={() => change("roleMapping", [...form.roleMapping, { value: "", role: "staff" }])}
          >
            {s.addMapping}
          </Button>
        </div>
      </fieldset>
      <div className={styles.divider} />
      <Switch label={s.ssoOnlyLabel} description={s.ssoOnlyDescription} {...switchSetting("ssoOnly")} />
      {form.ssoOnly ? (
        <SelectField
          label={s.breakGlassLabel}
          hint={s.breakGlassHint}
          {...textSetting("breakGlassUserId", "ssoBreakGlass")}
          placeholder={s.breakGlassNone}
          options={settings.owners.map((owner) => ({
            value: owner.id,
            label: owner.name ? `${owner.name} (${owner.email})` : owner.email,
          }))}
        />
      ) : null}
      <div className={styles.ssoSave}>
        <p className={styles.feedback} role="status" aria-live="polite" data-tone={saved ? "success" : undefined}>
          {saved ? (
            <>
              <Icon name="check" />
              <span>{s.saved}</span>
            </>
          ) : null}
        </p>
        <Button type="submit" variant="primary" busy={save.isPending}>
          {s.save}
        </Button>
      </div>
    </form>
  );
}
