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
  type WholeNumberField,
} from "./settings-form";
import { settingBinders, type ChangeSetting } from "./setting-binders";
import styles from "./settings.module.css";

/** What a part of the settings form gets from it: the state, its errors and the way to change it. */
interface SettingsSectionProps {
  form: SettingsFormState;
  errors: SettingsErrors;
  disabled: boolean;
  change: ChangeSetting<SettingsFormState>;
  t: Dictionary["settings"];
}

/** A whole-number setting's input: the range the API accepts, as narrow as the number it holds. */
function wholeNumberInput(key: WholeNumberField) {
  const { min, max } = WHOLE_NUMBER_FIELDS[key];
  return { type: "number", inputMode: "numeric", min, max, step: 1, className: styles.daysField } as const;
}

/**
 * How the clinic's outputs are written: the language of exports, PDFs and patient texts, the
 * clock their times are on, the country of national phone numbers, how long a signer can
 * download the signed copy, and after how many days an unsigned request's signer is reminded.
 */
export function OutputSettings({ uiLocale, ...section }: SettingsSectionProps & { uiLocale: string }) {
  const { form, errors, disabled, change, t } = section;
  const { textSetting } = settingBinders(section);
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
          {...textSetting("timeZone")}
          options={withCurrent(TIME_ZONES, form.timeZone).map((zone) => ({
            value: zone,
            label: zone.replaceAll("_", " "),
          }))}
        />
        <SelectField
          label={t.phoneCountryLabel}
          hint={t.phoneCountryHint}
          {...textSetting("phoneCountry")}
          options={countries.map(({ code, name }) => ({ value: code, label: `${name} (${code})` }))}
        />
        <TextField
          label={t.signedCopyDaysLabel}
          hint={t.signedCopyDaysHint}
          {...wholeNumberInput("signedCopyDays")}
          {...textSetting("signedCopyDays")}
        />
        <TextField
          label={t.signatureReminderDaysLabel}
          hint={t.signatureReminderDaysHint}
          {...wholeNumberInput("signatureReminderDays")}
          {...textSetting("signatureReminderDays")}
        />
      </div>
    </Card>
  );
}

/** How long a staff sign-in lasts: the idle and the absolute end (core/staff: resolveStaffSession). */
export function StaffSessionSettings(section: SettingsSectionProps) {
  const { t } = section;
  const { textSetting } = settingBinders(section);
  const fields = [
    { key: "staffSessionIdleMinutes", label: t.staffSessionIdleMinutesLabel, hint: t.staffSessionIdleMinutesHint },
    { key: "staffSessionMaxHours", label: t.staffSessionMaxHoursLabel, hint: t.staffSessionMaxHoursHint },
  ] as const;
  return (
    <Card title={t.staffSessionsTitle} description={t.staffSessionsDescription}>
      <div className={styles.outputFields}>
        {fields.map(({ key, label, hint }) => (
          <TextField key={key} label={label} hint={hint} {...wholeNumberInput(key)} {...textSetting(key)} />
        ))}
      </div>
    </Card>
  );
}
