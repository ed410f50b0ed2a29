"use client";

import type { Branding } from "@clinsign/contracts";
import { useEffect, useRef, useState, type ReactNode } from "react";
import { LanguageSwitch } from "../../components/LanguageSwitch";
import { Logo } from "../../components/Logo";
import { format } from "../../i18n";
import { usePatientI18n } from "../../i18n/I18nProvider";
import { applyBranding, safeLogoUrl } from "./branding";
import styles from "./patient.module.css";

/**
 * The frame of every patient page (signing portal, SMS form portal, embedded form): who is asking
 * (the organization's name, always, beside the organization's or institution's logo), their
 * colours, the language switch, and a short footer. ClinSign's own logo shows only while the page
 * does not know the organization yet (opening, an unknown link). The logo sits on a white plate
 * inside the colour band: most logos are dark on transparent and would vanish on a dark band. `compact` drops the header band and
 * footer for a form embedded in another site's page, which has its own. `preview` is the branding
 * editor's in-page copy: the branding goes on this element only (the admin page around it keeps
 * its look), and header, main and footer are plain boxes, not a second set of page landmarks.
 */
export function PatientShell({
  branding,
  organizationName,
  footer,
  compact = false,
  preview = false,
  children,
}: {
  branding: Branding | null;
  /** Who is asking; null while the page does not know yet. */
  organizationName: string | null;
  /** The footer's line; the signing portal's by default. */
  footer?: string;
  compact?: boolean;
  preview?: boolean;
  children: ReactNode;
}) {
  const { t } = usePatientI18n();
  const logoUrl = safeLogoUrl(branding?.logoUrl);
  const [logoFailed, setLogoFailed] = useState<string | null>(null);

  const rootRef = useRef<HTMLDivElement>(null);
  // On <body>, not on this element: dialogs render into <body> and must look the same. A preview
  // has no dialogs and must not restyle the admin page around it.
  useEffect(() => {
    const target = preview ? rootRef.current : document.body;
    return target ? applyBranding(target, branding) : undefined;
  }, [branding, preview]);
  const Header = preview ? "div" : "header";
  const Main = preview ? "div" : "main";
  const Footer = preview ? "div" : "footer";

  const showLogo = logoUrl !== null && logoFailed !== logoUrl;
  return (
    <div
      ref={rootRef}
      className={styles.page}
      data-branded={branding?.primaryColor ? true : undefined}
      data-compact={compact || undefined}
      data-preview={preview || undefined}
    >
      {preview ? null : (
        <a href="#portal-main" className={styles.skipLink}>
          {t.shell.skipToContent}
        </a>
      )}
      {compact ? (
        // Inside another site's page: that page has its own header; only the language stays.
        <div className={styles.compactBar}>
          <LanguageSwitch />
        </div>
      ) : (
        <Header className={styles.band}>
          <div className={styles.bandInner}>
            <div className={styles.identity}>
              {showLogo ? (
                <span className={styles.logoPlate}>
                  {/* The institution's own https logo; no referrer is sent (the page URL holds the link). */}
                  <img
                    src={logoUrl}
                    alt={
                      organizationName
                        ? format(t.patient.logoAlt, { institution: organizationName })
                        : t.patient.logoAltGeneric
                    }
                    className={styles.logo}
                    referrerPolicy="no-referrer"
                    onError={() => setLogoFailed(logoUrl)}
                  />
                </span>
              ) : null}
              {organizationName ? (
                <span className={styles.organization} data-testid="patient-organization">
                  {organizationName}
                </span>
              ) : showLogo ? null : (
                <Logo name={t.common.productName} />
              )}
            </div>
            <LanguageSwitch />
          </div>
        </Header>
      )}
      <Main id={preview ? undefined : "portal-main"} className={styles.main} tabIndex={preview ? undefined : -1}>
        {children}
      </Main>
      {compact ? null : (
        <Footer className={styles.footer}>
          <p>{footer ?? t.signing.poweredBy}</p>
        </Footer>
      )}
    </div>
  );
}
