"use client";

import {
  templateSchema,
  templateTranslations,
  translationProblems,
  type FormField,
  type PatientLanguage,
  type Template,
  type TemplateSchema,
  type TemplateTranslations,
} from "@clinsign/contracts";
import {
  Badge,
  Button,
  type ButtonProps,
  Card,
  EmptyState,
  Field,
  Icon,
  LiveRegion,
  Notice,
  Segmented,
  SelectField,
  Skeleton,
} from "@clinsign/ui";
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useEffect, useMemo, useRef, useState, type DragEvent, type ReactNode } from "react";
import { format } from "../../i18n";
import { useI18n } from "../../i18n/I18nProvider";
import { useTRPC } from "../../trpc/client";
import { useLeaveGuard } from "../../components/useLeaveGuard";
import { describeApiError, isClientError, readApiError } from "../../trpc/errors";
import {
  addField,
  createField,
  dependents,
  duplicateField,
  fieldTypes,
  isDisplayType,
  moveField,
  removeField,
  replaceField,
  type FieldType,
} from "./builder-model";
import { EmbedPanel } from "./EmbedPanel";
import { AnswerListsPanel } from "./AnswerListsPanel";
import { describeCondition } from "./ConditionEditor";
import { FieldEditor, labelInputId } from "./FieldEditor";
import { PreviewPane } from "./PreviewPane";
import { ScoreVisibilitySwitch } from "./ScoreVisibilitySwitch";
import { TranslationsPanel } from "./TranslationsPanel";
import { statusHelp, statusLabel } from "./status";
import styles from "./builder.module.css";

interface Draft {
  title: string;
  description: string;
  status: Template["status"];
  schema: TemplateSchema;
  defaultLanguage: PatientLanguage;
  translations: TemplateTranslations;
}

const draftOf = (template: Template): Draft => ({
  title: template.title,
  description: template.description ?? "",
  status: template.status,
  schema: template.schema,
  defaultLanguage: template.defaultLanguage,
  translations: template.translations,
});

/**
 * An imported file's languages: its `defaultLanguage` and `translations` when they are valid for
 * the imported schema, else null with the first problem.
 */
function importedLanguages(
  raw: unknown,
  schema: TemplateSchema,
  fallback: PatientLanguage,
): { defaultLanguage: PatientLanguage; translations: TemplateTranslations } | { problem: string } {
  const file = (raw && typeof raw === "object" ? raw : {}) as { defaultLanguage?: unknown; translations?: unknown };
  const defaultLanguage = (
    typeof file.defaultLanguage === "string" ? file.defaultLanguage : fallback
  ) as PatientLanguage;
  const parsed = templateTranslations.safeParse(file.translations ?? {});
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    return { problem: `translations.${issue.path.join(".")}: ${issue.message}` };
  }
  const translations = parsed.data as TemplateTranslations;
  const [problem] = translationProblems(schema, translations, defaultLanguage);
  if (problem) return { problem: `translations.${problem.path.join(".")}: ${problem.message}` };
  return { defaultLanguage, translations };
}

/** The schema's problems by field index and attribute, in the schema validation's own words. */
type ProblemsByIndex = Map<number, Record<string, string>>;

/** The schema's problems by field and by answer list, then attribute (the template schema's own messages). */
function schemaProblems(schema: TemplateSchema): { byField: ProblemsByIndex; bySet: ProblemsByIndex; count: number } {
  const parsed = templateSchema.safeParse(schema);
  const byField: ProblemsByIndex = new Map();
  const bySet: ProblemsByIndex = new Map();
  if (parsed.success) return { byField, bySet, count: 0 };
  for (const issue of parsed.error.issues) {
    const [first, index, attribute] = issue.path;
    const byIndex = first === "fields" ? byField : first === "optionSets" ? bySet : null;
    if (!byIndex || typeof index !== "number") continue;
    const entry = byIndex.get(index) ?? {};
    entry[String(attribute ?? "label")] ??= issue.message;
    byIndex.set(index, entry);
  }
  return { byField, bySet, count: parsed.error.issues.length };
}

/**
 * The form builder: the template's fields as a list (add, reorder by drag and drop or with the
 * move buttons, duplicate, remove), the selected field's attributes and condition, a live
 * preview with the patients' renderer, saving (a new schema version), status, JSON import and
 * export, and the embed panel.
 */
export function TemplateBuilder({ identifier }: { identifier: string }) {
  const { t } = useI18n();
  const b = t.formTemplates.builder;
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const template = useQuery(
    trpc.templates.get.queryOptions(
      { identifier, activeOnly: false },
      { retry: (count, error) => !isClientError(error) && count < 2 },
    ),
  );
  const [draft, setDraft] = useState<Draft | null>(null);
  const [saved, setSaved] = useState<Draft | null>(null);
  const [open, setOpen] = useState<string | null>(null);
  const [newType, setNewType] = useState<FieldType>("text");
  const [announcement, setAnnouncement] = useState("");
  const [message, setMessage] = useState<{ tone: "success" | "danger" | "info"; text: string } | null>(null);
  const [dragging, setDragging] = useState<number | null>(null);
  const [view, setView] = useState<"fields" | "answerLists" | "translations">("fields");
  // The language the translations view edits; the preview shows the form in it.
  const [translating, setTranslating] = useState<PatientLanguage | null>(null);
  // Field ids whose key was typed by hand: their key no longer follows the label.
  const keyEdited = useRef(new Set<string>());

  useEffect(() => {
    if (template.data && !draft) {
      const loaded = draftOf(template.data);
      setDraft(loaded);
      setSaved(loaded);
      for (const field of loaded.schema.fields) keyEdited.current.add(field.id);
    }
  }, [template.data, draft]);

  const dirty = draft !== null && saved !== null && JSON.stringify(draft) !== JSON.stringify(saved);
  const problems = useMemo(
    () =>
      draft
        ? schemaProblems(draft.schema)
        : { byField: new Map() as ProblemsByIndex, bySet: new Map() as ProblemsByIndex, count: 0 },
    [draft],
  );

  useLeaveGuard(dirty, b.leaveWarning);

  const save = useMutation(
    trpc.templates.update.mutationOptions({
      onSuccess: (updated) => {
        const next = draftOf(updated);
        setDraft(next);
        setSaved(next);
        setMessage({ tone: "success", text: format(t.formTemplates.saved, { version: updated.schema.version }) });
        queryClient.setQueryData(trpc.templates.get.queryKey({ identifier, activeOnly: false }), updated);
        void queryClient.invalidateQueries({ queryKey: trpc.templates.list.queryKey() });
      },
      onError: (error) => setMessage({ tone: "danger", text: describeApiError(readApiError(error), t) }),
    }),
  );

  if (template.isPending || (template.data && !draft)) return <Skeleton label={t.common.loading} lines={8} />;
  if (template.isError || !draft) {
    return (
      <EmptyState
        level={1}
        icon="alert"
        title={t.formTemplates.pageTitle}
        description={isClientError(template.error) ? t.formTemplates.preview.notFound : t.errors.loadFailed}
      />
    );
  }

  const fields = draft.schema.fields;
  const setSchema = (schema: TemplateSchema) => setDraft({ ...draft, schema });

  function move(from: number, to: number) {
    if (to < 0 || to >= fields.length) return;
    setSchema(moveField(draft!.schema, from, to));
    const label = fields[from]!.label || fields[from]!.key || "";
    setAnnouncement(format(b.moved, { label, position: to + 1 }));
    // Focus stays with the moved field's button so the keyboard can keep moving it.
    window.requestAnimationFrame(() =>
      document.getElementById(`move-${fields[from]!.id}-${to < from ? "up" : "down"}`)?.focus(),
    );
  }

  function onDrop(event: DragEvent, to: number) {
    event.preventDefault();
    if (dragging !== null) move(dragging, to);
    setDragging(null);
  }

  function add() {
    const field = createField(
      newType,
      isDisplayType(newType) ? b.types[newType] : format(b.newLabel, { type: b.types[newType] }),
      fields,
    );
    setSchema(addField(draft!.schema, field));
    setOpen(field.id);
    // The new field's label takes the focus, its text selected: typing names the field at once.
    // (The card's scroll-margin keeps it clear of the sticky header.)
    window.requestAnimationFrame(() => {
      document.getElementById(`card-${field.id}`)?.scrollIntoView({ block: "start" });
      const input = document.getElementById(labelInputId(field.id));
      if (input instanceof HTMLInputElement || input instanceof HTMLTextAreaElement) {
        input.focus({ preventScroll: true });
        input.select();
      }
    });
  }

  function exportJson() {
    const blob = new Blob(
      [
        JSON.stringify(
          {
            title: draft!.title,
            description: draft!.description || null,
            schema: draft!.schema,
            defaultLanguage: draft!.defaultLanguage,
            translations: draft!.translations,
          },
          null,
          2,
        ),
      ],
      { type: "application/json" },
    );
    const url = URL.createObjectURL(blob);
    const link = document.createElement("a");
    link.href = url;
    link.download = `${identifier}.json`;
    link.click();
    URL.revokeObjectURL(url);
  }

  async function importJson(file: File | undefined) {
    if (!file) return;
    try {
      const raw = JSON.parse(await file.text()) as { schema?: unknown };
      const parsed = templateSchema.safeParse(raw && typeof raw === "object" && "schema" in raw ? raw.schema : raw);
      if (!parsed.success) {
        const issue = parsed.error.issues[0]!;
        setMessage({
          tone: "danger",
          text: format(b.importFailed, { problem: `${issue.path.join(".")}: ${issue.message}` }),
        });
        return;
      }
      const languages = importedLanguages(raw, parsed.data, draft!.defaultLanguage);
      if ("problem" in languages) {
        setMessage({ tone: "danger", text: format(b.importFailed, { problem: languages.problem }) });
        return;
      }
      setDraft({ ...draft!, schema: { ...parsed.data, version: draft!.schema.version }, ...languages });
      for (const field of parsed.data.fields) keyEdited.current.add(field.id);
      setMessage({ tone: "info", text: format(b.imported, { count: parsed.data.fields.length }) });
    } catch (error) {
      setMessage({
        tone: "danger",
        text: format(b.importFailed, { problem: error instanceof Error ? error.message : String(error) }),
      });
    }
  }

  const current = template.data!;
  return (
    <div className={styles.builder}>
      <div className={styles.topbar}>
        <a href="/form-templates" className={styles.back}>
          ← {b.back}
        </a>
        <div className={styles.topActions}>
          <span className={styles.saveState} role="status">
            {dirty ? <Badge tone="warning">{b.unsaved}</Badge> : <span className="cs-hint">{b.allSaved}</span>}
          </span>
          <Button onClick={exportJson}>{b.exportJson}</Button>
          <label className="cs-button cs-button--secondary">
            {b.importJson}
            <input
              type="file"
              accept="application/json,.json"
              className="cs-visually-hidden"
              onChange={(event) => void importJson(event.target.files?.[0])}
            />
          </label>
          <a
            className="cs-button cs-button--secondary"
            href={`/form-templates/${encodeURIComponent(identifier)}/preview`}
          >
            {t.formTemplates.previewAction}
          </a>
          <Button
            variant="primary"
            busy={save.isPending}
            disabled={!dirty || problems.count > 0 || !draft.title.trim()}
            onClick={() =>
              save.mutate({
                identifier,
                title: draft.title.trim(),
                description: draft.description.trim() || null,
                status: draft.status,
                schema: { ...draft.schema, version: (saved?.schema.version ?? 0) + 1 },
                defaultLanguage: draft.defaultLanguage,
                translations: draft.translations,
              })
            }
          >
            {save.isPending ? b.saving : b.save}
          </Button>
        </div>
      </div>
      <LiveRegion className="cs-visually-hidden">{announcement}</LiveRegion>
      {message ? (
        <Notice tone={message.tone} role={message.tone === "danger" ? "alert" : "status"}>
          {message.text}
        </Notice>
      ) : null}
      {problems.count > 0 ? <Notice tone="warning">{b.invalid}</Notice> : null}

      <Segmented<"fields" | "answerLists" | "translations">
        label={b.views}
        name="builder-view"
        className={styles.viewSwitch}
        value={view}
        onChange={setView}
        options={[
          { value: "fields", label: b.fieldsView },
          { value: "answerLists", label: b.answerListsView },
          { value: "translations", label: b.translationsView },
        ]}
      />

      <div className={styles.columns}>
        <div className={styles.editColumn}>
          {view === "translations" ? (
            <TranslationsPanel
              title={draft.title}
              description={draft.description || null}
              schema={draft.schema}
              defaultLanguage={draft.defaultLanguage}
              translations={draft.translations}
              onDefaultLanguageChange={(defaultLanguage) => setDraft({ ...draft, defaultLanguage })}
              onTranslationsChange={(translations) => setDraft({ ...draft, translations })}
              language={translating}
              onLanguageChange={setTranslating}
              announce={setAnnouncement}
            />
          ) : view === "answerLists" ? (
            <AnswerListsPanel
              schema={draft.schema}
              problems={problems.bySet}
              onChange={setSchema}
              announce={setAnnouncement}
            />
          ) : (
            <>
              <Card>
                <div className="cs-stack">
                  <Field id="template-title" label={b.titleLabel}>
                    {(control) => (
                      <input
                        {...control}
                        className={`cs-input ${styles.titleInput}`}
                        value={draft.title}
                        maxLength={120}
                        onChange={(event) => setDraft({ ...draft, title: event.target.value })}
                      />
                    )}
                  </Field>
                  <Field id="template-description" label={b.descriptionLabel}>
                    {(control) => (
                      <textarea
                        {...control}
                        className="cs-input"
                        rows={2}
                        maxLength={1000}
                        value={draft.description}
                        onChange={(event) => setDraft({ ...draft, description: event.target.value })}
                      />
                    )}
                  </Field>
                  <SelectField
                    id="template-status"
                    label={b.status}
                    hint={statusHelp(draft.status, t)}
                    hintAfter
                    options={(["draft", "active", "archived"] as const).map((status) => ({
                      value: status,
                      label: statusLabel(status, t),
                    }))}
                    value={draft.status}
                    onChange={(event) => setDraft({ ...draft, status: event.target.value as Template["status"] })}
                  />
                  <ScoreVisibilitySwitch schema={draft.schema} onChange={setSchema} />
                </div>
              </Card>

              <section aria-labelledby="fields-heading" className={styles.fieldsSection}>
                <h2 id="fields-heading">{b.fieldsHeading}</h2>
                {fields.length === 0 ? <p className="cs-hint">{b.noFields}</p> : null}
                <ol className={styles.fieldList}>
                  {fields.map((field, index) => {
                    const fieldProblems = problems.byField.get(index) ?? {};
                    const depending = dependents(draft.schema, field.key);
                    const isOpen = open === field.id;
                    return (
                      <li
                        key={field.id}
                        id={`card-${field.id}`}
                        className={styles.fieldCard}
                        data-open={isOpen || undefined}
                        data-invalid={Object.keys(fieldProblems).length > 0 || undefined}
                        data-dragging={dragging === index || undefined}
                        onDragOver={(event) => dragging !== null && event.preventDefault()}
                        onDrop={(event) => onDrop(event, index)}
                      >
                        <div className={styles.fieldHead}>
                          <span
                            className={styles.handle}
                            draggable
                            title={b.dragHandle}
                            aria-hidden="true"
                            onDragStart={(event) => {
                              event.dataTransfer.effectAllowed = "move";
                              event.dataTransfer.setData("text/plain", field.id);
                              setDragging(index);
                            }}
                            onDragEnd={() => setDragging(null)}
                          >
                            ⋮⋮
                          </span>
                          <div className={styles.fieldSummary}>
                            <span className={styles.fieldLabel} data-field-label>
                              {field.label || "—"}
                              {field.required ? <span className={styles.requiredMark}> *</span> : null}
                            </span>
                            <span className="cs-hint">
                              {b.types[field.type as FieldType]}
                              {field.key ? <code className={styles.key}>{field.key}</code> : null}
                            </span>
                            {field.visibleWhen ? (
                              <span className={styles.conditionNote}>
                                {format(b.shownWhen, {
                                  condition: describeCondition(field.visibleWhen, draft.schema, b),
                                })}
                              </span>
                            ) : null}
                            {depending.length > 0 ? (
                              <span className={styles.dependsNote}>
                                {format(b.dependsOnThis, {
                                  count: depending.length,
                                  labels: depending.map((f) => f.label || f.key || f.id).join(", "),
                                })}
                              </span>
                            ) : null}
                            {Object.values(fieldProblems).map((problem) => (
                              <span key={problem} className="cs-field-error">
                                {problem}
                              </span>
                            ))}
                          </div>
                          <div className={styles.fieldTools}>
                            <FieldTool
                              action={b.moveUp}
                              fieldLabel={field.label}
                              id={`move-${field.id}-up`}
                              disabled={index === 0}
                              onClick={() => move(index, index - 1)}
                            >
                              <span aria-hidden="true">↑</span>
                            </FieldTool>
                            <FieldTool
                              action={b.moveDown}
                              fieldLabel={field.label}
                              id={`move-${field.id}-down`}
                              disabled={index === fields.length - 1}
                              onClick={() => move(index, index + 1)}
                            >
                              <span aria-hidden="true">↓</span>
                            </FieldTool>
                            <FieldTool
                              action={b.duplicate}
                              fieldLabel={field.label}
                              onClick={() => setSchema(duplicateField(draft.schema, index))}
                            >
                              <Icon name="copy" />
                            </FieldTool>
                            <FieldTool
                              action={b.remove}
                              fieldLabel={field.label}
                              onClick={() => setSchema(removeField(draft.schema, index))}
                            >
                              <Icon name="trash" />
                            </FieldTool>
                            <Button
                              size="small"
                              aria-expanded={isOpen}
                              aria-controls={`editor-${field.id}`}
                              onClick={() => setOpen(isOpen ? null : field.id)}
                            >
                              {isOpen ? b.closeField : b.editField}
                            </Button>
                          </div>
                        </div>
                        {isOpen ? (
                          <div id={`editor-${field.id}`}>
                            <FieldEditor
                              field={field}
                              index={index}
                              schema={draft.schema}
                              problems={fieldProblems}
                              keyFollowsLabel={!keyEdited.current.has(field.id)}
                              onKeyEdited={() => keyEdited.current.add(field.id)}
                              onChange={(next: FormField) => setSchema(replaceField(draft.schema, index, next))}
                              onSchemaChange={setSchema}
                            />
                          </div>
                        ) : null}
                      </li>
                    );
                  })}
                </ol>
                <div className={styles.addRow}>
                  <SelectField
                    id="new-field-type"
                    label={b.addFieldType}
                    options={fieldTypes.map((type) => ({ value: type, label: b.types[type] }))}
                    value={newType}
                    onChange={(event) => setNewType(event.target.value as FieldType)}
                  />
                  <Button onClick={add} icon={<Icon name="plus" />}>
                    {b.addField}
                  </Button>
                </div>
              </section>
            </>
          )}
          <EmbedPanel template={current} />
        </div>
        <aside className={styles.previewColumn} aria-labelledby="preview-heading">
          <h2 id="preview-heading">{b.previewHeading}</h2>
          <PreviewPane
            title={draft.title}
            description={draft.description || null}
            schema={problems.count === 0 ? draft.schema : (saved?.schema ?? draft.schema)}
            defaultLanguage={draft.defaultLanguage}
            translations={draft.translations}
            formLanguage={view === "translations" ? translating : undefined}
          />
        </aside>
      </div>
    </div>
  );
}

/** A small icon button in a field's row, named for its action and the field ("Move up: Name"). */
function FieldTool({
  action,
  fieldLabel,
  children,
  ...button
}: { action: string; fieldLabel: string; children: ReactNode } & Pick<ButtonProps, "id" | "disabled" | "onClick">) {
  return (
    <Button size="small" variant="ghost" iconOnly aria-label={`${action}: ${fieldLabel}`} title={action} {...button}>
      {children}
    </Button>
  );
}
