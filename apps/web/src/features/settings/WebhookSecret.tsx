"use client";

import type { OrganizationSettings } from "@clinsign/contracts";
import { Badge, Button, ConfirmDialog, CopyField, Dialog, Icon, Notice } from "@clinsign/ui";
import { useMutation, useQueryClient } from "@tanstack/react-query";
import { useState } from "react";
import { useI18n } from "../../i18n/I18nProvider";
import { useTRPC } from "../../trpc/client";
import { describeApiError, readApiError } from "../../trpc/errors";
import styles from "./settings.module.css";

/** Whether a webhook signing secret is set, and rotating it (the new one is shown once). */
export function WebhookSecret({ settings, canEdit }: { settings: OrganizationSettings; canEdit: boolean }) {
  const { t } = useI18n();
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const [confirming, setConfirming] = useState(false);
  const [secret, setSecret] = useState<string | null>(null);

  const rotate = useMutation(
    trpc.organization.rotateWebhookSecret.mutationOptions({
      onSuccess: (result) => {
        setConfirming(false);
        setSecret(result.secret);
        void queryClient.invalidateQueries({ queryKey: trpc.organization.settings.queryKey() });
      },
    }),
  );

  function start() {
    rotate.reset();
    // With no secret yet there is nothing to break: create one right away.
    if (settings.hasWebhookSecret) setConfirming(true);
    else rotate.mutate();
  }

  return (
    <div className={styles.secret}>
      <div className={styles.secretText}>
        <div className="cs-row">
          <h3>{t.settings.secretTitle}</h3>
          <Badge tone={settings.hasWebhookSecret ? "success" : "warning"}>
            {settings.hasWebhookSecret ? t.settings.secretSet : t.settings.secretNotSet}
          </Badge>
        </div>
        <p className="cs-hint">{t.settings.secretDescription}</p>
        {rotate.error && !confirming ? (
          <Notice tone="danger" role="alert">
            {describeApiError(readApiError(rotate.error), t)}
          </Notice>
        ) : null}
      </div>
      {canEdit ? (
        <Button icon={<Icon name="refresh" />} onClick={start} busy={rotate.isPending && !confirming}>
          {settings.hasWebhookSecret ? t.settings.rotateSecret : t.settings.createSecret}
        </Button>
      ) : null}

      <ConfirmDialog
        open={confirming}
        onCancel={() => setConfirming(false)}
        onConfirm={() => rotate.mutate()}
        tone="primary"
        title={t.settings.rotateTitle}
        description={t.settings.rotateBody}
        confirmLabel={t.settings.rotateConfirm}
        cancelLabel={t.common.cancel}
        closeLabel={t.common.close}
        busy={rotate.isPending}
        error={rotate.error ? describeApiError(readApiError(rotate.error), t) : null}
      />

      <Dialog
        open={secret !== null}
        onClose={() => setSecret(null)}
        title={t.settings.rotatedTitle}
        closeLabel={t.common.close}
        footer={
          <Button variant="primary" onClick={() => setSecret(null)}>
            {t.common.done}
          </Button>
        }
      >
        {secret ? (
          <>
            <Notice tone="warning" title={t.settings.rotatedWarning} />
            <CopyField
              label={t.settings.secretLabel}
              value={secret}
              labels={{ copy: t.common.copy, copied: t.common.copied, copyManually: t.common.copyManually }}
              testId="webhook-secret"
            />
          </>
        ) : null}
      </Dialog>
    </div>
  );
}
