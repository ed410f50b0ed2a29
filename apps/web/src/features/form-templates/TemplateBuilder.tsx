"use client";

import type { TemplateSchema } from "@clinsign/contracts";
import { EmptyState, LiveRegion, Notice, Segmented, Skeleton } from "@clinsign/ui";
import type { Dispatch } from "react";
import { useI18n } from "../../i18n/I18nProvider";
import { isClientError } from "../../trpc/errors";
import { AnswerListsPanel } from "./AnswerListsPanel";
import type { BuilderAction, BuilderState, BuilderView, Draft, SchemaProblems } from "./builder-model";
import styles from "./builder.module.css";
import { BuilderTopbar } from "./BuilderTopbar";
import { EmbedPanel } from "./EmbedPanel";
import { FieldListSection } from "./FieldListSection";
import { PreviewPane } from "./PreviewPane";
import { downloadTemplateFile } from "./template-file";
import { TemplateDetailsCard } from "./TemplateDetailsCard";
import { TranslationsPanel } from "./TranslationsPanel";
import { useTemplateBuilder } from "./useTemplateBuilder";

/**
 * The form builder: the template's fields as a list (add, reorder by drag and drop or with the
 * move buttons, duplicate, remove), the selected field's attributes and condition, a live
 * preview with the patients' renderer, saving (a new schema version), status, JSON import and
 * export, and the embed panel.
 */
export function TemplateBuilder({ identifier }: { identifier: string }) {
  const { t } = useI18n();
  const b = t.formTemplates.builder;
  const { template, state, dispatch, dirty, problems, saving, saveDraft, importFile } = useTemplateBuilder(identifier);
  const { draft, saved, message, view } = state;

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

  return (
    <div className={styles.builder}>
      <BuilderTopbar
        identifier={identifier}
        dirty={dirty}
        saving={saving}
        canSave={dirty && problems.count === 0 && draft.title.trim() !== ""}
        onExport={() => downloadTemplateFile(draft, identifier)}
        onImport={(file) => void importFile(file)}
        onSave={saveDraft}
      />
      <LiveRegion className="cs-visually-hidden">{state.announcement}</LiveRegion>
      {message ? (
        <Notice tone={message.tone} role={message.tone === "danger" ? "alert" : "status"}>
          {message.text}
        </Notice>
      ) : null}
      {problems.count > 0 ? <Notice tone="warning">{b.invalid}</Notice> : null}

      <Segmented<BuilderView>
        label={b.views}
        name="builder-view"
        className={styles.viewSwitch}
        value={view}
        onChange={(next) => dispatch({ type: "viewChosen", view: next })}
        options={[
          { value: "fields", label: b.fieldsView },
          { value: "answerLists", label: b.answerListsView },
          { value: "translations", label: b.translationsView },
        ]}
      />

      <div className={styles.columns}>
        <div className={styles.editColumn}>
          <BuilderEditView state={state} draft={draft} problems={problems} dispatch={dispatch} />
          <EmbedPanel template={template.data!} />
        </div>
        <aside className={styles.previewColumn} aria-labelledby="preview-heading">
          <h2 id="preview-heading">{b.previewHeading}</h2>
          <PreviewPane
            title={draft.title}
            description={draft.description || null}
            schema={problems.count === 0 ? draft.schema : (saved?.schema ?? draft.schema)}
            defaultLanguage={draft.defaultLanguage}
            translations={draft.translations}
            formLanguage={view === "translations" ? state.translating : undefined}
          />
        </aside>
      </div>
    </div>
  );
}

/**
 * The edit column's view, wired to the builder's state: the template's translations, its answer
 * lists, or its details and fields.
 */
function BuilderEditView({
  state,
  draft,
  problems,
  dispatch,
}: {
  state: BuilderState;
  draft: Draft;
  problems: SchemaProblems;
  dispatch: Dispatch<BuilderAction>;
}) {
  const edit = (change: Partial<Draft>) => dispatch({ type: "edited", change });
  const setSchema = (schema: TemplateSchema) => edit({ schema });
  const announce = (text: string) => dispatch({ type: "announced", text });
  if (state.view === "translations")
    return (
      <TranslationsPanel
        title={draft.title}
        description={draft.description || null}
        schema={draft.schema}
        defaultLanguage={draft.defaultLanguage}
        translations={draft.translations}
        onDefaultLanguageChange={(defaultLanguage) => edit({ defaultLanguage })}
        onTranslationsChange={(translations) => edit({ translations })}
        language={state.translating}
        onLanguageChange={(language) => dispatch({ type: "translatingChosen", language })}
        announce={announce}
      />
    );
  if (state.view === "answerLists")
    return (
      <AnswerListsPanel schema={draft.schema} problems={problems.bySet} onChange={setSchema} announce={announce} />
    );
  return (
    <>
      <TemplateDetailsCard draft={draft} onChange={edit} />
      <FieldListSection
        schema={draft.schema}
        problems={problems.byField}
        openField={state.openField}
        dragging={state.dragging}
        newType={state.newType}
        keyEdited={state.keyEdited}
        onSchemaChange={setSchema}
        onAnnounce={announce}
        onFieldOpen={(fieldId) => dispatch({ type: "fieldOpened", fieldId })}
        onFieldAdd={(field) => dispatch({ type: "fieldAdded", field })}
        onNewTypeChange={(newType) => dispatch({ type: "newTypeChosen", newType })}
        onDrag={(index) => dispatch({ type: "dragged", index })}
        onKeyEdited={(fieldId) => dispatch({ type: "keyEdited", fieldId })}
      />
    </>
  );
}
