import type { Metadata } from "next";
import { SecurityPage } from "../../../features/account-security/SecurityPage";
import { getDictionary } from "../../../i18n/server";

export async function generateMetadata(): Promise<Metadata> {
  const { t } = await getDictionary();
  return { title: t.security.pageTitle };
}

export default function Page() {
  return <SecurityPage />;
}
