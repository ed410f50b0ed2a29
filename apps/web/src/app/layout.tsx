import "@clinsign/ui/styles.css";
import type { Metadata, Viewport } from "next";
import type { ReactNode } from "react";
import { textDirection } from "../i18n";
import { patientDictionary } from "../i18n/dictionaries";
import { getPageLang } from "../i18n/server";

export async function generateMetadata(): Promise<Metadata> {
  // The title template and tagline are common texts, which every patient language has too.
  const t = patientDictionary(await getPageLang());
  return {
    title: { template: `%s · ${t.common.productName}`, default: t.common.productName },
    description: t.common.productTagline,
    robots: { index: false, follow: false },
  };
}

export const viewport: Viewport = {
  width: "device-width",
  initialScale: 1,
  themeColor: "#08556c",
};

/**
 * The document frame only. Staff pages add their providers in (admin) and login; patient pages
 * in (patient), so a patient's phone downloads nothing of the admin UI.
 */
export default async function RootLayout({ children }: { children: ReactNode }) {
  // A patient page in one of seven languages (Arabic right to left), a staff page in en/de.
  const lang = await getPageLang();
  return (
    <html lang={lang} dir={textDirection(lang)}>
      <body>{children}</body>
    </html>
  );
}
