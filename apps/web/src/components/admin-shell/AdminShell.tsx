"use client";

import type { Me } from "@clinsign/contracts";
import { Button, LiveRegion, Notice } from "@clinsign/ui";
import { useMutation, useQuery } from "@tanstack/react-query";
import { useCallback, useEffect, useRef, useState, type ReactNode } from "react";
import { useI18n } from "../../i18n/I18nProvider";
import { useTRPC } from "../../trpc/client";
import { describeApiError, isUnauthorized, readApiError } from "../../trpc/errors";
import styles from "./AdminShell.module.css";
import { SessionContext } from "./SessionContext";
import { ShellHeader } from "./ShellHeader";
import { ShellNavigation } from "./ShellNavigation";

/**
 * The navigation drawer of small screens: open, it moves focus to its first link; Escape closes it
 * and gives focus back to the menu button.
 */
function useDrawerMenu() {
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

  return { menuOpen, setMenuOpen, closeMenu, menuButton, nav };
}

/**
 * The frame of every admin page: header, side navigation (a drawer on small screens) and the
 * main area. The layout hands it the signed-in user; a session that ends while the page is open
 * sends the visitor to /login (see the query cache in app/providers.tsx).
 */
export function AdminShell({ initialMe, children }: { initialMe?: Me; children: ReactNode }) {
  const trpc = useTRPC();
  const { t } = useI18n();
  const me = useQuery({ ...trpc.auth.me.queryOptions(), ...(initialMe ? { initialData: initialMe } : {}) });
  const logout = useMutation(
    trpc.auth.logout.mutationOptions({
      onSettled: () => window.location.assign("/login?reason=signed-out"),
    }),
  );
  const drawer = useDrawerMenu();

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

  return (
    <SessionContext.Provider value={staffSession}>
      <a href="#main" className={styles.skipLink}>
        {t.shell.skipToContent}
      </a>
      <div className={styles.shell}>
        <ShellHeader
          me={staffSession}
          menuOpen={drawer.menuOpen}
          menuButtonRef={drawer.menuButton}
          onToggleMenu={() => drawer.setMenuOpen((open) => !open)}
          loggingOut={logout.isPending}
          onLogout={() => logout.mutate()}
        />
        <div className={styles.body}>
          <ShellNavigation
            me={staffSession}
            menuOpen={drawer.menuOpen}
            navRef={drawer.nav}
            onNavigate={() => drawer.closeMenu(false)}
          />
          <main id="main" tabIndex={-1} className={styles.main}>
            <div className={styles.content}>{children}</div>
          </main>
        </div>
      </div>
    </SessionContext.Provider>
  );
}
