"use client";

import { Button, Card, Notice, Skeleton } from "@clinsign/ui";
import { useQuery } from "@tanstack/react-query";
import { PageHeader } from "../../components/PageHeader";
import { useI18n } from "../../i18n/I18nProvider";
import { useTRPC } from "../../trpc/client";
import { describeApiError, readApiError } from "../../trpc/errors";
import { SettingsForm } from "./SettingsForm";

export function SettingsPage() {
  const { t } = useI18n();
  const trpc = useTRPC();
  const settings = useQuery(trpc.organization.settings.queryOptions());

  return (
    <>
      <PageHeader title={t.settings.pageTitle} description={t.settings.description} />
      {settings.isPending ? (
        <Card>
          <Skeleton label={t.common.loading} lines={4} />
        </Card>
      ) : settings.error ? (
        <div className="cs-stack">
          <Notice tone="danger" role="alert" title={t.errors.loadFailed}>
            {describeApiError(readApiError(settings.error), t)}
          </Notice>
          <div>
            <Button onClick={() => settings.refetch()} busy={settings.isFetching}>
              {t.common.retry}
            </Button>
          </div>
        </div>
      ) : (
        <SettingsForm settings={settings.data} />
      )}
    </>
  );
}
