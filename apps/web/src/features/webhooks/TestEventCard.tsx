"use client";

import { Button, Card, LiveRegion, Notice, SelectField } from "@clinsign/ui";
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useState, type FormEvent } from "react";
import lists from "../../components/lists/lists.module.css";
import { useI18n } from "../../i18n/I18nProvider";
import { useTemplateOptions } from "../../components/lists/template-options";
import { useTRPC } from "../../trpc/client";
import { describeApiError, readApiError } from "../../trpc/errors";
import { TEST_EVENTS } from "./events";

type TestEvent = (typeof TEST_EVENTS)[number];

/** F11 from the console: a signed test event to the default URLs, recorded in the log. */
export function TestEventCard() {
  const { t } = useI18n();
  const w = t.webhooksPage;
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const templates = useTemplateOptions() ?? [];
  const overview = useQuery(trpc.webhooks.overview.queryOptions());
  const [templateIdentifier, setTemplateIdentifier] = useState("");
  const [event, setEvent] = useState<TestEvent>("form.opened");
  const send = useMutation(
    trpc.webhooks.test.mutationOptions({
      onSettled: () => void queryClient.invalidateQueries({ queryKey: trpc.webhooks.attempts.pathKey() }),
    }),
  );
  const noUrls = overview.data?.webhookUrls.length === 0;

  function submit(e: FormEvent) {
    e.preventDefault();
    send.mutate({ templateIdentifier, event });
  }

  return (
    <Card title={w.testTitle} description={w.testDescription}>
      <form className={lists.filters} onSubmit={submit} aria-label={w.testTitle}>
        <SelectField
          id="test-template"
          label={w.testTemplate}
          placeholder={w.chooseTemplate}
          options={templates.map((item) => ({ value: item.identifier, label: item.title }))}
          value={templateIdentifier}
          onChange={(e) => setTemplateIdentifier(e.target.value)}
          required
        />
        <SelectField
          id="test-event"
          label={w.testEvent}
          options={TEST_EVENTS.map((name) => ({ value: name }))}
          value={event}
          onChange={(e) => setEvent(e.target.value as TestEvent)}
        />
        <div className={lists.filterActions}>
          <Button type="submit" variant="primary" busy={send.isPending} disabled={noUrls}>
            {w.sendTest}
          </Button>
        </div>
      </form>
      <LiveRegion>
        {noUrls ? <p className="cs-hint">{w.testNoUrls}</p> : null}
        {send.data ? (
          <Notice tone={send.data.delivered ? "success" : "warning"}>
            {send.data.delivered ? w.testDelivered : w.testFailed}
          </Notice>
        ) : null}
        {send.error ? <Notice tone="danger">{describeApiError(readApiError(send.error), t)}</Notice> : null}
      </LiveRegion>
    </Card>
  );
}
