"use client";

import { cx } from "@clinsign/ui";
import type { ReactNode } from "react";
import { LanguageSwitch } from "../../components/LanguageSwitch";
import { Logo } from "../../components/Logo";
import { useI18n } from "../../i18n/I18nProvider";
import styles from "./LoginForm.module.css";

/** The signed-out pages' frame (login, invitation, connecting single sign-on): one card under the logo. */
export function AuthPage({
  wide = false,
  footer,
  children,
}: {
  /** For the second-factor set-up, whose QR code needs the room. */
  wide?: boolean;
  footer?: ReactNode;
  children: ReactNode;
}) {
  const { t } = useI18n();
  return (
    <div className={styles.page}>
      <div className={styles.topBar}>
        <LanguageSwitch />
      </div>
      <main className={styles.main}>
        <div className={cx(styles.card, wide && styles.cardWide)}>
          <div className={styles.brand}>
            <Logo name={t.common.productName} size="large" />
            <p className={styles.tagline}>{t.common.productTagline}</p>
          </div>
          {children}
        </div>
        {footer ? <p className={styles.footer}>{footer}</p> : null}
      </main>
    </div>
  );
}
