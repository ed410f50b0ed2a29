import type { ReactNode } from "react";
import { getLang } from "../../i18n/server";
import { Providers } from "../providers";

export default async function InviteLayout({ children }: { children: ReactNode }) {
  return <Providers lang={await getLang()}>{children}</Providers>;
}
