"use client";

import { can, type StaffProcedure } from "@clinsign/contracts";
import { Card, CopyField, Fact, Facts, Icon, type IconName, Notice } from "@clinsign/ui";
import Link from "next/link";
import { useSession } from "../../components/admin-shell/SessionContext";
import { PageHeader } from "../../components/PageHeader";
import { format, type Dictionary } from "../../i18n";
import { useI18n } from "../../i18n/I18nProvider";
import { AwaitingMySignature } from "../signature-requests/AwaitingMySignature";
import styles from "./Overview.module.css";

interface QuickLink {
  href: string;
  icon: IconName;
  title: keyof Dictionary["overview"];
  body: keyof Dictionary["overview"];
  /** Shown only to roles that may call this procedure (the permission table). */
  requires?: StaffProcedure;
}

const quickLinks: QuickLink[] = [
  { href: "/tokens", icon: "key", title: "tokensLink", body: "tokensLinkBody", requires: "tokens.create" },
  { href: "/settings", icon: "settings", title: "settingsLink", body: "settingsLinkBody" },
  { href: "/form-templates", icon: "template", title: "templatesLink", body: "templatesLinkBody" },
  { href: "/documents", icon: "document", title: "documentsLink", body: "documentsLinkBody" },
];

export function Overview() {
  const { t } = useI18n();
  const me = useSession();
  const links = quickLinks.filter((link) => !link.requires || can(me.role, link.requires));

  return (
    <>
      <PageHeader
        title={format(t.overview.welcome, { name: me.user.name || me.user.email })}
        description={t.overview.intro}
      />
      <div className="cs-stack cs-stack--lg">
        {me.devCertificate ? (
          <Notice tone="warning" title={t.overview.devCertificateTitle}>
            <span data-testid="dev-certificate-notice">{t.overview.devCertificateBody}</span>
          </Notice>
        ) : null}
        {me.sealLevel === "B-B" ? (
          <Notice tone="warning" title={t.overview.noTrustedTimeTitle}>
            <span data-testid="no-trusted-time-notice">{t.overview.noTrustedTimeBody}</span>
          </Notice>
        ) : null}

        <AwaitingMySignature />

        <Card title={t.overview.organizationTitle}>
          <div className={styles.orgGrid}>
            <Facts layout="stacked">
              <Fact term={t.overview.organizationName}>{me.organization.name}</Fact>
              <Fact term={t.overview.yourRole}>{t.roles[me.role]}</Fact>
            </Facts>
            <CopyField
              label={t.overview.orgId}
              hint={t.overview.orgIdHint}
              value={me.organization.id}
              labels={{ copy: t.common.copy, copied: t.common.copied, copyManually: t.common.copyManually }}
              testId="org-id"
            />
          </div>
        </Card>

        <section aria-labelledby="next-steps" className="cs-stack">
          <h2 id="next-steps">{t.overview.nextStepsTitle}</h2>
          <ul className={styles.links}>
            {links.map((link) => (
              <li key={link.href}>
                <Link href={link.href} className={styles.link}>
                  <span className={styles.linkIcon}>
                    <Icon name={link.icon} />
                  </span>
                  <span className={styles.linkText}>
                    <span className={styles.linkTitle}>{t.overview[link.title]}</span>
                    <span className={styles.linkBody}>{t.overview[link.body]}</span>
                  </span>
                </Link>
              </li>
            ))}
          </ul>
        </section>
      </div>
    </>
  );
}
