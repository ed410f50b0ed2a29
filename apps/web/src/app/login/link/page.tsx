import type { Metadata } from "next";
import { SsoLink } from "../../../features/auth/SsoLink";
import { getDictionary } from "../../../i18n/server";

export async function generateMetadata(): Promise<Metadata> {
  const { t } = await getDictionary();
  return { title: t.ssoLink.pageTitle };
}

/**
 * Connecting an organization's single sign-on to an existing account, where the SSO callback sends
 * the browser; the pending link is in an HTTP-only cookie, so the page itself carries nothing.
 */
export default function SsoLinkPage() {
  return <SsoLink />;
}
