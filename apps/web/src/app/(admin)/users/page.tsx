import type { Metadata } from "next";
import { UsersPage } from "../../../features/users/UsersPage";
import { getDictionary } from "../../../i18n/server";

export async function generateMetadata(): Promise<Metadata> {
  const { t } = await getDictionary();
  return { title: t.users.pageTitle };
}

export default function Page() {
  return <UsersPage />;
}
