"use client";

import { Button, Notice, Segmented, TextField } from "@clinsign/ui";
import { useMutation } from "@tanstack/react-query";
import { useState, type FormEvent } from "react";
import { format } from "../../i18n";
import { useI18n } from "../../i18n/I18nProvider";
import { useTRPC } from "../../trpc/client";
import { describeApiError, readApiError } from "../../trpc/errors";

type Channel = "sms" | "email";

/**
 * Sends one signer's link by SMS or e-mail from the console (instead of copying and pasting it):
 * to the number on the request unless another is typed, or to a typed address. Says where it went,
 * and plainly when no provider is set up and the message waits in the outbox.
 */
export function SendLinkForm({
  signatureRequestId,
  signerId,
  who,
  knownPhone,
}: {
  signatureRequestId: string;
  /** Several signers: whose link (absent: the patient's). */
  signerId?: string;
  /** Role and name, for the labels: the link is for this person only. */
  who: string;
  /** The number on the request for this signer, used when none is typed. */
  knownPhone?: string | null;
}) {
  const { t } = useI18n();
  const s = t.signatureRequestsPage.sendLink;
  const trpc = useTRPC();
  const [channel, setChannel] = useState<Channel>("sms");
  const [to, setTo] = useState("");
  const send = useMutation(trpc.signatures.sendLink.mutationOptions());
  const apiError = send.error ? readApiError(send.error) : null;
  const fieldError = apiError?.details.field === "to" ? apiError.message : undefined;

  function onSubmit(event: FormEvent) {
    event.preventDefault();
    send.mutate({
      id: signatureRequestId,
      ...(signerId && { signerId }),
      channel,
      ...(to.trim() && { to: to.trim() }),
    });
  }

  const sent = send.data;
  return (
    <form className="cs-stack" onSubmit={onSubmit} noValidate aria-label={format(s.formLabel, { who })}>
      <Segmented
        label={s.channel}
        name={`send-link-channel-${signerId ?? "patient"}`}
        value={channel}
        onChange={(next: Channel) => (setChannel(next), send.reset())}
        options={[
          { value: "sms", label: s.sms },
          { value: "email", label: s.email },
        ]}
      />
      <TextField
        label={channel === "sms" ? s.phoneLabel : s.emailLabel}
        hint={channel === "sms" && knownPhone ? format(s.phoneHint, { phone: knownPhone }) : undefined}
        type={channel === "sms" ? "tel" : "email"}
        inputMode={channel === "sms" ? "tel" : "email"}
        autoComplete="off"
        value={to}
        onChange={(event) => setTo(event.target.value)}
        error={fieldError}
      />
      <div>
        <Button type="submit" busy={send.isPending}>
          {format(channel === "sms" ? s.sendSms : s.sendEmail, { who })}
        </Button>
      </div>
      <div role="status">
        {sent ? (
          <Notice tone={sent.delivery === "outbox" ? "warning" : "success"}>
            {sent.delivery === "outbox" ? s.inOutbox : format(s.sent, { who })}
          </Notice>
        ) : null}
      </div>
      {apiError && !fieldError ? (
        <Notice tone="danger" role="alert">
          {describeApiError(apiError, t)}
        </Notice>
      ) : null}
    </form>
  );
}
