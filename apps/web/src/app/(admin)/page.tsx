import type { Metadata } from "next";
import { Overview } from "../../features/overview/Overview";
import { getDictionary } from "../../i18n/server";

export async function generateMetadata(): Promise<Metadata> {
  const { t } = await getDictionary();
  return { title: t.overview.pageTitle };
}

export default function OverviewPage() {
  return <Overview />;
}
