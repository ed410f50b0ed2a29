"use client";

import type { Me } from "@clinsign/contracts";
import { Button, Icon } from "@clinsign/ui";
import Link from "next/link";
import type { RefObject } from "react";
import { format } from "../../i18n";
import { useI18n } from "../../i18n/I18nProvider";
import { LanguageSwitch } from "../LanguageSwitch";
import { Logo } from "../Logo";
import styles from "./AdminShell.module.css";

/** The admin header: the drawer's menu button, the brand, the organization, language, who is signed in, and Log out. */
export function ShellHeader({
  me,
  menuOpen,
  menuButtonRef,
  onToggleMenu,
  loggingOut,
  onLogout,
}: {
  me: Me;
  menuOpen: boolean;
  menuButtonRef: RefObject<HTMLButtonElement | null>;
  onToggleMenu: () => void;
  loggingOut: boolean;
  onLogout: () => void;
}) {
  const { t } = useI18n();
  const displayName = me.user.name || me.user.email;
  return (
    <header className={styles.header}>
      <div className={styles.headerStart}>
        <Button
          ref={menuButtonRef}
          variant="ghost"
          iconOnly
          className={styles.menuButton}
          aria-label={menuOpen ? t.shell.closeMenu : t.shell.openMenu}
          aria-expanded={menuOpen}
          aria-controls="admin-nav"
          onClick={onToggleMenu}
        >
          <Icon name={menuOpen ? "close" : "menu"} />
        </Button>
        <Link href="/" className={styles.brand} aria-label={`${t.common.productName} – ${t.nav.overview}`}>
          <Logo name={t.common.productName} />
        </Link>
        <span className={styles.orgName} title={me.organization.name}>
          <span className="cs-visually-hidden">{t.shell.organization}: </span>
          {me.organization.name}
        </span>
      </div>
      <div className={styles.headerEnd}>
        <LanguageSwitch />
        <div className={styles.user}>
          <span className="cs-visually-hidden">{format(t.shell.signedInAs, { name: displayName })}</span>
          <span className={styles.userName} title={me.user.email} aria-hidden="true">
            {displayName}
          </span>
          <span className={styles.userRole}>{t.roles[me.role]}</span>
        </div>
        <Button
          variant="ghost"
          className={styles.logout}
          icon={<Icon name="logout" />}
          busy={loggingOut}
          onClick={onLogout}
          aria-label={t.shell.logout}
        >
          <span className={styles.logoutText}>{t.shell.logout}</span>
        </Button>
      </div>
    </header>
  );
}
