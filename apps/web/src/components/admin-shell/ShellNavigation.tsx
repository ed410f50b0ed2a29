"use client";

import { can, type Me } from "@clinsign/contracts";
import { Icon } from "@clinsign/ui";
import Link from "next/link";
import { usePathname } from "next/navigation";
import type { RefObject } from "react";
import { useI18n } from "../../i18n/I18nProvider";
import styles from "./AdminShell.module.css";
import { isActive, navigation, type NavItem } from "./nav";

/**
 * The side navigation (a drawer on small screens, with its backdrop): the organization, then the
 * sections the member's role may open, grouped, the current one marked.
 */
export function ShellNavigation({
  me,
  menuOpen,
  navRef,
  onNavigate,
}: {
  me: Me;
  menuOpen: boolean;
  navRef: RefObject<HTMLElement | null>;
  /** A link was followed, or the backdrop clicked: the drawer closes. */
  onNavigate: () => void;
}) {
  const { t } = useI18n();
  const pathname = usePathname();
  return (
    <>
      <div className={styles.backdrop} data-open={menuOpen} aria-hidden="true" onClick={onNavigate} />
      <aside className={styles.sidebar} data-open={menuOpen}>
        <nav id="admin-nav" ref={navRef} aria-label={t.shell.navigation} className={styles.nav}>
          <div className={styles.drawerOrg}>
            <span className={styles.drawerOrgLabel}>{t.shell.organization}</span>
            <span className={styles.drawerOrgName}>{me.organization.name}</span>
          </div>
          {navigation.map((group, index) => (
            <div key={group.label ?? index} className={styles.navGroup}>
              {group.label ? <p className={styles.navGroupLabel}>{t.nav[group.label]}</p> : null}
              <ul className={styles.navList}>
                {group.items
                  .filter((item) => !item.requires || can(me.role, item.requires))
                  .map((item) => (
                    <NavEntry key={item.key} item={item} active={isActive(item, pathname)} onNavigate={onNavigate} />
                  ))}
              </ul>
            </div>
          ))}
        </nav>
      </aside>
    </>
  );
}

/** One section's link: its icon and name, "soon" while it is a placeholder, marked where it is the current page. */
function NavEntry({ item, active, onNavigate }: { item: NavItem; active: boolean; onNavigate: () => void }) {
  const { t } = useI18n();
  return (
    <li>
      <Link
        href={item.href}
        // Placeholder sections are not worth a server round trip per page view.
        prefetch={item.ready ? undefined : false}
        className={styles.navLink}
        aria-current={active ? "page" : undefined}
        onClick={onNavigate}
      >
        <Icon name={item.icon} />
        <span className={styles.navLabel}>{t.nav[item.key]}</span>
        {item.ready ? null : <span className={styles.soon}>{t.shell.soon}</span>}
      </Link>
    </li>
  );
}
