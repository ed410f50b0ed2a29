import type { Metadata } from "next";
import { AcceptInvite } from "../../features/auth/AcceptInvite";
import { getDictionary } from "../../i18n/server";

export async function generateMetadata(): Promise<Metadata> {
  const { t } = await getDictionary();
  return { title: t.invite.pageTitle };
}

/** The invite link's page; the link's secret is in the fragment (`/invite#…`), which never reaches a server log. */
export default function InvitePage() {
  return <AcceptInvite />;
}
