import { headers } from "next/headers";
import { redirect } from "next/navigation";
import type { ReactNode } from "react";
import { AdminShell } from "../../components/admin-shell/AdminShell";
import { loginPath, PATH_HEADER } from "../../lib/paths";
import { checkSession } from "../../lib/session";

/**
 * Every admin page checks the session with the API before it renders: an ended session goes
 * to /login (and comes back afterwards), and the shell starts with the user already known.
 */
export default async function AdminLayout({ children }: { children: ReactNode }) {
  const session = await checkSession();
  if (session.status === "signed-out") {
    redirect(loginPath((await headers()).get(PATH_HEADER) ?? "/", "expired"));
  }
  return <AdminShell initialMe={session.status === "signed-in" ? session.me : undefined}>{children}</AdminShell>;
}
