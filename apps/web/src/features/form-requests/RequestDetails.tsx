"use client";

import type { FormRequestListItem, MessageSummary } from "@clinsign/contracts";
import { Badge, Button, Dialog, LiveRegion, Notice, Skeleton } from "@clinsign/ui";
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import Link from "next/link";
import { useState } from "react";
import lists from "../../components/lists/lists.module.css";
import { format, type Dictionary } from "../../i18n";
import { useI18n } from "../../i18n/I18nProvider";
import { useClinicTime } from "../../components/admin-shell/clinic-time";
import { useTRPC } from "../../trpc/client";
import { describeApiError, readApiError } from "../../trpc/errors";
import styles from "./form-requests.module.css";
import { RevealMessage } from "./RevealMessage";
import { isOpen } from "./states";

type Texts = Dictionary["formRequestsPage"];

function purposeLabel(purpose: string, f: Texts): string {
  if (purpose === "form_request.link") return f.purposeLink;
  if (purpose === "portal.otp") return f.purposeOtp;
  return purpose;
}

/** One SMS of the history: what it was for, its outcome, attempts and last error, its body as stored. */
export function MessageOutcome({ message, f }: { message: MessageSummary; f: Texts }) {
  const clinic = useClinicTime();
  const status =
    message.status === "sent" && message.sentAt ? (
      <Badge tone={message.provider === "outbox" ? "warning" : "success"}>
        {format(message.provider === "outbox" ? f.messageKept : f.messageSent, {
          date: clinic.dateTime(message.sentAt),
        })}
      </Badge>
    ) : message.status === "failed" ? (
      <Badge tone="danger">{f.messageFailed}</Badge>
    ) : (
      <Badge tone={message.lastError ? "warning" : "neutral"}>{f.messageQueued}</Badge>
    );
  return (
    <li className={styles.message}>
      <div className="cs-row">
        <strong>{purposeLabel(message.purpose, f)}</strong>
        {status}
        <span className="cs-hint">{format(f.attempts, { count: String(message.attempts) })}</span>
      </div>
      <p className={styles.body}>{message.body}</p>
      <RevealMessage message={message} />
      {message.lastError ? <p className={lists.error}>{format(f.lastError, { error: message.lastError })}</p> : null}
    </li>
  );
}

/** A request's SMS history and what staff may do with it: send the link again, cancel (confirmed in place). */
function RequestPanel({ request }: { request: FormRequestListItem }) {
  const { t } = useI18n();
  const f = t.formRequestsPage;
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const [confirming, setConfirming] = useState(false);
  const history = useQuery(trpc.formRequests.messages.queryOptions({ id: request.id }));
  const refresh = () => {
    void queryClient.invalidateQueries({ queryKey: trpc.formRequests.list.pathKey() });
    void queryClient.invalidateQueries({ queryKey: trpc.formRequests.messages.queryKey({ id: request.id }) });
    void queryClient.invalidateQueries({ queryKey: trpc.messages.list.pathKey() });
  };
  const resend = useMutation(trpc.formRequests.resend.mutationOptions({ onSuccess: refresh }));
  const cancel = useMutation(
    trpc.formRequests.cancel.mutationOptions({
      onSuccess: () => {
        setConfirming(false);
        refresh();
      },
    }),
  );
  // The list row may be stale by a moment; after a cancel here, the actions go at once.
  const open = isOpen(request.state) && !cancel.isSuccess;

  return (
    <div className="cs-stack">
      <h3 className={lists.detailsHeading}>{f.historyTitle}</h3>
      {history.isPending ? (
        <Skeleton label={t.common.loading} lines={2} />
      ) : history.error ? (
        <Notice tone="danger">{describeApiError(readApiError(history.error), t)}</Notice>
      ) : history.data.length === 0 ? (
        <p className="cs-hint">{f.historyEmpty}</p>
      ) : (
        <ol className={styles.messages} aria-label={f.historyTitle}>
          {history.data.map((message) => (
            <MessageOutcome key={message.id} message={message} f={f} />
          ))}
        </ol>
      )}
      {request.submissionId ? (
        <div>
          <Link
            className="cs-button cs-button--secondary cs-button--small"
            href={`/submissions/${request.submissionId}`}
          >
            {f.viewSubmission}
          </Link>
        </div>
      ) : null}
      {open && !confirming ? (
        <>
          <p className="cs-hint">{f.resendHint}</p>
          <div className="cs-row">
            <Button size="small" onClick={() => resend.mutate({ id: request.id })} busy={resend.isPending}>
              {f.resend}
            </Button>
            <Button size="small" variant="danger-outline" onClick={() => setConfirming(true)}>
              {f.cancel}
            </Button>
          </div>
        </>
      ) : null}
      {confirming ? (
        <Notice tone="warning" title={f.cancelTitle}>
          <p className={styles.flat}>{f.cancelBody}</p>
          <div className={`cs-row ${styles.confirm}`}>
            <Button size="small" onClick={() => setConfirming(false)} disabled={cancel.isPending}>
              {f.keep}
            </Button>
            <Button
              size="small"
              variant="danger"
              busy={cancel.isPending}
              onClick={() => cancel.mutate({ id: request.id })}
            >
              {f.cancelConfirm}
            </Button>
          </div>
        </Notice>
      ) : null}
      <LiveRegion>
        {resend.isSuccess ? <Notice tone="success">{f.resent}</Notice> : null}
        {cancel.isSuccess ? <Notice tone="success">{f.cancelled}</Notice> : null}
        {(resend.error ?? cancel.error) ? (
          <Notice tone="danger">{describeApiError(readApiError(resend.error ?? cancel.error), t)}</Notice>
        ) : null}
      </LiveRegion>
    </div>
  );
}

/** The list's details button: a dialog that loads the request's history when it opens. */
export function RequestDetails({ request }: { request: FormRequestListItem }) {
  const { t } = useI18n();
  const f = t.formRequestsPage;
  const [open, setOpen] = useState(false);
  return (
    <>
      <Button
        size="small"
        onClick={() => setOpen(true)}
        aria-label={format(f.showDetailsLabel, { rnummer: request.rnummer })}
      >
        {f.showDetails}
      </Button>
      <Dialog
        open={open}
        onClose={() => setOpen(false)}
        title={format(f.detailsTitle, { rnummer: request.rnummer })}
        description={`${request.templateTitle ?? request.templateIdentifier} · ${request.phone}`}
        closeLabel={t.common.close}
      >
        {open ? <RequestPanel request={request} /> : null}
      </Dialog>
    </>
  );
}
