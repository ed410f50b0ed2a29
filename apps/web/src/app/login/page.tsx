import type { Metadata } from "next";
import { redirect } from "next/navigation";
import { LoginForm } from "../../features/auth/LoginForm";
import { getDictionary } from "../../i18n/server";
import { safeNextPath } from "../../lib/paths";
import { checkSession } from "../../lib/session";

export async function generateMetadata(): Promise<Metadata> {
  const { t } = await getDictionary();
  return { title: t.login.pageTitle };
}

export default async function LoginPage({ searchParams }: { searchParams: Promise<Record<string, string | string[] | undefined>> }) {
  const params = await searchParams;
  const next = safeNextPath(typeof params.next === "string" ? params.next : null);
  // Someone who is still signed in does not need this page.
  if ((await checkSession()).status === "signed-in") redirect(next);
  const reason = params.reason === "expired" || params.reason === "signed-out" ? params.reason : null;
  return <LoginForm next={next} reason={reason} />;
}
