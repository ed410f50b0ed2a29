"use client";

import type { OrganizationSettings } from "@clinsign/contracts";
import { Card, Notice, Switch, TextField } from "@clinsign/ui";
import { useMutation, useQueryClient } from "@tanstack/react-query";
import { useEffect, useReducer, useRef, type Dispatch, type FormEvent } from "react";
import { useCan } from "../../components/admin-shell/SessionContext";
import { useI18n } from "../../i18n/I18nProvider";
import { useTRPC } from "../../trpc/client";
import { describeApiError, readApiError } from "../../trpc/errors";
import {
  buildPayload,
  errorsFromFieldErrors,
  formStateFrom,
  isDirty,
  messageForDetailField,
  validate,
  type SettingsErrors,
  type SettingsFormState,
} from "./settings-form";
import {
  settingsFormModel,
  settingsFormReducer,
  type FocusRequest,
  type SettingsFormAction,
} from "./settings-form-reducer";
import { OutputSettings, StaffSessionSettings } from "./OutputSettings";
import { SaveRow } from "./SaveRow";
import { SessionVerificationSettings } from "./SessionVerificationSettings";
import { settingBinders } from "./setting-binders";
import styles from "./settings.module.css";
import { WebhookDeliverySettings, type SettingsSectionProps } from "./WebhookDeliverySettings";

/** After the render that asked for it: the focus to the first invalid field, or to a new URL row. */
function useFocusRequest(focusRequest: FocusRequest) {
  const formRef = useRef<HTMLFormElement>(null);
  useEffect(() => {
    if (!focusRequest || !formRef.current) return;
    const selector =
      focusRequest.kind === "error" ? '[aria-invalid="true"]' : `[name="webhookUrl-${focusRequest.row}"]`;
    formRef.current.querySelector<HTMLElement>(selector)?.focus();
  }, [focusRequest]);
  return formRef;
}

/**
 * Saving the form: the browser's checks first, then the update; the server's refusal lands on
 * the field it names (a URL row by its position in the form), else above the form.
 */
function useSettingsSave(
  settings: OrganizationSettings,
  form: SettingsFormState,
  dispatch: Dispatch<SettingsFormAction>,
) {
  const { t } = useI18n();
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const update = useMutation(
    trpc.organization.update.mutationOptions({
      onSuccess: (saved) => {
        queryClient.setQueryData(trpc.organization.settings.queryKey(), saved);
        // The header (the clinic's name) and every date (its time zone) read auth.me: a new name
        // shows at once, not after a reload (issue 31).
        void queryClient.invalidateQueries({ queryKey: trpc.auth.me.queryKey() });
        dispatch({ type: "saved", form: formStateFrom(saved), text: t.settings.saved });
      },
    }),
  );

  const fail = (nextErrors: SettingsErrors, message: string | null) =>
    dispatch({
      type: "fail",
      errors: nextErrors,
      formError: message,
      text: `${t.settings.saveFailed} ${message ?? t.validation.checkFields}`,
    });

  function onSubmit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    dispatch({ type: "submit" });
    const payload = buildPayload(form);
    const clientErrors = validate(form, payload, settings, t);
    if (Object.keys(clientErrors).length > 0) return fail(clientErrors, null);
    dispatch({ type: "send" });
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

  return { onSubmit, busy: update.isPending };
}

/** The organization's settings: one form of sections, saved together from the sticky bar. */
export function SettingsForm({ settings }: { settings: OrganizationSettings }) {
  const { t, locale } = useI18n();
  const canEdit = useCan()("organization.update");
  const [model, dispatch] = useReducer(settingsFormReducer, settings, (initial) =>
    settingsFormModel(formStateFrom(initial)),
  );
  const { form, errors, feedback, formError } = model;
  const formRef = useFocusRequest(model.focusRequest);
  const { onSubmit, busy } = useSettingsSave(settings, form, dispatch);

  const change = <Key extends keyof SettingsFormState>(key: Key, value: SettingsFormState[Key]) =>
    dispatch({ type: "change", patch: { [key]: value } });
  const section = { form, errors, disabled: !canEdit, change, t: t.settings };
  const urlRows = {
    onChangeUrl: (row: number, value: string) => dispatch({ type: "changeUrl", row, value }),
    onRemoveUrl: (row: number) => dispatch({ type: "removeUrl", row }),
    onAddUrl: () => dispatch({ type: "addUrl" }),
  };

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

      <GeneralSettings {...section} />
      <OutputSettings {...section} uiLocale={locale} />
      <StaffSessionSettings {...section} />
      <WebhookDeliverySettings {...section} settings={settings} canEdit={canEdit} urlRows={urlRows} />
      <SecondFactorSettings {...section} />
      <SessionVerificationSettings {...section} hasSessionJwtSecret={settings.hasSessionJwtSecret} />

      {canEdit ? (
        <SaveRow
          className={styles.saveBar}
          feedbackId="settings-feedback"
          feedback={feedback}
          hint={isDirty(form, settings) ? t.settings.unsaved : null}
          busy={busy}
          saveLabel={t.settings.save}
        />
      ) : null}
    </form>
  );
}

/** The clinic's name. */
function GeneralSettings(section: SettingsSectionProps) {
  const { textSetting } = settingBinders(section);
  return (
    <Card title={section.t.generalTitle}>
      <TextField
        label={section.t.nameLabel}
        hint={section.t.nameHint}
        autoComplete="organization"
        maxLength={200}
        {...textSetting("name")}
      />
    </Card>
  );
}

/** What staff and signers prove besides a password or a link: a second factor, a one-time code. */
function SecondFactorSettings(section: SettingsSectionProps) {
  const { t } = section;
  const { switchSetting } = settingBinders(section);
  return (
    <>
      <Card title={t.secondFactorTitle}>
        <Switch
          label={t.secondFactorLabel}
          description={t.secondFactorDescription}
          {...switchSetting("requireSecondFactor")}
        />
      </Card>

      <Card title={t.otpTitle}>
        <Switch label={t.otpLabel} description={t.otpDescription} {...switchSetting("otpEnabled")} />
      </Card>
    </>
  );
}
