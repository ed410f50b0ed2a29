import { signingView } from "@clinsign/contracts";
import type { Metadata } from "next";
import { SigningFlow } from "../../../../features/signing/SigningFlow";
import { isPlausibleSecret } from "../../../../features/signing/session";
import { getPatientDictionary, getPatientLang } from "../../../../i18n/server";
import { queryApi } from "../../../../lib/api-server";

/** The preview makes the HTML wait for the API; past this the page renders as before and opens the link itself. */
const PREVIEW_TIMEOUT_MS = 1_500;

export async function generateMetadata(): Promise<Metadata> {
  const { t } = await getPatientDictionary();
  return { title: t.signing.pageTitle, referrer: "no-referrer" };
}

/**
 * The signing link from A1 (`PUBLIC_WEB_URL/sign/<token>`). A link open for signing comes with
 * its document in the first HTML (`signing.preview`, read without acting on the link): page 1's
 * image loads beside the page's scripts instead of after them, which is most of what a slow phone
 * waits for (docs/performance.md, "Signing portal speed").
 */
export default async function SignByLinkPage({ params }: { params: Promise<{ token: string }> }) {
  const { token } = await params;
  // The page's language picks the document as `signing.open` will (issue 19: one per language).
  const language = await getPatientLang();
  const answer = isPlausibleSecret(token)
    ? await queryApi("signing.preview", { token, language }, signingView.nullable(), {
        timeoutMs: PREVIEW_TIMEOUT_MS,
      })
    : null;
  return <SigningFlow credential={{ token }} preview={answer?.kind === "ok" ? answer.data : null} />;
}
