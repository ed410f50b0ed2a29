"use client";

import { useQuery } from "@tanstack/react-query";
import { PageHeader } from "../../components/PageHeader";
import { QueryState } from "../../components/QueryState";
import { useI18n } from "../../i18n/I18nProvider";
import { useTRPC } from "../../trpc/client";
import { FhirPushSettings } from "../fhir-push/FhirPushSettings";
import { canAdminister, useSession } from "../../components/admin-shell/SessionContext";
import { OrganizationSealCard } from "./OrganizationSealCard";
import { LegalHolds } from "./LegalHolds";
import { RetentionSettings } from "./RetentionSettings";
import { SettingsForm } from "./SettingsForm";
import { SsoSettings } from "./SsoSettings";

export function SettingsPage() {
  const { t } = useI18n();
  const trpc = useTRPC();
  const settings = useQuery(trpc.organization.settings.queryOptions());
  const admin = canAdminister(useSession());

  return (
    <>
      <PageHeader title={t.settings.pageTitle} description={t.settings.description} />
      <QueryState query={settings} lines={4} card>
        {(data) => (
          <div className="cs-stack cs-stack--lg">
            {admin ? <OrganizationSealCard /> : null}
            <SettingsForm settings={data} />
            <RetentionSettings />
            <LegalHolds />
            {admin ? <SsoSettings /> : null}
            {admin ? <FhirPushSettings /> : null}
          </div>
        )}
      </QueryState>
    </>
  );
}
