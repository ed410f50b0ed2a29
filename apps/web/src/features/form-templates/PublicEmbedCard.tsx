"use client";

import type { PublicEmbed, Template, VisitorPolicyOutput } from "@clinsign/contracts";
import { Badge, Button, Card, CopyField, Notice, RadioCards, Skeleton, Switch, TextField } from "@clinsign/ui";
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useEffect, useState, type FormEvent } from "react";
import { LoadFailed } from "../../components/LoadFailed";
import { useI18n } from "../../i18n/I18nProvider";
import { useTRPC } from "../../trpc/client";
import { describeApiError, readApiError } from "../../trpc/errors";
import { embedSnippet, typedList } from "./embed-snippet";

/** A new embed starts every visit empty and keeps nothing in the visitor's browser. */
const DEFAULT_VISITOR: VisitorPolicyOutput = { mode: "fresh", idleMinutes: 5 };

/**
 * The template's public embed: which websites may show it and whether it is on, saved with an
 * explicit Save; then the snippet to paste, which stays the same through every change.
 */
export function PublicEmbedCard({ template }: { template: Template }) {
  const { t } = useI18n();
  const e = t.formTemplates.embed;
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const ref = { templateIdentifier: template.identifier };
  const current = useQuery(trpc.publicEmbeds.get.queryOptions(ref));
  const [origins, setOrigins] = useState("");
  const [enabled, setEnabled] = useState(true);
  const [visitor, setVisitor] = useState<VisitorPolicyOutput>(DEFAULT_VISITOR);
  const [savedOnce, setSavedOnce] = useState(false);
  const [missingOrigin, setMissingOrigin] = useState(false);
  const loaded = current.data;
  useEffect(() => {
    if (loaded === undefined) return;
    setOrigins((loaded?.allowedOrigins ?? []).join(", "));
    setEnabled(loaded?.enabled ?? true);
    setVisitor(loaded?.visitor ?? DEFAULT_VISITOR);
  }, [loaded]);
  const save = useMutation(
    trpc.publicEmbeds.save.mutationOptions({
      onSuccess: (saved: PublicEmbed) => {
        setSavedOnce(true);
        queryClient.setQueryData(trpc.publicEmbeds.get.queryKey(ref), saved);
      },
    }),
  );
  const apiError = readApiError(save.error);
  const originError = missingOrigin
    ? e.originRequired
    : apiError.fieldErrors.find((issue) => issue.key.startsWith("allowedOrigins"))?.message;
  const copyLabels = { copy: t.common.copy, copied: t.common.copied, copyManually: t.common.copyManually };
  const dirty =
    loaded !== undefined &&
    (typedList(origins).join("\n") !== (loaded?.allowedOrigins ?? []).join("\n") ||
      enabled !== (loaded?.enabled ?? true) ||
      JSON.stringify(visitor) !== JSON.stringify(loaded?.visitor ?? DEFAULT_VISITOR));

  function submit(event: FormEvent) {
    event.preventDefault();
    setSavedOnce(false);
    // A website form that is on must name the site that shows it; said here in the page's language.
    const missing = enabled && typedList(origins).length === 0;
    setMissingOrigin(missing);
    if (!missing) save.mutate({ ...ref, allowedOrigins: typedList(origins), enabled, visitor });
  }

  let body;
  if (current.isPending) body = <Skeleton label={t.common.loading} lines={3} />;
  else if (current.isError) body = <LoadFailed query={current} />;
  else
    body = (
      <form className="cs-stack" onSubmit={submit} noValidate aria-label={e.publicTitle}>
        <TextField
          label={e.allowedOrigins}
          hint={e.allowedOriginsHint}
          value={origins}
          onChange={(event) => setOrigins(event.target.value)}
          error={originError}
        />
        <Switch label={e.publicOn} description={e.publicOnHint} checked={enabled} onChange={setEnabled} />
        <VisitorPolicyFields value={visitor} onChange={setVisitor} />
        {save.isError && !originError ? (
          <Notice tone="danger" role="alert">
            {describeApiError(apiError, t)}
          </Notice>
        ) : null}
        <div className="cs-row">
          <Button type="submit" variant="primary" busy={save.isPending} disabled={loaded !== null && !dirty}>
            {loaded ? e.savePublic : e.createPublic}
          </Button>
          <span className="cs-hint" role="status">
            {dirty ? e.unsaved : savedOnce ? e.publicSaved : ""}
          </span>
        </div>
        {loaded ? (
          loaded.enabled ? (
            <CopyField
              label={e.snippet}
              value={embedSnippet(loaded.embedUrl, template.title)}
              labels={copyLabels}
              hint={e.snippetHint}
              testId="public-embed-snippet"
            />
          ) : (
            <Notice tone="info">{e.publicOffNotice}</Notice>
          )
        ) : null}
      </form>
    );

  return (
    <Card
      title={e.publicTitle}
      description={e.publicDescription}
      actions={
        loaded ? (
          <Badge tone={loaded.enabled ? "success" : "neutral"}>{loaded.enabled ? e.stateOn : e.stateOff}</Badge>
        ) : undefined
      }
    >
      {body}
    </Card>
  );
}

/**
 * How the embed treats the visitor's device: empty every visit (default), offer to continue an
 * unfinished form (visitors' own devices), or a shared device that also empties after a while
 * without activity (a waiting-room tablet: the next visitor is the next patient).
 */
function VisitorPolicyFields({
  value,
  onChange,
}: {
  value: VisitorPolicyOutput;
  onChange(next: VisitorPolicyOutput): void;
}) {
  const { t } = useI18n();
  const v = t.formTemplates.embed.visitor;
  const minutes = String(value.idleMinutes);
  return (
    <div className="cs-stack">
      <RadioCards
        legend={v.legend}
        name="visitor-mode"
        value={value.mode}
        onChange={(mode) => onChange({ ...value, mode })}
        options={[
          { value: "fresh", label: v.fresh, description: v.freshHint },
          { value: "resume", label: v.resume, description: v.resumeHint },
          { value: "shared_device", label: v.shared, description: v.sharedHint },
        ]}
      />
      {value.mode === "shared_device" ? (
        <TextField
          label={v.idleMinutes}
          hint={v.idleMinutesHint}
          type="number"
          inputMode="numeric"
          min={1}
          max={60}
          value={minutes}
          onChange={(event) => {
            const next = Math.round(Number(event.target.value));
            if (Number.isFinite(next)) onChange({ ...value, idleMinutes: Math.min(60, Math.max(1, next)) });
          }}
        />
      ) : null}
    </div>
  );
}
