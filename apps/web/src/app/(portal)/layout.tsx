import type { ReactNode } from "react";
import { PortalProviders } from "../../features/signing/PortalProviders";

/** Patient-facing pages: no admin shell, no staff session; each page brands itself. */
export default function PortalLayout({ children }: { children: ReactNode }) {
  return <PortalProviders>{children}</PortalProviders>;
}
