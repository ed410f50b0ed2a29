import type { ReactNode } from "react";
import { SigningProviders } from "../../../features/signing/SigningProviders";

/** Signing at the desk: the signing page's query client and tRPC client. */
export default function KioskLayout({ children }: { children: ReactNode }) {
  return <SigningProviders>{children}</SigningProviders>;
}
