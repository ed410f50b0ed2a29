"use client";

import { Card, RadioCards, Switch, TextField } from "@clinsign/ui";
import type { SessionMethod } from "./settings-form";
import { settingBinders, urlInput } from "./setting-binders";
import styles from "./settings.module.css";
import type { SettingsSectionProps } from "./WebhookDeliverySettings";

/**
 * How the clinic's own sign-in tokens are checked when a signing link carries one: the method,
 * its secret or URL, the audience, issuer and replay checks, and whether a token is required.
 */
export function SessionVerificationSettings({
  hasSessionJwtSecret,
  ...section
}: SettingsSectionProps & { hasSessionJwtSecret: boolean }) {
  const { form, errors, disabled, change, t } = section;
  const { textSetting, switchSetting } = settingBinders(section);
  const methods: ReadonlyArray<{ value: SessionMethod; label: string; description: string }> = [
    { value: "none", label: t.methodNone, description: t.methodNoneHint },
    { value: "hs256", label: t.methodHs256, description: t.methodHs256Hint },
    { value: "jwks", label: t.methodJwks, description: t.methodJwksHint },
    { value: "introspection", label: t.methodIntrospection, description: t.methodIntrospectionHint },
  ];
  return (
    <Card title={t.sessionTitle} description={t.sessionDescription}>
      <div className="cs-stack cs-stack--lg">
        <RadioCards
          legend={t.methodLegend}
          name="sessionMethod"
          value={form.sessionMethod}
          options={methods}
          disabled={disabled}
          error={errors.sessionMethod}
          onChange={(value) => change("sessionMethod", value)}
        />
        {form.sessionMethod === "hs256" ? (
          <TextField
            label={t.jwtSecretLabel}
            hint={hasSessionJwtSecret ? t.jwtSecretHintSet : t.jwtSecretHintUnset}
            type="password"
            autoComplete="new-password"
            spellCheck={false}
            mono
            {...textSetting("sessionJwtSecret")}
          />
        ) : null}
        {form.sessionMethod === "jwks" ? (
          <TextField label={t.jwksUrlLabel} {...urlInput} {...textSetting("sessionJwksUrl")} />
        ) : null}
        {form.sessionMethod === "introspection" ? (
          <TextField label={t.introspectionUrlLabel} {...urlInput} {...textSetting("sessionIntrospectionUrl")} />
        ) : null}
        {form.sessionMethod !== "none" ? <TokenClaimChecks {...section} /> : null}
        <div className={styles.divider} />
        <Switch
          label={t.requireLabel}
          description={t.requireDescription}
          {...switchSetting("requireSessionVerification")}
        />
        {errors.requireSessionVerification ? (
          <p className="cs-field-error">{errors.requireSessionVerification}</p>
        ) : null}
      </div>
    </Card>
  );
}

/** The checks of a token's claims, once a method is chosen: audience, issuer, replay. */
function TokenClaimChecks(section: SettingsSectionProps) {
  const { form, t } = section;
  const { textSetting, switchSetting } = settingBinders(section);
  return (
    <>
      <TextField
        label={t.audienceLabel}
        hint={t.audienceHint}
        spellCheck={false}
        mono
        {...textSetting("sessionAudience")}
      />
      <TextField label={t.issuerLabel} hint={t.issuerHint} spellCheck={false} mono {...textSetting("sessionIssuer")} />
      <Switch label={t.requireJtiLabel} description={t.requireJtiDescription} {...switchSetting("sessionRequireJti")} />
      {form.sessionAudience.trim() || form.sessionIssuer.trim() ? (
        <Switch
          label={t.acceptMissingAudIssLabel}
          description={t.acceptMissingAudIssDescription}
          {...switchSetting("sessionAcceptMissingAudIss")}
        />
      ) : null}
    </>
  );
}
