import type { Metadata } from "next";
import { ComingSoon } from "../../../components/ComingSoon";
import { getDictionary } from "../../../i18n/server";

export async function generateMetadata(): Promise<Metadata> {
  const { t } = await getDictionary();
  return { title: t.nav.branding };
}

export default function BrandingPage() {
  return <ComingSoon section="branding" />;
}
