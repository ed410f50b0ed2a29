import { headers } from "next/headers";
import { redirect } from "next/navigation";
import type { ReactNode } from "react";
import { AdminShell } from "../../components/admin-shell/AdminShell";
import { loginPath, PATH_HEADER } from "../../lib/paths";
import { checkSession } from "../../lib/session";
import { getLang } from "../../i18n/server";
import { Providers } from "../providers";

/**
 * Every admin page checks the session with the API before it renders: an ended session goes
 * to /login (and comes back afterwards), and the shell starts with the user already known.
 */
export default async function AdminLayout({ children }: { children: ReactNode }) {
  const staffSession = await checkSession();
  if (staffSession.status === "signed-out") {
    redirect(loginPath((await headers()).get(PATH_HEADER) ?? "/", "expired"));
  }
  return (
    <Providers lang={await getLang()}>
      <AdminShell initialMe={staffSession.status === "signed-in" ? staffSession.me : undefined}>{children}</AdminShell>
    </Providers>
  );
}
