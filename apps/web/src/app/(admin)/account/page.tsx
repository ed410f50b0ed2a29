import type { Metadata } from "next";
import { AccountPage } from "../../../features/account/AccountPage";
import { getDictionary } from "../../../i18n/server";

export async function generateMetadata(): Promise<Metadata> {
  const { t } = await getDictionary();
  return { title: t.account.pageTitle };
}

export default function Page() {
  return <AccountPage />;
}
