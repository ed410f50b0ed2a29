"use client";

import { cx } from "@clinsign/ui";
import type { ReactNode } from "react";
import { LanguageSwitch } from "../../components/LanguageSwitch";
import { Logo } from "../../components/Logo";
import { useI18n } from "../../i18n/I18nProvider";
import styles from "./LoginForm.module.css";

/**
 * The signed-out page frame shared by sign-in and accepting an invitation: the language switch,
 * then a card under the product's logo and tagline, and an optional footer below the card.
 */
export function AuthShell({
  wide = false,
  footer,
  children,
}: {
  /** The wider card, for steps that lay choices side by side (second-factor enrolment). */
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
        {footer}
      </main>
    </div>
  );
}
