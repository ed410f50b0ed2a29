"use client";

import { webhookFormats, type OrganizationSettings } from "@clinsign/contracts";
import { Button, Card, Icon, Notice, RadioCards, SelectField, Switch, TextField } from "@clinsign/ui";
import { useMutation, useQueryClient } from "@tanstack/react-query";
import { useEffect, useRef, useState, type FormEvent } from "react";
import { useCan } from "../../components/admin-shell/SessionContext";
import { format } from "../../i18n";
import { useI18n } from "../../i18n/I18nProvider";
import { useTRPC } from "../../trpc/client";
import { describeApiError, readApiError } from "../../trpc/errors";
import {
  buildPayload,
  errorsFromFieldErrors,
  formStateFrom,
  isDirty,
  MAX_WEBHOOK_URLS,
  messageForDetailField,
  validate,
  type SessionMethod,
  type SettingsErrors,
  type SettingsFormState,
} from "./settings-form";
import { OutputSettings, StaffSessionSettings } from "./OutputSettings";
import { settingBinders, urlInput } from "./setting-binders";
import styles from "./settings.module.css";
import { WebhookSecret } from "./WebhookSecret";

type Feedback = { tone: "success" | "danger"; text: string } | null;

export function SettingsForm({ settings }: { settings: OrganizationSettings }) {
  const { t, locale } = useI18n();
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const canEdit = useCan()("organization.update");
  const formRef = useRef<HTMLFormElement>(null);

  const [form, setForm] = useState<SettingsFormState>(() => formStateFrom(settings));
  const [errors, setErrors] = useState<SettingsErrors>({});
  const [feedback, setFeedback] = useState<Feedback>(null);
  const [formError, setFormError] = useState<string | null>(null);
  // Bumped to move focus after a render: to the first invalid field, or to a new URL row.
  const [focusRequest, setFocusRequest] = useState<{ kind: "error" } | { kind: "url"; row: number } | null>(null);

  useEffect(() => {
    if (!focusRequest || !formRef.current) return;
    const selector =
      focusRequest.kind === "error" ? '[aria-invalid="true"]' : `[name="webhookUrl-${focusRequest.row}"]`;
    formRef.current.querySelector<HTMLElement>(selector)?.focus();
  }, [focusRequest]);

  const update = useMutation(
    trpc.organization.update.mutationOptions({
      onSuccess: (saved) => {
        queryClient.setQueryData(trpc.organization.settings.queryKey(), saved);
        // The header (the clinic's name) and every date (its time zone) read auth.me: a new name
        // shows at once, not after a reload (issue 31).
        void queryClient.invalidateQueries({ queryKey: trpc.auth.me.queryKey() });
        setForm(formStateFrom(saved));
        setErrors({});
        setFeedback({ tone: "success", text: t.settings.saved });
      },
    }),
  );

  function change<Key extends keyof SettingsFormState>(key: Key, value: SettingsFormState[Key]) {
    setForm((current) => ({ ...current, [key]: value }));
    setFeedback(null);
  }

  const disabled = !canEdit;
  const section = { form, errors, disabled, change, t: t.settings };
  const { textSetting, switchSetting } = settingBinders(section);

  function changeUrl(row: number, value: string) {
    change(
      "webhookUrls",
      form.webhookUrls.map((url, index) => (index === row ? value : url)),
    );
  }

  function removeUrl(row: number) {
    change(
      "webhookUrls",
      form.webhookUrls.filter((_, index) => index !== row),
    );
    // Row errors point at positions that just moved.
    setErrors((current) =>
      Object.fromEntries(Object.entries(current).filter(([key]) => !key.startsWith("webhookUrls"))),
    );
  }

  function addUrl() {
    change("webhookUrls", [...form.webhookUrls, ""]);
    setFocusRequest({ kind: "url", row: form.webhookUrls.length });
  }

  function fail(nextErrors: SettingsErrors, message: string | null) {
    setErrors(nextErrors);
    setFormError(message);
    setFeedback({ tone: "danger", text: `${t.settings.saveFailed} ${message ?? t.validation.checkFields}` });
    setFocusRequest({ kind: "error" });
  }

  function onSubmit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    setFormError(null);
    const payload = buildPayload(form);
    const clientErrors = validate(form, payload, settings, t);
    if (Object.keys(clientErrors).length > 0) return fail(clientErrors, null);
    setErrors({});
    setFeedback(null);
    update.mutate(payload.input, {
      onError: (error) => {
        const apiError = readApiError(error);
        const detailField = typeof apiError.details.field === "string" ? apiError.details.field : undefined;
        const detailMessage = detailField ? messageForDetailField(detailField, t) : undefined;
        if (apiError.fieldErrors.length > 0)
          fail(errorsFromFieldErrors(apiError.fieldErrors, payload.urlRows, t), null);
        else if (detailField && detailMessage) fail({ [detailField]: detailMessage }, null);
        else fail({}, describeApiError(apiError, t));
      },
    });
  }

  const methods: ReadonlyArray<{ value: SessionMethod; label: string; description: string }> = [
    { value: "none", label: t.settings.methodNone, description: t.settings.methodNoneHint },
    { value: "hs256", label: t.settings.methodHs256, description: t.settings.methodHs256Hint },
    { value: "jwks", label: t.settings.methodJwks, description: t.settings.methodJwksHint },
    { value: "introspection", label: t.settings.methodIntrospection, description: t.settings.methodIntrospectionHint },
  ];

  const dirty = isDirty(form, settings);

  return (
    <form
      ref={formRef}
      className="cs-stack cs-stack--lg"
      onSubmit={onSubmit}
      noValidate
      aria-describedby="settings-feedback"
    >
      {!canEdit ? <Notice tone="info">{t.settings.readOnly}</Notice> : null}
      {formError ? (
        <Notice tone="danger" role="alert" title={t.settings.saveFailed}>
          {formError}
        </Notice>
      ) : null}
      {errors.form ? (
        <Notice tone="danger" role="alert">
          {errors.form}
        </Notice>
      ) : null}

      <Card title={t.settings.generalTitle}>
        <TextField
          label={t.settings.nameLabel}
          hint={t.settings.nameHint}
          autoComplete="organization"
          maxLength={200}
          {...textSetting("name")}
        />
      </Card>

      <OutputSettings {...section} uiLocale={locale} />
      <StaffSessionSettings {...section} />

      <Card title={t.settings.webhooksTitle} description={t.settings.webhooksDescription}>
        <div className="cs-stack cs-stack--lg">
          <div className="cs-stack">
            {form.webhookUrls.length === 0 ? <p className="cs-hint">{t.settings.webhookUrlsEmpty}</p> : null}
            {errors.webhookUrls ? <p className="cs-field-error">{errors.webhookUrls}</p> : null}
            {form.webhookUrls.length > 0 ? (
              <ol className={styles.urlList}>
                {form.webhookUrls.map((url, row) => {
                  const number = row + 1;
                  return (
                    <li key={row} className={styles.urlRow}>
                      <TextField
                        className={styles.urlField}
                        label={format(t.settings.webhookUrlLabel, { number })}
                        hideLabel
                        name={`webhookUrl-${row}`}
                        {...urlInput}
                        value={url}
                        disabled={disabled}
                        error={errors[`webhookUrls.${row}`]}
                        onChange={(event) => changeUrl(row, event.currentTarget.value)}
                      />
                      {canEdit ? (
                        <Button
                          variant="ghost"
                          iconOnly
                          aria-label={format(t.settings.removeWebhookUrl, { number })}
                          onClick={() => removeUrl(row)}
                        >
                          <Icon name="trash" />
                        </Button>
                      ) : null}
                    </li>
                  );
                })}
              </ol>
            ) : null}
            {canEdit ? (
              <div>
                <Button
                  size="small"
                  icon={<Icon name="plus" />}
                  onClick={addUrl}
                  disabled={form.webhookUrls.length >= MAX_WEBHOOK_URLS}
                >
                  {t.settings.addWebhookUrl}
                </Button>
              </div>
            ) : null}
          </div>
          <SelectField
            label={t.settings.webhookFormatLabel}
            hint={t.settings.webhookFormatHint}
            name="webhookFormat"
            value={form.webhookFormat}
            disabled={disabled}
            error={errors.webhookFormat}
            onChange={(event) =>
              change("webhookFormat", webhookFormats.find((f) => f === event.currentTarget.value) ?? "native")
            }
            options={webhookFormats.map((value) => ({ value, label: t.settings.webhookFormats[value] }))}
          />
          <WebhookSecret settings={settings} canEdit={canEdit} />
        </div>
      </Card>

      <Card title={t.settings.secondFactorTitle}>
        <Switch
          label={t.settings.secondFactorLabel}
          description={t.settings.secondFactorDescription}
          {...switchSetting("requireSecondFactor")}
        />
      </Card>

      <Card title={t.settings.otpTitle}>
        <Switch label={t.settings.otpLabel} description={t.settings.otpDescription} {...switchSetting("otpEnabled")} />
      </Card>

      <Card title={t.settings.sessionTitle} description={t.settings.sessionDescription}>
        <div className="cs-stack cs-stack--lg">
          <RadioCards
            legend={t.settings.methodLegend}
            name="sessionMethod"
            value={form.sessionMethod}
            options={methods}
            disabled={disabled}
            error={errors.sessionMethod}
            onChange={(value) => change("sessionMethod", value)}
          />
          {form.sessionMethod === "hs256" ? (
            <TextField
              label={t.settings.jwtSecretLabel}
              hint={settings.hasSessionJwtSecret ? t.settings.jwtSecretHintSet : t.settings.jwtSecretHintUnset}
              type="password"
              autoComplete="new-password"
              spellCheck={false}
              mono
              {...textSetting("sessionJwtSecret")}
            />
          ) : null}
          {form.sessionMethod === "jwks" ? (
            <TextField label={t.settings.jwksUrlLabel} {...urlInput} {...textSetting("sessionJwksUrl")} />
          ) : null}
          {form.sessionMethod === "introspection" ? (
            <TextField
              label={t.settings.introspectionUrlLabel}
              {...urlInput}
              {...textSetting("sessionIntrospectionUrl")}
            />
          ) : null}
          {form.sessionMethod !== "none" ? (
            <>
              <TextField
                label={t.settings.audienceLabel}
                hint={t.settings.audienceHint}
                spellCheck={false}
                mono
                {...textSetting("sessionAudience")}
              />
              <TextField
                label={t.settings.issuerLabel}
                hint={t.settings.issuerHint}
                spellCheck={false}
                mono
                {...textSetting("sessionIssuer")}
              />
              <Switch
                label={t.settings.requireJtiLabel}
                description={t.settings.requireJtiDescription}
                {...switchSetting("sessionRequireJti")}
              />
              {form.sessionAudience.trim() || form.sessionIssuer.trim() ? (
                <Switch
                  label={t.settings.acceptMissingAudIssLabel}
                  description={t.settings.acceptMissingAudIssDescription}
                  {...switchSetting("sessionAcceptMissingAudIss")}
                />
              ) : null}
            </>
          ) : null}
          <div className={styles.divider} />
          <Switch
            label={t.settings.requireLabel}
            description={t.settings.requireDescription}
            {...switchSetting("requireSessionVerification")}
          />
          {errors.requireSessionVerification ? (
            <p className="cs-field-error">{errors.requireSessionVerification}</p>
          ) : null}
        </div>
      </Card>

      {canEdit ? (
        <div className={styles.saveBar}>
          <p
            id="settings-feedback"
            className={styles.feedback}
            role="status"
            aria-live="polite"
            data-tone={feedback?.tone ?? (dirty ? "muted" : undefined)}
          >
            {feedback ? (
              <>
                <Icon name={feedback.tone === "success" ? "check" : "alert"} />
                <span>{feedback.text}</span>
              </>
            ) : dirty ? (
              t.settings.unsaved
            ) : null}
          </p>
          <Button type="submit" variant="primary" busy={update.isPending}>
            {t.settings.save}
          </Button>
        </div>
      ) : null}
    </form>
  );
}
