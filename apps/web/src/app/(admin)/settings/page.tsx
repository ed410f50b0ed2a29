import type { Metadata } from "next";
import { SettingsPage } from "../../../features/settings/SettingsPage";
import { getDictionary } from "../../../i18n/server";

export async function generateMetadata(): Promise<Metadata> {
  const { t } = await getDictionary();
  return { title: t.settings.pageTitle };
}

export default function Page() {
  return <SettingsPage />;
}
