"use client";

import { Card, Skeleton } from "@clinsign/ui";
import { useQuery } from "@tanstack/react-query";
import { PageHeader } from "../../components/PageHeader";
import { useI18n } from "../../i18n/I18nProvider";
import { useTRPC } from "../../trpc/client";
import { canAdminister, useSession } from "../../components/admin-shell/SessionContext";
import { OrganizationSealCard } from "./OrganizationSealCard";
import { RetentionSettings } from "./RetentionSettings";
import { SettingsForm } from "./SettingsForm";
import { SsoSettings } from "./SsoSettings";
import { LoadFailed } from "../../components/LoadFailed";

export function SettingsPage() {
  const { t } = useI18n();
  const trpc = useTRPC();
  const settings = useQuery(trpc.organization.settings.queryOptions());
  const admin = canAdminister(useSession());

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
        <div className="cs-stack cs-stack--lg">
          {admin ? <OrganizationSealCard /> : null}
          <SettingsForm settings={settings.data} />
          <RetentionSettings />
          {admin ? <SsoSettings /> : null}
        </div>
      )}
    </>
  );
}
