"use client";

import type { PublicEmbed, Template, VisitorPolicyOutput } from "@clinsign/contracts";
import { Badge, Button, Card, CopyField, Notice, RadioCards, Switch, TextField } from "@clinsign/ui";
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useEffect, useReducer, type FormEvent } from "react";
import { ErrorNotice } from "../../components/ErrorNotice";
import { QueryState } from "../../components/QueryState";
import { useI18n } from "../../i18n/I18nProvider";
import { useTRPC } from "../../trpc/client";
import { readApiError } from "../../trpc/errors";
import { embedSnippet, typedList } from "./embed-snippet";

/** A new embed starts every visit empty and keeps nothing in the visitor's browser. */
const DEFAULT_VISITOR: VisitorPolicyOutput = { mode: "fresh", idleMinutes: 5 };

/** The card's form: what is typed (origins as text), and what the last Save said. */
interface EmbedDraft {
  origins: string;
  enabled: boolean;
  visitor: VisitorPolicyOutput;
  savedOnce: boolean;
  missingOrigin: boolean;
}

/** What staff change by hand; the rest follows from loading and saving. */
type EmbedEdit = Partial<Pick<EmbedDraft, "origins" | "enabled" | "visitor">>;

type EmbedDraftAction =
  | { type: "loaded"; embed: PublicEmbed | null }
  | { type: "edited"; change: EmbedEdit }
  | { type: "submitted"; missingOrigin: boolean }
  | { type: "saved" };

const initialDraft: EmbedDraft = {
  origins: "",
  enabled: true,
  visitor: DEFAULT_VISITOR,
  savedOnce: false,
  missingOrigin: false,
};

function embedDraftReducer(draft: EmbedDraft, action: EmbedDraftAction): EmbedDraft {
  switch (action.type) {
    case "loaded":
      return {
        ...draft,
        origins: (action.embed?.allowedOrigins ?? []).join(", "),
        enabled: action.embed?.enabled ?? true,
        visitor: action.embed?.visitor ?? DEFAULT_VISITOR,
      };
    case "edited":
      return { ...draft, ...action.change };
    case "submitted":
      return { ...draft, savedOnce: false, missingOrigin: action.missingOrigin };
    case "saved":
      return { ...draft, savedOnce: true };
  }
}

/** Whether the form differs from the saved embed (a new one is never "unsaved"). */
function isDirty(draft: EmbedDraft, loaded: PublicEmbed | null | undefined) {
  return (
    loaded !== undefined &&
    (typedList(draft.origins).join("\n") !== (loaded?.allowedOrigins ?? []).join("\n") ||
      draft.enabled !== (loaded?.enabled ?? true) ||
      JSON.stringify(draft.visitor) !== JSON.stringify(loaded?.visitor ?? DEFAULT_VISITOR))
  );
}

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
  const [draft, dispatch] = useReducer(embedDraftReducer, initialDraft);
  const loaded = current.data;
  useEffect(() => {
    if (loaded === undefined) return;
    dispatch({ type: "loaded", embed: loaded });
  }, [loaded]);
  const save = useMutation(
    trpc.publicEmbeds.save.mutationOptions({
      onSuccess: (saved: PublicEmbed) => {
        dispatch({ type: "saved" });
        queryClient.setQueryData(trpc.publicEmbeds.get.queryKey(ref), saved);
      },
    }),
  );

  function submit(event: FormEvent) {
    event.preventDefault();
    // A website form that is on must name the site that shows it; said here in the page's language.
    const missing = draft.enabled && typedList(draft.origins).length === 0;
    dispatch({ type: "submitted", missingOrigin: missing });
    if (!missing)
      save.mutate({ ...ref, allowedOrigins: typedList(draft.origins), enabled: draft.enabled, visitor: draft.visitor });
  }

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
      <QueryState query={current}>
        {(embed) => (
          <PublicEmbedForm
            draft={draft}
            saved={embed}
            templateTitle={template.title}
            onChange={(change) => dispatch({ type: "edited", change })}
            onSubmit={submit}
            busy={save.isPending}
            saveError={save.error}
          />
        )}
      </QueryState>
    </Card>
  );
}

/** The embed's settings with Save, then the snippet to paste (or why there is none). */
function PublicEmbedForm({
  draft,
  saved,
  templateTitle,
  onChange,
  onSubmit,
  busy,
  saveError,
}: {
  draft: EmbedDraft;
  /** The embed as saved; null before the first Save. */
  saved: PublicEmbed | null;
  templateTitle: string;
  onChange(change: EmbedEdit): void;
  onSubmit(event: FormEvent): void;
  busy: boolean;
  saveError: unknown;
}) {
  const { t } = useI18n();
  const e = t.formTemplates.embed;
  const apiError = readApiError(saveError);
  const originError = draft.missingOrigin
    ? e.originRequired
    : apiError.fieldErrors.find((issue) => issue.key.startsWith("allowedOrigins"))?.message;
  const copyLabels = { copy: t.common.copy, copied: t.common.copied, copyManually: t.common.copyManually };
  const dirty = isDirty(draft, saved);
  return (
    <form className="cs-stack" onSubmit={onSubmit} noValidate aria-label={e.publicTitle}>
      <TextField
        label={e.allowedOrigins}
        hint={e.allowedOriginsHint}
        value={draft.origins}
        onChange={(event) => onChange({ origins: event.target.value })}
        error={originError}
      />
      <Switch
        label={e.publicOn}
        description={e.publicOnHint}
        checked={draft.enabled}
        onChange={(enabled) => onChange({ enabled })}
      />
      <VisitorPolicyFields value={draft.visitor} onChange={(visitor) => onChange({ visitor })} />
      <ErrorNotice error={originError ? null : saveError} />
      <div className="cs-row">
        <Button type="submit" variant="primary" busy={busy} disabled={saved !== null && !dirty}>
          {saved ? e.savePublic : e.createPublic}
        </Button>
        <span className="cs-hint" role="status">
          {dirty ? e.unsaved : draft.savedOnce ? e.publicSaved : ""}
        </span>
      </div>
      {saved ? (
        saved.enabled ? (
          <CopyField
            label={e.snippet}
            value={embedSnippet(saved.embedUrl, templateTitle)}
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
