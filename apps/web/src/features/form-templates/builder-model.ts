import {
  templateSchema,
  type FormField,
  type PatientLanguage,
  type Template,
  type TemplateSchema,
  type TemplateTranslations,
} from "@clinsign/contracts";
import type { FieldType } from "./builder-field-types";
import { addField } from "./builder-fields";

// The form builder's model: what the builder holds while a template is edited (its reducer), over
// the pure operations on a template's schema. Those live in sibling modules, one concern each, and
// are re-exported here so the builder's parts import one model.
export * from "./builder-field-types";
export * from "./builder-fields";
export * from "./builder-references";
export * from "./builder-options";
export * from "./builder-file-types";
export * from "./builder-translations";

/** What the builder edits of a template: its texts, status, schema and languages. */
export interface Draft {
  title: string;
  description: string;
  status: Template["status"];
  schema: TemplateSchema;
  defaultLanguage: PatientLanguage;
  translations: TemplateTranslations;
}

export const draftOf = (template: Pick<Template, keyof Draft>): Draft => ({
  title: template.title,
  description: template.description ?? "",
  status: template.status,
  schema: template.schema,
  defaultLanguage: template.defaultLanguage,
  translations: template.translations,
});

/** What an imported file replaces of the draft. */
export type ImportedTemplate = Pick<Draft, "schema" | "defaultLanguage" | "translations">;

/** The `templates.update` input that saves a draft as the next schema version. */
export const updateInput = (identifier: string, draft: Draft, saved: Draft | null) => ({
  identifier,
  title: draft.title.trim(),
  description: draft.description.trim() || null,
  status: draft.status,
  schema: { ...draft.schema, version: (saved?.schema.version ?? 0) + 1 },
  defaultLanguage: draft.defaultLanguage,
  translations: draft.translations,
});

/** The schema's problems by field index and attribute, in the schema validation's own words. */
export type ProblemsByIndex = Map<number, Record<string, string>>;

export interface SchemaProblems {
  byField: ProblemsByIndex;
  bySet: ProblemsByIndex;
  count: number;
}

/** The schema's problems by field and by answer list, then attribute (the template schema's own messages). */
export function schemaProblems(schema: TemplateSchema | undefined): SchemaProblems {
  const byField: ProblemsByIndex = new Map();
  const bySet: ProblemsByIndex = new Map();
  const parsed = schema ? templateSchema.safeParse(schema) : null;
  if (!parsed || parsed.success) return { byField, bySet, count: 0 };
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

// ---- the builder's state ------------------------------------------------------------------------

export type BuilderView = "fields" | "answerLists" | "translations";
export interface BuilderMessage {
  tone: "success" | "danger" | "info";
  text: string;
}

export interface BuilderState {
  /** The template as edited; null until it has loaded. */
  draft: Draft | null;
  /** The template as last loaded or saved: the draft is dirty while it differs. */
  saved: Draft | null;
  /** The field whose editor is open. */
  openField: string | null;
  /** The type "Add field" adds. */
  newType: FieldType;
  /** The last change for screen readers (a field moved, a language added …). */
  announcement: string;
  message: BuilderMessage | null;
  /** The index of the field being dragged. */
  dragging: number | null;
  view: BuilderView;
  /** The language the translations view edits; the preview shows the form in it. */
  translating: PatientLanguage | null;
  /** Field ids whose key was typed by hand: their key no longer follows the label. */
  keyEdited: ReadonlySet<string>;
}

export const initialBuilderState: BuilderState = {
  draft: null,
  saved: null,
  openField: null,
  newType: "text",
  announcement: "",
  message: null,
  dragging: null,
  view: "fields",
  translating: null,
  keyEdited: new Set(),
};

export type BuilderAction =
  | { type: "loaded"; draft: Draft }
  | { type: "saved"; draft: Draft; message: BuilderMessage }
  | { type: "edited"; change: Partial<Draft> }
  | { type: "imported"; imported: ImportedTemplate; message: BuilderMessage }
  | { type: "fieldAdded"; field: FormField }
  | { type: "fieldOpened"; fieldId: string | null }
  | { type: "keyEdited"; fieldId: string }
  | { type: "newTypeChosen"; newType: FieldType }
  | { type: "dragged"; index: number | null }
  | { type: "viewChosen"; view: BuilderView }
  | { type: "translatingChosen"; language: PatientLanguage | null }
  | { type: "announced"; text: string }
  | { type: "messaged"; message: BuilderMessage };

/** Loaded or imported fields keep their keys: those are named by conditions, exports and answers. */
const withKeysKept = (keyEdited: ReadonlySet<string>, fields: readonly FormField[]) =>
  new Set([...keyEdited, ...fields.map((field) => field.id)]);

export function builderReducer(state: BuilderState, action: BuilderAction): BuilderState {
  const { draft } = state;
  switch (action.type) {
    case "loaded":
      return {
        ...state,
        draft: action.draft,
        saved: action.draft,
        keyEdited: withKeysKept(state.keyEdited, action.draft.schema.fields),
      };
    case "saved":
      return { ...state, draft: action.draft, saved: action.draft, message: action.message };
    case "edited":
      return draft ? { ...state, draft: { ...draft, ...action.change } } : state;
    case "imported": {
      if (!draft) return state;
      // The template's version stays: saving makes the next one.
      const schema = { ...action.imported.schema, version: draft.schema.version };
      return {
        ...state,
        draft: { ...draft, ...action.imported, schema },
        keyEdited: withKeysKept(state.keyEdited, schema.fields),
        message: action.message,
      };
    }
    case "fieldAdded":
      if (!draft) return state;
      return {
        ...state,
        draft: { ...draft, schema: addField(draft.schema, action.field) },
        openField: action.field.id,
      };
    case "fieldOpened":
      return { ...state, openField: action.fieldId };
    case "keyEdited":
      return state.keyEdited.has(action.fieldId)
        ? state
        : { ...state, keyEdited: new Set([...state.keyEdited, action.fieldId]) };
    case "newTypeChosen":
      return { ...state, newType: action.newType };
    case "dragged":
      return { ...state, dragging: action.index };
    case "viewChosen":
      return { ...state, view: action.view };
    case "translatingChosen":
      return { ...state, translating: action.language };
    case "announced":
      return { ...state, announcement: action.text };
    case "messaged":
      return { ...state, message: action.message };
  }
}

/** Whether the draft differs from what was loaded or last saved. */
export const isDirty = ({ draft, saved }: BuilderState) =>
  draft !== null && saved !== null && JSON.stringify(draft) !== JSON.stringify(saved);
