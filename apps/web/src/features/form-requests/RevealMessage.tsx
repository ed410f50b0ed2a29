"use client";

import type { MessageSummary } from "@clinsign/contracts";
import { Button, CopyField, Notice } from "@clinsign/ui";
import { useMutation, useQueryClient } from "@tanstack/react-query";
import { can } from "@clinsign/contracts";
import { useSession } from "../../components/admin-shell/SessionContext";
import { format } from "../../i18n";
import { useI18n } from "../../i18n/I18nProvider";
import { useClinicTime } from "../../components/admin-shell/clinic-time";
import { useTRPC } from "../../trpc/client";
import { describeApiError, readApiError } from "../../trpc/errors";

/**
 * The outbox only (no SMS gateway): an admin may show the hidden link or one-time code of a kept
 * message once, to try the SMS flow. The server deletes its copy as it answers and audits who
 * asked, so the text lives only in this component until the page is left.
 */
export function RevealMessage({ message }: { message: MessageSummary }) {
  const { t } = useI18n();
  const clinic = useClinicTime();
  const f = t.formRequestsPage;
  const trpc = useTRPC();
  const me = useSession();
  const queryClient = useQueryClient();
  const reveal = useMutation(
    trpc.messages.reveal.mutationOptions({
      onSuccess: () => {
        void queryClient.invalidateQueries({ queryKey: trpc.messages.list.pathKey() });
        void queryClient.invalidateQueries({ queryKey: trpc.formRequests.messages.pathKey() });
      },
    }),
  );

  if (reveal.data) {
    return (
      <div className="cs-stack" role="status">
        <CopyField
          label={f.revealedTitle}
          hint={f.revealedBody}
          value={reveal.data.body}
          labels={t.common}
          testId="revealed-message"
        />
      </div>
    );
  }
  if (message.revealedAt)
    return <span className="cs-hint">{format(f.revealedAlready, { date: clinic.dateTime(message.revealedAt) })}</span>;
  if (!message.revealable || !can(me.role, "messages.reveal")) return null;
  return (
    <div className="cs-stack">
      <div>
        <Button size="small" onClick={() => reveal.mutate({ id: message.id })} busy={reveal.isPending}>
          {message.purpose === "portal.otp" ? f.revealOtp : f.reveal}
        </Button>
      </div>
      {reveal.error ? <Notice tone="danger">{describeApiError(readApiError(reveal.error), t)}</Notice> : null}
    </div>
  );
}
