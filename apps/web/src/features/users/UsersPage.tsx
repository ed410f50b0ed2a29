"use client";

import { LiveRegion, Notice, useAnnouncement } from "@clinsign/ui";
import { useCan } from "../../components/admin-shell/SessionContext";
import { PageHeader } from "../../components/PageHeader";
import { useI18n } from "../../i18n/I18nProvider";
import { InviteForm } from "./InviteForm";
import { InvitesList } from "./InvitesList";
import { MembersList } from "./MembersList";

/** Users (owners and admins): invite, the open invitations, the members with their role and state. */
export function UsersPage() {
  const { t } = useI18n();
  const can = useCan();
  const [announcement, setAnnouncement] = useAnnouncement();

  return (
    <>
      <PageHeader title={t.users.pageTitle} description={t.users.description} />
      <div className="cs-stack cs-stack--lg">
        <LiveRegion announcement={announcement} />
        {can("users.list") ? (
          <>
            <Notice tone="info" title={t.users.rolesTitle}>
              {t.users.rolesBody}
            </Notice>
            {can("users.invite") ? <InviteForm onAnnounce={setAnnouncement} /> : null}
            <InvitesList onAnnounce={setAnnouncement} />
            <MembersList onAnnounce={setAnnouncement} />
          </>
        ) : (
          <Notice tone="info" title={t.users.adminOnlyTitle}>
            {t.users.adminOnlyBody}
          </Notice>
        )}
      </div>
    </>
  );
}
