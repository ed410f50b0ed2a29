"use client";

import { Card, CopyField, LiveRegion, Notice, useAnnouncement } from "@clinsign/ui";
import { can } from "@clinsign/contracts";
import { useSession } from "../../components/admin-shell/SessionContext";
import { PageHeader } from "../../components/PageHeader";
import { useI18n } from "../../i18n/I18nProvider";
import { CreateTokenForm } from "./CreateTokenForm";
import { TokenList } from "./TokenList";

/** API tokens: the organization id, creating a token (shown once), the list, revoking. */
export function TokensPage() {
  const { t } = useI18n();
  const me = useSession();
  const [announcement, setAnnouncement] = useAnnouncement();
  const copyLabels = { copy: t.common.copy, copied: t.common.copied, copyManually: t.common.copyManually };

  return (
    <>
      <PageHeader title={t.tokens.pageTitle} description={t.tokens.description} />
      <div className="cs-stack cs-stack--lg">
        <LiveRegion announcement={announcement} />

        <Card title={t.tokens.orgIdTitle} description={t.tokens.usageHint}>
          <CopyField
            label={t.tokens.orgIdLabel}
            hint={t.tokens.orgIdHint}
            value={me.organization.id}
            labels={copyLabels}
            testId="org-id"
          />
        </Card>

        {can(me.role, "tokens.create") ? (
          <>
            <CreateTokenForm organizationId={me.organization.id} copyLabels={copyLabels} onAnnounce={setAnnouncement} />
            <TokenList onAnnounce={setAnnouncement} />
          </>
        ) : (
          <Notice tone="info" title={t.tokens.adminOnlyTitle}>
            {t.tokens.adminOnlyBody}
          </Notice>
        )}
      </div>
    </>
  );
}
