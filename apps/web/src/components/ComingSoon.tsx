"use client";

import { Badge, Card, EmptyState } from "@clinsign/ui";
import Link from "next/link";
import { format } from "../i18n";
import { useI18n } from "../i18n/I18nProvider";
import { navigation, type SectionKey } from "./admin-shell/nav";
import { PageHeader } from "./PageHeader";

/** The page of a section that is not built yet: its purpose and a way back, never a dead end. */
export function ComingSoon({ section }: { section: SectionKey }) {
  const { t } = useI18n();
  const icon = navigation.flatMap((group) => group.items).find((item) => item.key === section)?.icon ?? "inbox";
  const title = t.nav[section];
  return (
    <>
      <PageHeader title={title} description={t.sections[section]} actions={<Badge tone="accent">{t.comingSoon.badge}</Badge>} />
      <Card>
        <EmptyState
          icon={icon}
          title={format(t.comingSoon.title, { section: title })}
          description={t.comingSoon.body}
          action={
            <Link href="/" className="cs-button cs-button--secondary">
              {t.common.backToOverview}
            </Link>
          }
        />
      </Card>
    </>
  );
}
