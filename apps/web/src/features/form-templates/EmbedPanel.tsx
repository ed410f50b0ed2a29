"use client";

import type { CreatedSession, Template } from "@clinsign/contracts";
import { Button, Card, CopyField, Notice, TextField } from "@clinsign/ui";
import { useMutation } from "@tanstack/react-query";
import { useState, type FormEvent } from "react";
import { format } from "../../i18n";
import { useI18n } from "../../i18n/I18nProvider";
import { formatDateTime } from "../../lib/dates";
import { useTRPC } from "../../trpc/client";
import { describeApiError, readApiError } from "../../trpc/errors";

const lines = (text: string) =>
  text
    .split(/[\n,]/)
    .map((line) => line.trim())
    .filter(Boolean);

/** The snippet a website pastes: the iframe with the session's link, and the sizing script. */
export function embedSnippet(embedUrl: string, title: string): string {
  const origin = new URL(embedUrl).origin;
  const safeTitle = title.replace(/[<>&"]/g, "");
  return `<iframe src="${embedUrl}" data-clinsign-form title="${safeTitle}" style="width:100%;border:0"></iframe><script src="${origin}/embed.js" async></script>`;
}

/** Creates an embed session (`POST /api/embed/sessions` through tRPC) and shows what to paste. */
export function EmbedPanel({ template }: { template: Template }) {
  const { t, locale } = useI18n();
  const e = t.formTemplates.embed;
  const trpc = useTRPC();
  const [webhookUrl, setWebhookUrl] = useState("");
  const [redirectUrl, setRedirectUrl] = useState("");
  const [draftKey, setDraftKey] = useState("");
  const [emailTo, setEmailTo] = useState("");
  const [origins, setOrigins] = useState("");
  const [lifetime, setLifetime] = useState("1440");
  const [created, setCreated] = useState<CreatedSession | null>(null);
  const create = useMutation(trpc.sessions.create.mutationOptions({ onSuccess: setCreated }));
  const fieldErrors = new Map(readApiError(create.error).fieldErrors.map((issue) => [issue.key.replace(/^config\./, ""), issue.message]));
  const copyLabels = { copy: t.common.copy, copied: t.common.copied, copyManually: t.common.copyManually };

  function submit(event: FormEvent) {
    event.preventDefault();
    setCreated(null);
    const emails = lines(emailTo);
    create.mutate({
      templateIdentifier: template.identifier,
      config: {
        ...(webhookUrl.trim() && { webhookUrl: webhookUrl.trim() }),
        ...(redirectUrl.trim() && { redirectUrl: redirectUrl.trim() }),
        ...(draftKey.trim() && { draftKey: draftKey.trim() }),
        ...(emails.length > 0 && { emailTo: emails }),
        ...(lines(origins).length > 0 && { allowedOrigins: lines(origins) }),
        ...(Number(lifetime) > 0 && { expiresInMinutes: Math.round(Number(lifetime)) }),
      },
    });
  }

  return (
    <Card title={e.title} description={e.description}>
      {template.status !== "active" ? (
        <Notice tone="info">{e.onlyActive}</Notice>
      ) : (
        <form className="cs-stack" onSubmit={submit} noValidate>
          <TextField label={e.allowedOrigins} hint={e.allowedOriginsHint} value={origins} onChange={(event) => setOrigins(event.target.value)} error={fieldErrors.get("allowedOrigins") ?? [...fieldErrors].find(([k]) => k.startsWith("allowedOrigins"))?.[1]} />
          <TextField label={e.webhookUrl} type="url" value={webhookUrl} onChange={(event) => setWebhookUrl(event.target.value)} error={fieldErrors.get("webhookUrl")} />
          <TextField label={e.redirectUrl} type="url" value={redirectUrl} onChange={(event) => setRedirectUrl(event.target.value)} error={fieldErrors.get("redirectUrl")} />
          <TextField label={e.emailTo} type="email" value={emailTo} onChange={(event) => setEmailTo(event.target.value)} error={fieldErrors.get("emailTo")} />
          <TextField label={e.draftKey} value={draftKey} onChange={(event) => setDraftKey(event.target.value)} error={fieldErrors.get("draftKey")} />
          <TextField label={e.lifetime} inputMode="numeric" value={lifetime} onChange={(event) => setLifetime(event.target.value)} error={fieldErrors.get("expiresInMinutes")} />
          {create.isError && fieldErrors.size === 0 ? (
            <Notice tone="danger" role="alert">
              {describeApiError(readApiError(create.error), t)}
            </Notice>
          ) : null}
          <div>
            <Button type="submit" variant="primary" busy={create.isPending}>
              {e.create}
            </Button>
          </div>
          {created ? (
            <div className="cs-stack" role="status">
              <CopyField label={e.snippet} value={embedSnippet(created.embedUrl, template.title)} labels={copyLabels} testId="embed-snippet" />
              <CopyField label={e.link} value={created.embedUrl} labels={copyLabels} hint={format(e.expires, { date: formatDateTime(created.expiresAt, locale) })} testId="embed-link" />
            </div>
          ) : null}
        </form>
      )}
    </Card>
  );
}
