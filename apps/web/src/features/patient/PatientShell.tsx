"use client";

import type { Branding } from "@clinsign/contracts";
import { useEffect, useState, type ReactNode } from "react";
import { LanguageSwitch } from "../../components/LanguageSwitch";
import { Logo } from "../../components/Logo";
import { format } from "../../i18n";
import { useI18n } from "../../i18n/I18nProvider";
import { applyBranding, safeLogoUrl } from "./branding";
import styles from "./signing.module.css";

/**
 * The frame of every portal page: the institution's logo and colours (or ClinSign's while the
 * link is being opened or when none is set), the language switch, and a short footer.
 */
export function PortalShell({ branding, institutionId, children }: { branding: Branding | null; institutionId: string | null; children: ReactNode }) {
  const { t } = useI18n();
  const logoUrl = safeLogoUrl(branding?.logoUrl);
  const [logoFailed, setLogoFailed] = useState<string | null>(null);

  // On <body>, not on this element: dialogs render into <body> and must look the same.
  useEffect(() => applyBranding(document.body, branding), [branding]);

  const showLogo = logoUrl !== null && logoFailed !== logoUrl;
  return (
    <div className={styles.portal} data-branded={branding?.primaryColor ? true : undefined}>
      <a href="#portal-main" className={styles.skipLink}>
        {t.shell.skipToContent}
      </a>
      <header className={styles.band}>
        <div className={styles.bandInner}>
          {showLogo ? (
            // The institution's own https logo; no referrer is sent (the page URL holds the link).
            <img
              src={logoUrl}
              alt={institutionId ? format(t.signing.logoAlt, { institution: institutionId }) : t.signing.logoAltGeneric}
              className={styles.logo}
              referrerPolicy="no-referrer"
              onError={() => setLogoFailed(logoUrl)}
            />
          ) : branding?.primaryColor && institutionId ? (
            // On the institution's colour the product logo's text colours may not read well.
            <span className={styles.institution}>{institutionId}</span>
          ) : (
            <Logo name={t.common.productName} />
          )}
          <LanguageSwitch />
        </div>
      </header>
      <main id="portal-main" className={styles.main} tabIndex={-1}>
        {children}
      </main>
      <footer className={styles.footer}>
        <p>{t.signing.poweredBy}</p>
      </footer>
    </div>
  );
}
