"use client";

import { Card, Skeleton } from "@clinsign/ui";
import { useQuery } from "@tanstack/react-query";
import { PageHeader } from "../../components/PageHeader";
import { useI18n } from "../../i18n/I18nProvider";
import { useTRPC } from "../../trpc/client";
import { SettingsForm } from "./SettingsForm";
import { LoadFailed } from "../../components/LoadFailed";

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
        <LoadFailed query={settings} />
      ) : (
        <SettingsForm settings={settings.data} />
      )}
    </>
  );
}
