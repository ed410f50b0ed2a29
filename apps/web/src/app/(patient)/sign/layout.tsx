import type { ReactNode } from "react";
import { SigningProviders } from "../../../features/signing/SigningProviders";

/** The signing portal's query client and tRPC client. */
export default function SigningLayout({ children }: { children: ReactNode }) {
  return <SigningProviders>{children}</SigningProviders>;
}
