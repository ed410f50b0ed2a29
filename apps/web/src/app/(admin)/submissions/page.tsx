import type { Metadata } from "next";
import { ComingSoon } from "../../../components/ComingSoon";
import { getDictionary } from "../../../i18n/server";

export async function generateMetadata(): Promise<Metadata> {
  const { t } = await getDictionary();
  return { title: t.nav.submissions };
}

export default function SubmissionsPage() {
  return <ComingSoon section="submissions" />;
}
