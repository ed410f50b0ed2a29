"use client";

import { Card, SelectField, TextField } from "@clinsign/ui";
import type { Dictionary } from "../../i18n";
import {
  MAX_SIGNED_COPY_DAYS,
  PHONE_COUNTRIES,
  TIME_ZONES,
  WHOLE_NUMBER_FIELDS,
  withCurrent,
  type SettingsErrors,
  type SettingsFormState,
} from "./settings-form";
import styles from "./settings.module.css";

type Change = <Key extends keyof SettingsFormState>(key: Key, value: SettingsFormState[Key]) => void;

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
        <TextField
          label={t.signedCopyDaysLabel}
          hint={t.signedCopyDaysHint}
          name="signedCopyDays"
          type="number"
          inputMode="numeric"
          min={0}
          max={MAX_SIGNED_COPY_DAYS}
          step={1}
          className={styles.daysField}
          value={form.signedCopyDays}
          disabled={disabled}
          error={errors.signedCopyDays}
          onChange={(event) => change("signedCopyDays", event.currentTarget.value)}
        />
        <TextField
          label={t.signatureReminderDaysLabel}
          hint={t.signatureReminderDaysHint}
          name="signatureReminderDays"
          type="number"
          inputMode="numeric"
          min={WHOLE_NUMBER_FIELDS.signatureReminderDays.min}
          max={WHOLE_NUMBER_FIELDS.signatureReminderDays.max}
          step={1}
          className={styles.daysField}
          value={form.signatureReminderDays}
          disabled={disabled}
          error={errors.signatureReminderDays}
          onChange={(event) => change("signatureReminderDays", event.currentTarget.value)}
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
          <TextField
            key={key}
            label={label}
            hint={hint}
            name={key}
            type="number"
            inputMode="numeric"
            min={WHOLE_NUMBER_FIELDS[key].min}
            max={WHOLE_NUMBER_FIELDS[key].max}
            step={1}
            className={styles.daysField}
            value={form[key]}
            disabled={disabled}
            error={errors[key]}
            onChange={(event) => change(key, event.currentTarget.value)}
          />
        ))}
      </div>
    </Card>
  );
}
