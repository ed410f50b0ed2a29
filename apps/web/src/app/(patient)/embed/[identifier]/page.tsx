import type { Metadata } from "next";
import { EmbeddedForm } from "../../../../features/forms/EmbeddedForm";
import { getPatientDictionary } from "../../../../i18n/server";

export async function generateMetadata(): Promise<Metadata> {
  const { t } = await getPatientDictionary();
  return { title: t.forms.pageTitle, referrer: "no-referrer" };
}

const first = (value: string | string[] | undefined) => (typeof value === "string" ? value : null);

/**
 * The embedded form. Opened by a personal link (`embedUrl` of `POST /api/embed/sessions`,
 * `session` is the credential, `draftKey` names the draft when the session pins none) or by a
 * template's public embed (`embed` is its code; each visitor's browser starts a session of its
 * own). `lang` picks the page texts. The template comes from the session; the identifier in the
 * path is for people reading URLs.
 */
export default async function EmbeddedFormPage({
  searchParams,
}: {
  searchParams: Promise<Record<string, string | string[] | undefined>>;
}) {
  const params = await searchParams;
  const draftKey = first(params.draftKey);
  const code = first(params.embed);
  return (
    <EmbeddedForm
      credential={code ? { kind: "public", code } : { kind: "session", sessionId: first(params.session) ?? "" }}
      draftKeyParam={draftKey && draftKey.length <= 200 ? draftKey : null}
      langParam={first(params.lang)}
    />
  );
}
