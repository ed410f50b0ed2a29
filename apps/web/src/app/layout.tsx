import "@clinsign/ui/styles.css";
import type { Metadata, Viewport } from "next";
import type { ReactNode } from "react";
import { getDictionary, getLang } from "../i18n/server";

export async function generateMetadata(): Promise<Metadata> {
  const { t } = await getDictionary();
  return {
    title: { template: `%s · ${t.common.productName}`, default: t.common.productName },
    description: t.common.productTagline,
    robots: { index: false, follow: false },
  };
}

export const viewport: Viewport = {
  width: "device-width",
  initialScale: 1,
  themeColor: "#0b6a86",
};

/**
 * The document frame only. Staff pages add their providers in (admin) and login; patient pages
 * in (patient), so a patient's phone downloads nothing of the admin UI.
 */
export default async function RootLayout({ children }: { children: ReactNode }) {
  const lang = await getLang();
  return (
    <html lang={lang}>
      <body>{children}</body>
    </html>
  );
}
