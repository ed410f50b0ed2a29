"use client";

import { Card, SelectField, TextField } from "@clinsign/ui";
import type { Dictionary } from "../../i18n";
import {
  PHONE_COUNTRIES,
  TIME_ZONES,
  WHOLE_NUMBER_FIELDS,
  withCurrent,
  type SettingsErrors,
  type SettingsFormState,
} from "./settings-form";
import styles from "./settings.module.css";

type Change = <Key extends keyof SettingsFormState>(key: Key, value: SettingsFormState[Key]) => void;

/** One whole-number setting (days, minutes, hours) with the range the API accepts (WHOLE_NUMBER_FIELDS). */
function WholeNumberSetting({
  field,
  label,
  hint,
  form,
  errors,
  disabled,
  change,
}: {
  field: keyof typeof WHOLE_NUMBER_FIELDS;
  label: string;
  hint: string;
  form: SettingsFormState;
  errors: SettingsErrors;
  disabled: boolean;
  change: Change;
}) {
  return (
    <TextField
      label={label}
      hint={hint}
      name={field}
      type="number"
      inputMode="numeric"
      min={WHOLE_NUMBER_FIELDS[field].min}
      max={WHOLE_NUMBER_FIELDS[field].max}
      step={1}
      className={styles.daysField}
      value={form[field]}
      disabled={disabled}
      error={errors[field]}
      onChange={(event) => change(field, event.currentTarget.value)}
    />
  );
}

/**
 * How the clinic's outputs are written: the language of exports, PDFs and patient texts, the
 * clock their times are on, the country of national phone numbers, how long a signer can
 * download the signed copy, and after how many days an unsigned request's signer is reminded.
 */
export function OutputSettings({
  form,
  errors,
  disabled,
  change,
  t,
  uiLocale,
}: {
  form: SettingsFormState;
  errors: SettingsErrors;
  disabled: boolean;
  change: Change;
  t: Dictionary["settings"];
  uiLocale: string;
}) {
  const regionName = new Intl.DisplayNames([uiLocale], { type: "region" });
  const countries = withCurrent(PHONE_COUNTRIES, form.phoneCountry)
    .map((code) => ({ code, name: regionName.of(code) ?? code }))
    .sort((a, b) => a.name.localeCompare(b.name, uiLocale));
  return (
    <Card title={t.outputsTitle} description={t.outputsDescription}>
      <div className={styles.outputFields}>
        <SelectField
          label={t.localeLabel}
          hint={t.localeHint}
          name="locale"
          value={form.locale}
          disabled={disabled}
          error={errors.locale}
          onChange={(event) => change("locale", event.currentTarget.value === "en" ? "en" : "de")}
          options={[
            { value: "de", label: t.localeDe },
            { value: "en", label: t.localeEn },
          ]}
        />
        <SelectField
          label={t.timeZoneLabel}
          hint={t.timeZoneHint}
          name="timeZone"
          value={form.timeZone}
          disabled={disabled}
          error={errors.timeZone}
          onChange={(event) => change("timeZone", event.currentTarget.value)}
          options={withCurrent(TIME_ZONES, form.timeZone).map((zone) => ({
            value: zone,
            label: zone.replaceAll("_", " "),
          }))}
        />
        <SelectField
          label={t.phoneCountryLabel}
          hint={t.phoneCountryHint}
          name="phoneCountry"
          value={form.phoneCountry}
          disabled={disabled}
          error={errors.phoneCountry}
          onChange={(event) => change("phoneCountry", event.currentTarget.value)}
          options={countries.map(({ code, name }) => ({ value: code, label: `${name} (${code})` }))}
        />
        <WholeNumberSetting
          field="signedCopyDays"
          label={t.signedCopyDaysLabel}
          hint={t.signedCopyDaysHint}
          {...{ form, errors, disabled, change }}
        />
        <WholeNumberSetting
          field="signatureReminderDays"
          label={t.signatureReminderDaysLabel}
          hint={t.signatureReminderDaysHint}
          {...{ form, errors, disabled, change }}
        />
      </div>
    </Card>
  );
}

/** How long a staff sign-in lasts: the idle and the absolute end (core/staff: resolveStaffSession). */
export function StaffSessionSettings({
  form,
  errors,
  disabled,
  change,
  t,
}: {
  form: SettingsFormState;
  errors: SettingsErrors;
  disabled: boolean;
  change: Change;
  t: Dictionary["settings"];
}) {
  const fields = [
    { key: "staffSessionIdleMinutes", label: t.staffSessionIdleMinutesLabel, hint: t.staffSessionIdleMinutesHint },
    { key: "staffSessionMaxHours", label: t.staffSessionMaxHoursLabel, hint: t.staffSessionMaxHoursHint },
  ] as const;
  return (
    <Card title={t.staffSessionsTitle} description={t.staffSessionsDescription}>
      <div className={styles.outputFields}>
        {fields.map(({ key, label, hint }) => (
          <WholeNumberSetting key={key} field={key} label={label} hint={hint} {...{ form, errors, disabled, change }} />
        ))}
      </div>
    </Card>
  );
}
