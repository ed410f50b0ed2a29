"use client";

import { Card, TextField } from "@clinsign/ui";
import { useId } from "react";
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

export function SelectField({
  label,
  hint,
  value,
  disabled,
  error,
  name,
  onChange,
  children,
}: {
  label: string;
  hint?: string;
  value: string;
  disabled: boolean;
  error?: string;
  name: string;
  onChange: (value: string) => void;
  children: React.ReactNode;
}) {
  const id = `select${useId()}`;
  return (
    <div className="cs-field">
      <label className="cs-label" htmlFor={id}>
        {label}
      </label>
      {hint ? (
        <span id={`${id}-hint`} className="cs-hint">
          {hint}
        </span>
      ) : null}
      <select
        id={id}
        name={name}
        className={`cs-input ${styles.select}`}
        value={value}
        disabled={disabled}
        aria-describedby={[hint && `${id}-hint`, error && `${id}-error`].filter(Boolean).join(" ") || undefined}
        aria-invalid={error ? true : undefined}
        onChange={(event) => onChange(event.currentTarget.value)}
      >
        {children}
      </select>
      {error ? (
        <span id={`${id}-error`} className="cs-field-error">
          {error}
        </span>
      ) : null}
    </div>
  );
}

/**
 * How the clinic's outputs are written: the language of exports, PDFs and patient texts, the
 * clock their times are on, the country of national phone numbers, and how long a signer can
 * download the signed copy.
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
          onChange={(value) => change("locale", value === "en" ? "en" : "de")}
        >
          <option value="de">{t.localeDe}</option>
          <option value="en">{t.localeEn}</option>
        </SelectField>
        <SelectField
          label={t.timeZoneLabel}
          hint={t.timeZoneHint}
          name="timeZone"
          value={form.timeZone}
          disabled={disabled}
          error={errors.timeZone}
          onChange={(value) => change("timeZone", value)}
        >
          {withCurrent(TIME_ZONES, form.timeZone).map((zone) => (
            <option key={zone} value={zone}>
              {zone.replaceAll("_", " ")}
            </option>
          ))}
        </SelectField>
        <SelectField
          label={t.phoneCountryLabel}
          hint={t.phoneCountryHint}
          name="phoneCountry"
          value={form.phoneCountry}
          disabled={disabled}
          error={errors.phoneCountry}
          onChange={(value) => change("phoneCountry", value)}
        >
          {countries.map(({ code, name }) => (
            <option key={code} value={code}>
              {name} ({code})
            </option>
          ))}
        </SelectField>
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
