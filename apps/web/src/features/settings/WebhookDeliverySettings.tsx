"use client";

import { webhookFormats, type OrganizationSettings } from "@clinsign/contracts";
import { Button, Card, Icon, SelectField, TextField } from "@clinsign/ui";
import type { ComponentProps } from "react";
import { format } from "../../i18n";
import { MAX_WEBHOOK_URLS } from "./settings-form";
import { StaffSessionSettings } from "./OutputSettings";
import { urlInput } from "./setting-binders";
import styles from "./settings.module.css";
import { WebhookSecret } from "./WebhookSecret";

/** What a part of the settings form gets from it (the same as the output settings get). */
export type SettingsSectionProps = ComponentProps<typeof StaffSessionSettings>;

/** How the URL rows change: one typed into, one removed, one added. */
export interface UrlRowHandlers {
  onChangeUrl(row: number, value: string): void;
  onRemoveUrl(row: number): void;
  onAddUrl(): void;
}

/** The default webhook URLs (one row each), the payload format and the signing secret. */
export function WebhookDeliverySettings({
  settings,
  canEdit,
  urlRows,
  ...section
}: SettingsSectionProps & { settings: OrganizationSettings; canEdit: boolean; urlRows: UrlRowHandlers }) {
  const { form, errors, disabled, change, t } = section;
  return (
    <Card title={t.webhooksTitle} description={t.webhooksDescription}>
      <div className="cs-stack cs-stack--lg">
        <WebhookUrlList
          urls={form.webhookUrls}
          errors={errors}
          disabled={disabled}
          canEdit={canEdit}
          t={t}
          {...urlRows}
        />
        <SelectField
          label={t.webhookFormatLabel}
          hint={t.webhookFormatHint}
          name="webhookFormat"
          value={form.webhookFormat}
          disabled={disabled}
          error={errors.webhookFormat}
          onChange={(event) =>
            change("webhookFormat", webhookFormats.find((f) => f === event.currentTarget.value) ?? "native")
          }
          options={webhookFormats.map((value) => ({ value, label: t.webhookFormats[value] }))}
        />
        <WebhookSecret settings={settings} canEdit={canEdit} />
      </div>
    </Card>
  );
}

/** One row per default URL, each with its remove button, and the button that adds a row. */
function WebhookUrlList({
  urls,
  errors,
  disabled,
  canEdit,
  t,
  onChangeUrl,
  onRemoveUrl,
  onAddUrl,
}: Pick<SettingsSectionProps, "errors" | "disabled" | "t"> & UrlRowHandlers & { urls: string[]; canEdit: boolean }) {
  return (
    <div className="cs-stack">
      {urls.length === 0 ? <p className="cs-hint">{t.webhookUrlsEmpty}</p> : null}
      {errors.webhookUrls ? <p className="cs-field-error">{errors.webhookUrls}</p> : null}
      {urls.length > 0 ? (
        <ol className={styles.urlList}>
          {urls.map((url, row) => {
            const number = row + 1;
            return (
              <li key={row} className={styles.urlRow}>
                <TextField
                  className={styles.urlField}
                  label={format(t.webhookUrlLabel, { number })}
                  hideLabel
                  name={`webhookUrl-${row}`}
                  {...urlInput}
                  value={url}
                  disabled={disabled}
                  error={errors[`webhookUrls.${row}`]}
                  onChange={(event) => onChangeUrl(row, event.currentTarget.value)}
                />
                {canEdit ? (
                  <Button
                    variant="ghost"
                    iconOnly
                    aria-label={format(t.removeWebhookUrl, { number })}
                    onClick={() => onRemoveUrl(row)}
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
            onClick={onAddUrl}
            disabled={urls.length >= MAX_WEBHOOK_URLS}
          >
            {t.addWebhookUrl}
          </Button>
        </div>
      ) : null}
    </div>
  );
}
