import type { Metadata } from "next";
import { TokensPage } from "../../../features/tokens/TokensPage";
import { getDictionary } from "../../../i18n/server";

export async function generateMetadata(): Promise<Metadata> {
  const { t } = await getDictionary();
  return { title: t.tokens.pageTitle };
}

export default function Page() {
  return <TokensPage />;
}
