import type { Dictionary } from "../../i18n";

/** Where a submission came from, as staff name it (the stored actor type). */
export function sourceLabel(actorType: string, s: Dictionary["submissionsPage"]): string {
  const labels: Record<string, string> = {
    embed_session: s.sourceSession,
    sms_recipient: s.sourceSmsLink,
    // Submissions stored before the actor types were renamed.
    session: s.sourceSession,
    portal: s.sourceSmsLink,
    api_key: s.sourceApiKey,
    user: s.sourceUser,
    system: s.sourceSystem,
  };
  return labels[actorType] ?? actorType;
}
