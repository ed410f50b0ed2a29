"use client";

import { can, type Me } from "@clinsign/contracts";
import { Button, Icon, LiveRegion, Notice } from "@clinsign/ui";
import { useMutation, useQuery } from "@tanstack/react-query";
import Link from "next/link";
import { usePathname } from "next/navigation";
import { useCallback, useEffect, useRef, useState, type ReactNode } from "react";
import { format } from "../../i18n";
import { useI18n } from "../../i18n/I18nProvider";
import { useTRPC } from "../../trpc/client";
import { describeApiError, isUnauthorized, readApiError } from "../../trpc/errors";
import { LanguageSwitch } from "../LanguageSwitch";
import { Logo } from "../Logo";
import styles from "./AdminShell.module.css";
import { isActive, navigation } from "./nav";
import { SessionContext } from "./SessionContext";

/**
 * The frame of every admin page: header, side navigation (a drawer on small screens) and the
 * main area. The layout hands it the signed-in user; a session that ends while the page is open
 * sends the visitor to /login (see the query cache in app/providers.tsx).
 */
export function AdminShell({ initialMe, children }: { initialMe?: Me; children: ReactNode }) {
  const trpc = useTRPC();
  const { t } = useI18n();
  const pathname = usePathname();
  const me = useQuery({ ...trpc.auth.me.queryOptions(), ...(initialMe ? { initialData: initialMe } : {}) });
  const logout = useMutation(
    trpc.auth.logout.mutationOptions({
      onSettled: () => window.location.assign("/login?reason=signed-out"),
    }),
  );

  const [menuOpen, setMenuOpen] = useState(false);
  const menuButton = useRef<HTMLButtonElement>(null);
  const nav = useRef<HTMLElement>(null);

  const closeMenu = useCallback((returnFocus: boolean) => {
    setMenuOpen(false);
    if (returnFocus) menuButton.current?.focus();
  }, []);

  useEffect(() => {
    if (!menuOpen) return;
    nav.current?.querySelector<HTMLElement>("a")?.focus();
    const onKeyDown = (event: KeyboardEvent) => {
      if (event.key === "Escape") closeMenu(true);
    };
    document.addEventListener("keydown", onKeyDown);
    return () => document.removeEventListener("keydown", onKeyDown);
  }, [menuOpen, closeMenu]);

  if (me.isPending || (me.error && isUnauthorized(me.error))) {
    return (
      <LiveRegion className={styles.centered}>
        <span className="cs-spinner" aria-hidden="true" />
        <span>{t.shell.loadingSession}</span>
      </LiveRegion>
    );
  }

  if (me.error) {
    return (
      <div className={styles.centered}>
        <div className={styles.errorBox}>
          <Notice tone="danger" role="alert" title={t.errors.loadFailed}>
            {describeApiError(readApiError(me.error), t)}
          </Notice>
          <Button variant="primary" onClick={() => me.refetch()} busy={me.isFetching}>
            {t.common.retry}
          </Button>
        </div>
      </div>
    );
  }

  const staffSession = me.data;
  const displayName = staffSession.user.name || staffSession.user.email;

  return (
    <SessionContext.Provider value={staffSession}>
      <a href="#main" className={styles.skipLink}>
        {t.shell.skipToContent}
      </a>
      <div className={styles.shell}>
        <header className={styles.header}>
          <div className={styles.headerStart}>
            <Button
              ref={menuButton}
              variant="ghost"
              iconOnly
              className={styles.menuButton}
              aria-label={menuOpen ? t.shell.closeMenu : t.shell.openMenu}
              aria-expanded={menuOpen}
              aria-controls="admin-nav"
              onClick={() => setMenuOpen((open) => !open)}
            >
              <Icon name={menuOpen ? "close" : "menu"} />
            </Button>
            <Link href="/" className={styles.brand} aria-label={`${t.common.productName} – ${t.nav.overview}`}>
              <Logo name={t.common.productName} />
            </Link>
            <span className={styles.orgName} title={staffSession.organization.name}>
              <span className="cs-visually-hidden">{t.shell.organization}: </span>
              {staffSession.organization.name}
            </span>
          </div>
          <div className={styles.headerEnd}>
            <LanguageSwitch />
            <div className={styles.user}>
              <span className="cs-visually-hidden">{format(t.shell.signedInAs, { name: displayName })}</span>
              <span className={styles.userName} title={staffSession.user.email} aria-hidden="true">
                {displayName}
              </span>
              <span className={styles.userRole}>{t.roles[staffSession.role]}</span>
            </div>
            <Button
              variant="ghost"
              className={styles.logout}
              icon={<Icon name="logout" />}
              busy={logout.isPending}
              onClick={() => logout.mutate()}
              aria-label={t.shell.logout}
            >
              <span className={styles.logoutText}>{t.shell.logout}</span>
            </Button>
          </div>
        </header>

        <div className={styles.body}>
          <div className={styles.backdrop} data-open={menuOpen} aria-hidden="true" onClick={() => closeMenu(false)} />
          <aside className={styles.sidebar} data-open={menuOpen}>
            <nav id="admin-nav" ref={nav} aria-label={t.shell.navigation} className={styles.nav}>
              <div className={styles.drawerOrg}>
                <span className={styles.drawerOrgLabel}>{t.shell.organization}</span>
                <span className={styles.drawerOrgName}>{staffSession.organization.name}</span>
              </div>
              {navigation.map((group, index) => (
                <div key={group.label ?? index} className={styles.navGroup}>
                  {group.label ? <p className={styles.navGroupLabel}>{t.nav[group.label]}</p> : null}
                  <ul className={styles.navList}>
                    {group.items
                      .filter((item) => !item.requires || can(staffSession.role, item.requires))
                      .map((item) => {
                        const active = isActive(item, pathname);
                        return (
                          <li key={item.key}>
                            <Link
                              href={item.href}
                              // Placeholder sections are not worth a server round trip per page view.
                              prefetch={item.ready ? undefined : false}
                              className={styles.navLink}
                              aria-current={active ? "page" : undefined}
                              onClick={() => closeMenu(false)}
                            >
                              <Icon name={item.icon} />
                              <span className={styles.navLabel}>{t.nav[item.key]}</span>
                              {item.ready ? null : <span className={styles.soon}>{t.shell.soon}</span>}
                            </Link>
                          </li>
                        );
                      })}
                  </ul>
                </div>
              ))}
            </nav>
          </aside>
          <main id="main" tabIndex={-1} className={styles.main}>
            <div className={styles.content}>{children}</div>
          </main>
        </div>
      </div>
    </SessionContext.Provider>
  );
}
