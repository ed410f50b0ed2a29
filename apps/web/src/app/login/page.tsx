import { ssoErrorCodes, type SsoErrorCode } from "@clinsign/contracts";
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

type SearchParams = Record<string, string | string[] | undefined>;

/** The login page, also as an organization's login URL (/login/<organization id>, which offers its provider). */
export async function renderLoginPage(params: SearchParams, organizationId: string | null) {
  const next = safeNextPath(typeof params.next === "string" ? params.next : null);
  // Someone who is still signed in does not need this page.
  if ((await checkSession()).status === "signed-in") redirect(next);
  const reason = params.reason === "expired" || params.reason === "signed-out" ? params.reason : null;
  const ssoError = (ssoErrorCodes as readonly string[]).includes(String(params.sso_error))
    ? (params.sso_error as SsoErrorCode)
    : null;
  return <LoginForm next={next} reason={reason} organizationId={organizationId} ssoError={ssoError} />;
}

export default async function LoginPage({ searchParams }: { searchParams: Promise<SearchParams> }) {
  return renderLoginPage(await searchParams, null);
}
