"use client";

import type { FormRequestListItem, MessageSummary } from "@clinsign/contracts";
import { Badge, Button, Dialog, Notice, Skeleton } from "@clinsign/ui";
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import Link from "next/link";
import { useState } from "react";
import lists from "../../components/lists/lists.module.css";
import { format, type Dictionary } from "../../i18n";
import { useI18n } from "../../i18n/I18nProvider";
import { formatDateTime } from "../../lib/dates";
import { useTRPC } from "../../trpc/client";
import { describeApiError, readApiError } from "../../trpc/errors";
import styles from "./form-requests.module.css";
import { isOpen } from "./states";

type Texts = Dictionary["formRequestsPage"];

function purposeLabel(purpose: string, f: Texts): string {
  if (purpose === "form_request.link") return f.purposeLink;
  if (purpose === "portal.otp") return f.purposeOtp;
  return purpose;
}

/** One SMS of the history: what it was for, its outcome, attempts and last error, its body as stored. */
export function MessageOutcome({ message, f, locale }: { message: MessageSummary; f: Texts; locale: string }) {
  const status =
    message.status === "sent" && message.sentAt ? (
      <Badge tone="success">{format(f.messageSent, { date: formatDateTime(message.sentAt, locale) })}</Badge>
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
      {message.lastError ? <p className={lists.error}>{format(f.lastError, { error: message.lastError })}</p> : null}
    </li>
  );
}

/** A request's SMS history (loaded when opened) and what staff may do with it: send the link again, cancel. */
function RequestPanel({ request }: { request: FormRequestListItem }) {
  const { t, locale } = useI18n();
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
  const failure = resend.error ?? (confirming ? null : cancel.error);

  return (
    <div className={`cs-stack ${lists.detailsPanel}`}>
      <h3 className={lists.detailsHeading}>{f.historyTitle}</h3>
      {history.isPending ? (
        <Skeleton label={t.common.loading} lines={2} />
      ) : history.error ? (
        <Notice tone="danger">{describeApiError(readApiError(history.error), t)}</Notice>
      ) : history.data.length === 0 ? (
        <p className="cs-hint">{f.historyEmpty}</p>
      ) : (
        <ol className={styles.messages}>
          {history.data.map((message) => (
            <MessageOutcome key={message.id} message={message} f={f} locale={locale} />
          ))}
        </ol>
      )}
      {request.submissionId ? (
        <div>
          <Link className="cs-button cs-button--secondary cs-button--small" href={`/submissions/${request.submissionId}`}>
            {f.viewSubmission}
          </Link>
        </div>
      ) : null}
      {isOpen(request.state) ? (
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
      <div role="status" aria-live="polite">
        {resend.isSuccess ? <Notice tone="success">{f.resent}</Notice> : null}
        {cancel.isSuccess ? <Notice tone="success">{f.cancelled}</Notice> : null}
        {failure ? <Notice tone="danger">{describeApiError(readApiError(failure), t)}</Notice> : null}
      </div>
      <Dialog
        open={confirming}
        role="alertdialog"
        onClose={() => setConfirming(false)}
        title={f.cancelTitle}
        description={f.cancelBody}
        closeLabel={t.common.close}
        footer={
          <>
            <Button onClick={() => setConfirming(false)} disabled={cancel.isPending} data-autofocus>
              {f.keep}
            </Button>
            <Button variant="danger" busy={cancel.isPending} onClick={() => cancel.mutate({ id: request.id })}>
              {f.cancelConfirm}
            </Button>
          </>
        }
      >
        {cancel.error ? <Notice tone="danger">{describeApiError(readApiError(cancel.error), t)}</Notice> : null}
      </Dialog>
    </div>
  );
}

/** The list's details cell: closed, it costs nothing; opened, it loads the request's history. */
export function RequestDetails({ request }: { request: FormRequestListItem }) {
  const { t } = useI18n();
  const f = t.formRequestsPage;
  const [open, setOpen] = useState(false);
  return (
    <details className={lists.details} onToggle={(e) => setOpen(e.currentTarget.open)}>
      <summary aria-label={format(f.showDetailsLabel, { rnummer: request.rnummer })}>{f.showDetails}</summary>
      {open ? <RequestPanel request={request} /> : null}
    </details>
  );
}
