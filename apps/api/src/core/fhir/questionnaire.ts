import {
  templateSchema,
  translationKey,
  type FieldCondition,
  type FieldTranslation,
  type TemplateTranslation,
  type FormField,
  type Template,
  type TemplateSchema,
  type VisibleWhen,
} from "@clinsign/contracts";
import {
  CLINSIGN,
  HL7,
  systems,
  translationElement,
  type Coding,
  type Extension,
  type FhirJson,
  type OutcomeIssue,
} from "./resources";

/**
 * Form template ⇄ FHIR R4 Questionnaire. Export maps every field type and attribute to an item
 * (HL7 core and SDC extensions where FHIR has no element; ClinSign URN extensions for the rest),
 * and names in `issues` what it could express only approximately. Import reads what it
 * understands, names every element it does not keep (warning) and refuses what would change the
 * form's meaning (error).
 */

type Option = string | { value: string; label: string; weight?: number };
type Choice = Extract<FormField, { options: Option[] }>;
type ScoreField = Extract<FormField, { type: "score" }>;

interface QuestionnaireItem extends FhirJson {
  linkId: string;
  text?: string;
  type: string;
  required?: boolean;
  repeats?: boolean;
  maxLength?: number;
  readOnly?: boolean;
  extension?: Extension[];
  answerOption?: AnswerOption[];
  enableWhen?: EnableWhen[];
  enableBehavior?: "all" | "any";
  item?: QuestionnaireItem[];
}

interface AnswerOption extends FhirJson {
  valueCoding?: Coding;
  valueString?: string;
  valueInteger?: number;
  valueDate?: string;
  extension?: Extension[];
}

interface EnableWhen extends FhirJson {
  question: string;
  operator: "exists" | "=" | "!=" | ">" | "<" | ">=" | "<=";
}

/** Our field type → FHIR item type (http://hl7.org/fhir/item-type). */
export const ITEM_TYPE: Record<FormField["type"], string> = {
  text: "string",
  textarea: "text",
  email: "string",
  phone: "string",
  number: "decimal",
  date: "date",
  select: "choice",
  radio: "choice",
  multiselect: "choice",
  checkbox: "boolean",
  file: "attachment",
  signature: "attachment",
  heading: "display",
  paragraph: "display",
  score: "decimal",
};

/** Item control (SDC) that says how a choice is shown. */
const CHOICE_CONTROL: Record<Choice["type"], string> = {
  select: "drop-down",
  radio: "radio-button",
  multiselect: "check-box",
};

const itemControl = (code: string): Extension => ({
  url: HL7.itemControl,
  valueCodeableConcept: { coding: [{ system: HL7.itemControlSystem, code }] },
});

export const questionnaireUrl = (apiUrl: string, identifier: string) => `${apiUrl}/fhir/r4/Questionnaire/${identifier}`;

/** The linkId of each field: its key; a display element without a key, its id (made unique). */
export function linkIds(fields: FormField[]): Map<FormField, string> {
  const taken = new Set(fields.flatMap((f) => (f.key === undefined ? [] : [f.key])));
  const out = new Map<FormField, string>();
  for (const field of fields) {
    if (field.key !== undefined) {
      out.set(field, field.key);
      continue;
    }
    let candidate = field.id;
    for (let n = 2; taken.has(candidate); n++) candidate = `${field.id}-${n}`;
    taken.add(candidate);
    out.set(field, candidate);
  }
  return out;
}

const withTranslations = (element: string, translations: FhirJson | undefined) =>
  translations ? { [element]: translations } : {};

const optionValue = (option: Option) => (typeof option === "string" ? option : option.value);

/** One option as an answerOption; its score weight (if any) as `itemWeight`, which FHIRPath's `weight()` reads. */
export function answerOptionOf(option: Option): AnswerOption {
  const coding: Coding = { code: optionValue(option) };
  if (typeof option === "string") return { valueCoding: coding };
  if (option.label !== option.value) coding.display = option.label;
  return {
    valueCoding: coding,
    ...(option.weight !== undefined && { extension: [{ url: HL7.itemWeight, valueDecimal: option.weight }] }),
  };
}

/**
 * A score field's SDC calculatedExpression: the sum of the weights of the answers of its source
 * items, as FHIRPath evaluates it on the QuestionnaireResponse (with the Questionnaire as
 * `%questionnaire`). Bands have no FHIR element; they travel in a ClinSign extension.
 */
function scoreExtensions(field: ScoreField): Extension[] {
  const sources = field.sources.map((key) => `linkId = '${key}'`).join(" or ");
  return [
    {
      url: HL7.calculatedExpression,
      valueExpression: {
        language: "text/fhirpath",
        expression: `%resource.repeat(item).where(${sources}).answer.value.weight().sum()`,
      },
    },
    { url: CLINSIGN.scoreSources, valueString: JSON.stringify(field.sources) },
    ...(field.bands ? [{ url: CLINSIGN.scoreBands, valueString: JSON.stringify(field.bands) }] : []),
  ];
}

/** A condition's value as an enableWhen answer, typed by the field it refers to. */
function enableAnswer(target: FormField | undefined, value: string | number | boolean): FhirJson {
  if (typeof value === "boolean") return { answerBoolean: value };
  if (target && "options" in target) return { answerCoding: { code: String(value) } };
  if (typeof value === "number") return { answerDecimal: value };
  if (target?.type === "date") return { answerDate: value };
  return { answerString: value };
}

/** One condition as enableWhen entries (`in` is one `=` per value, to be read with behavior any). */
function enableWhenOf(condition: FieldCondition, byKey: Map<string, FormField>): EnableWhen[] {
  const target = byKey.get(condition.field);
  const question = condition.field;
  switch (condition.operator) {
    case "filled":
      return [{ question, operator: "exists", answerBoolean: true }];
    case "empty":
      return [{ question, operator: "exists", answerBoolean: false }];
    case "equals":
      return [{ question, operator: "=", ...enableAnswer(target, condition.value as string | number | boolean) }];
    case "notEquals":
      return [{ question, operator: "!=", ...enableAnswer(target, condition.value as string | number | boolean) }];
    case "in":
      return (condition.value as (string | number)[]).map((v) => ({
        question,
        operator: "=" as const,
        ...enableAnswer(target, v),
      }));
    case "atLeast":
      return [{ question, operator: ">=", answerDecimal: condition.value as number }];
    case "atMost":
      return [{ question, operator: "<=", answerDecimal: condition.value as number }];
    case "between": {
      const [min, max] = condition.value as [number, number];
      return [
        { question, operator: ">=", answerDecimal: min },
        { question, operator: "<=", answerDecimal: max },
      ];
    }
  }
}

/** Conditions that become several enableWhen entries meant together (`in` of several, `between`). */
const isCompound = (c: FieldCondition, joinedBy: "all" | "any") =>
  joinedBy === "all" ? c.operator === "in" && (c.value as unknown[]).length > 1 : c.operator === "between";

/**
 * `visibleWhen` as enableWhen + enableBehavior, or null when FHIR cannot say it: an `in` with
 * several values inside `all`, a `between` inside `any` (enableWhen has no nesting).
 */
export function conditionToEnableWhen(
  when: VisibleWhen,
  byKey: Map<string, FormField>,
): { enableWhen: EnableWhen[]; enableBehavior?: "all" | "any" } | null {
  if ("all" in when) {
    if (when.all.some((c) => isCompound(c, "all"))) return null;
    const enableWhen = when.all.flatMap((c) => enableWhenOf(c, byKey));
    return enableWhen.length > 1 ? { enableWhen, enableBehavior: "all" } : { enableWhen };
  }
  if (!("any" in when) && when.operator === "between") {
    return { enableWhen: enableWhenOf(when, byKey), enableBehavior: "all" };
  }
  const list = "any" in when ? when.any : [when];
  if (list.length > 1 && list.some((c) => isCompound(c, "any"))) return null;
  const enableWhen = list.flatMap((c) => enableWhenOf(c, byKey));
  return enableWhen.length > 1 ? { enableWhen, enableBehavior: "any" } : { enableWhen };
}

function fieldExtensions(field: FormField): Extension[] {
  const ext: Extension[] = [
    { url: CLINSIGN.fieldType, valueCode: field.type },
    { url: CLINSIGN.fieldId, valueString: field.id },
  ];
  if ("options" in field) ext.push(itemControl(CHOICE_CONTROL[field.type]));
  if (field.placeholder !== undefined) ext.push({ url: HL7.entryFormat, valueString: field.placeholder });
  if ("minLength" in field && field.minLength !== undefined)
    ext.push({ url: HL7.minLength, valueInteger: field.minLength });
  if ("pattern" in field && field.pattern !== undefined) ext.push({ url: HL7.regex, valueString: field.pattern });
  if (field.type === "number") {
    if (field.min !== undefined) ext.push({ url: HL7.minValue, valueDecimal: field.min });
    if (field.max !== undefined) ext.push({ url: HL7.maxValue, valueDecimal: field.max });
  }
  if (field.type === "date") {
    if (field.min !== undefined) ext.push({ url: HL7.minValue, valueDate: field.min });
    if (field.max !== undefined) ext.push({ url: HL7.maxValue, valueDate: field.max });
  }
  if (field.type === "file") {
    if (field.maxSizeMb !== undefined)
      ext.push({ url: HL7.maxSize, valueDecimal: Math.round(field.maxSizeMb * 1024 * 1024) });
    if (field.accept !== undefined) {
      ext.push({ url: CLINSIGN.accept, valueString: field.accept });
      for (const type of field.accept.split(",").map((t) => t.trim()))
        if (/^[a-z]+\/[A-Za-z0-9.+*-]+$/.test(type)) ext.push({ url: HL7.mimeType, valueCode: type });
    }
  }
  if (field.type === "signature") ext.push({ url: HL7.mimeType, valueCode: "image/png" });
  if (field.type === "score") ext.push(...scoreExtensions(field));
  return ext;
}

/**
 * The template's texts in its other languages, as `_element` translation extensions: one
 * function per text, asked of each translation.
 */
function translationsOf(template: Template) {
  const languages = Object.entries(template.translations ?? {}) as [string, TemplateTranslation | undefined][];
  const of = (pick: (translation: TemplateTranslation) => string | undefined) =>
    translationElement(languages.map(([language, translation]) => [language, translation && pick(translation)]));
  const ofField = (field: FormField, pick: (entry: FieldTranslation) => string | undefined) =>
    of((translation) => {
      const entry = translation.fields?.[translationKey(field)];
      return entry && pick(entry);
    });
  return { of, ofField };
}

/** A template as a Questionnaire, and what it could not express exactly (never left out silently). */
export function templateToQuestionnaire(
  template: Template,
  apiUrl: string,
): { questionnaire: FhirJson; issues: OutcomeIssue[] } {
  const issues: OutcomeIssue[] = [];
  const { fields } = template.schema;
  const ids = linkIds(fields);
  const byKey = new Map(fields.flatMap((f) => (f.key === undefined ? [] : [[f.key, f] as const])));
  const translated = translationsOf(template);
  const items = fields.map((field, index): QuestionnaireItem => {
    const display = field.type === "heading" || field.type === "paragraph";
    const _text = translated.ofField(field, (entry) => entry.label);
    const item: QuestionnaireItem = {
      linkId: ids.get(field)!,
      text: field.label,
      ...(_text && { _text }),
      type: ITEM_TYPE[field.type],
      extension: fieldExtensions(field),
    };
    if (field.type === "multiselect") item.repeats = true;
    if (field.type === "score") item.readOnly = true;
    if (field.required !== undefined) {
      if (display)
        issues.push({
          severity: "warning",
          code: "not-supported",
          diagnostics: `field "${item.linkId}": a display item cannot be required in FHIR; "required" is left out`,
          expression: [`Questionnaire.item[${index}]`],
        });
      else item.required = field.required;
    }
    if ("maxLength" in field && field.maxLength !== undefined) item.maxLength = field.maxLength;
    if ("options" in field)
      item.answerOption = field.options.map((option) => {
        const answerOption = answerOptionOf(option);
        const _display = translated.ofField(field, (entry) => entry.options?.[optionValue(option)]);
        if (_display && answerOption.valueCoding) {
          // A translation needs the text it translates: the option's label, also where it equals the value.
          answerOption.valueCoding.display ??= typeof option === "string" ? option : option.label;
          answerOption.valueCoding._display = _display;
        }
        return answerOption;
      });
    if (field.helpText !== undefined) {
      // SDC: help is a child display item with the item control "help"; display items take no children.
      if (display) item.extension!.push({ url: CLINSIGN.helpText, valueString: field.helpText });
      else
        item.item = [
          {
            linkId: `${item.linkId}.help`,
            text: field.helpText,
            ...withTranslations(
              "_text",
              translated.ofField(field, (entry) => entry.help),
            ),
            type: "display",
            extension: [itemControl("help")],
          },
        ];
    }
    if (field.visibleWhen) {
      const mapped = conditionToEnableWhen(field.visibleWhen, byKey);
      if (mapped) Object.assign(item, mapped);
      else {
        item.extension!.push({ url: CLINSIGN.visibleWhen, valueString: JSON.stringify(field.visibleWhen) });
        issues.push({
          severity: "warning",
          code: "not-supported",
          diagnostics: `field "${item.linkId}": its condition (a list of several values inside "all") has no enableWhen form; it is carried in the extension ${CLINSIGN.visibleWhen} only`,
          expression: [`Questionnaire.item[${index}]`],
        });
      }
    }
    return item;
  });
  const questionnaire: FhirJson = {
    resourceType: "Questionnaire",
    id: template.identifier,
    meta: { lastUpdated: template.updatedAt },
    url: questionnaireUrl(apiUrl, template.identifier),
    identifier: [{ system: systems(apiUrl).template, value: template.identifier }],
    version: String(template.schema.version),
    ...(template.defaultLanguage && { language: template.defaultLanguage }),
    title: template.title,
    ...withTranslations(
      "_title",
      translated.of((translation) => translation.title),
    ),
    status: template.status === "archived" ? "retired" : template.status,
    date: template.updatedAt,
    ...(template.description && { description: template.description }),
    ...(template.description &&
      withTranslations(
        "_description",
        translated.of((t) => t.description),
      )),
    ...(items.length && { item: items }),
  };
  const extensions: Extension[] = [];
  if (issues.length) {
    questionnaire.contained = [{ resourceType: "OperationOutcome", id: "export-issues", issue: issues }];
    extensions.push({ url: CLINSIGN.exportIssues, valueReference: { reference: "#export-issues" } });
  }
  const settings = formSettingsOf(template.schema);
  if (settings) extensions.push({ url: CLINSIGN.formSettings, valueString: JSON.stringify(settings) });
  if (extensions.length) questionnaire.extension = extensions;
  return { questionnaire, issues };
}

/** The schema's settings beside its fields, or null when it has none (most forms). */
function formSettingsOf(schema: TemplateSchema): Pick<TemplateSchema, "scoresShownToPatient" | "flagged"> | null {
  const { scoresShownToPatient, flagged } = schema;
  if (scoresShownToPatient === undefined && flagged === undefined) return null;
  return { ...(scoresShownToPatient !== undefined && { scoresShownToPatient }), ...(flagged && { flagged }) };
}

// ---------------------------------------------------------------------------------- import

/** What a Questionnaire becomes: the input of createTemplate. */
export interface ImportedTemplate {
  title: string;
  description: string | null;
  status: Template["status"];
  schema: TemplateSchema;
}

const QUESTIONNAIRE_KEYS = new Set([
  "resourceType",
  "id",
  "meta",
  "text",
  "url",
  "identifier",
  "version",
  "name",
  "title",
  "status",
  "date",
  "publisher",
  "description",
  "item",
  "extension",
  "contained",
  "language",
  "experimental",
  "subjectType",
]);
/** Elements read by the item mapping; anything else on an item is named as not kept. */
const ITEM_KEYS = new Set([
  "linkId",
  "text",
  "type",
  "required",
  "repeats",
  "maxLength",
  "extension",
  "answerOption",
  "enableWhen",
  "enableBehavior",
  "item",
  "prefix",
  "readOnly",
]);
const FIELD_KEY = /^[A-Za-z][A-Za-z0-9_.-]{0,99}$/;

const extensionOf = (item: { extension?: unknown }, url: string) =>
  (Array.isArray(item.extension) ? (item.extension as Extension[]) : []).find((e) => e?.url === url);
const controlOf = (item: QuestionnaireItem) =>
  extensionOf(item, HL7.itemControl)?.valueCodeableConcept?.coding?.find((c) => c.system === HL7.itemControlSystem)
    ?.code;

/** Extensions an item may carry that the import reads (others are named as not kept). */
const KNOWN_ITEM_EXTENSIONS = new Set<string>([
  HL7.itemControl,
  HL7.minLength,
  HL7.regex,
  HL7.entryFormat,
  HL7.minValue,
  HL7.maxValue,
  HL7.maxSize,
  HL7.mimeType,
  HL7.calculatedExpression,
  ...Object.values(CLINSIGN),
]);

const FIELD_TYPES = new Set(Object.keys(ITEM_TYPE));

class Importer {
  readonly issues: OutcomeIssue[] = [];
  readonly fields: FormField[] = [];
  /** Where each field came from, for issues the template contract finds. */
  readonly paths = new Map<FormField, string>();
  /** linkId → the key of the field it became, for enableWhen. */
  private readonly keys = new Map<string, string>();
  private readonly usedKeys = new Set<string>();
  private readonly usedIds = new Set<string>();
  private pendingConditions: { field: FormField; item: QuestionnaireItem; path: string; inherited: EnableWhenSet[] }[] =
    [];

  warn(path: string, diagnostics: string, code: OutcomeIssue["code"] = "not-supported") {
    this.issues.push({ severity: "warning", code, diagnostics, expression: [path] });
  }
  refuse(path: string, diagnostics: string, code: OutcomeIssue["code"] = "not-supported") {
    this.issues.push({ severity: "error", code, diagnostics, expression: [path] });
  }

  items(items: unknown, path: string, inherited: EnableWhenSet[]) {
    if (items === undefined) return;
    if (!Array.isArray(items)) return this.refuse(path, "item must be a list", "structure");
    items.forEach((raw, i) => this.item(raw as QuestionnaireItem, `${path}[${i}]`, inherited));
  }

  private item(item: QuestionnaireItem, path: string, inherited: EnableWhenSet[]) {
    if (!item || typeof item !== "object" || typeof item.linkId !== "string" || typeof item.type !== "string")
      return this.refuse(path, "an item needs a linkId and a type", "structure");
    const name = `item "${item.linkId}"`;
    // A calculated item imports only as one of our score fields (its sources and bands in our
    // extensions); an arbitrary FHIRPath expression has no field to become.
    if (extensionOf(item, HL7.calculatedExpression) && !extensionOf(item, CLINSIGN.scoreSources)) {
      this.warn(
        path,
        `${name} is calculated (SDC calculatedExpression); only scores exported by ClinSign are kept, the item is left out`,
      );
      return;
    }
    for (const key of Object.keys(item))
      if (!ITEM_KEYS.has(key)) this.warn(`${path}.${key}`, `${name}: ${key} is not kept`);
    for (const ext of (item.extension as Extension[] | undefined) ?? [])
      if (!KNOWN_ITEM_EXTENSIONS.has(ext?.url))
        this.warn(`${path}.extension`, `${name}: extension ${ext?.url} is not kept`);
    const own = item.enableWhen ? [{ enableWhen: item.enableWhen, behavior: item.enableBehavior, path }] : [];
    if (item.type === "group") {
      if (item.repeats) return this.refuse(path, `${name}: repeating groups are not supported`);
      // A group becomes a heading followed by its items; its condition applies to each of them.
      if (item.text)
        this.add({ id: "", key: undefined, type: "heading", label: item.text } as FormField, item, path, [
          ...inherited,
          ...own,
        ]);
      if (!Array.isArray(item.item) || item.item.length === 0)
        return this.refuse(path, `${name}: a group needs items`, "structure");
      this.items(item.item, `${path}.item`, [...inherited, ...own]);
      return;
    }
    const field = this.field(item, path, name);
    if (!field) return;
    this.add(field, item, path, [...inherited, ...own]);
    if (Array.isArray(item.item)) {
      const [help, ...rest] = item.item as QuestionnaireItem[];
      if (help && help.type === "display" && controlOf(help) === "help" && !help.item) {
        if (help.text) field.helpText = help.text.slice(0, 1000);
      } else if (help) rest.unshift(help);
      if (rest.length) this.refuse(`${path}.item`, `${name}: items nested under a question are not supported`);
    }
  }

  private add(field: FormField, item: QuestionnaireItem, path: string, inherited: EnableWhenSet[]) {
    const wantedId = extensionOf(item, CLINSIGN.fieldId)?.valueString;
    let id = wantedId && !this.usedIds.has(wantedId) ? wantedId : `f${this.fields.length + 1}`;
    while (this.usedIds.has(id)) id = `${id}-${this.fields.length + 1}`;
    this.usedIds.add(id);
    field.id = id;
    if (field.type !== "heading" && field.type !== "paragraph") {
      let key = item.linkId;
      if (!FIELD_KEY.test(key)) {
        key = `q_${item.linkId.replace(/[^A-Za-z0-9_.-]/g, "_")}`.slice(0, 100);
        this.warn(path, `item "${item.linkId}": the field key is "${key}" (linkIds must be usable as keys)`, "value");
      }
      if (this.usedKeys.has(key)) return this.refuse(path, `linkId "${item.linkId}" is used twice`, "structure");
      this.usedKeys.add(key);
      this.keys.set(item.linkId, key);
      field.key = key;
    } else {
      // A display element keeps a key only where our export wrote one (its linkId is not its id).
      const keyed = wantedId !== undefined && item.linkId !== wantedId && item.type !== "group";
      if (keyed && FIELD_KEY.test(item.linkId) && !this.usedKeys.has(item.linkId)) {
        field.key = item.linkId;
        this.usedKeys.add(item.linkId);
      } else delete (field as { key?: string }).key;
    }
    this.fields.push(field);
    this.paths.set(field, path);
    if (inherited.length || extensionOf(item, CLINSIGN.visibleWhen))
      this.pendingConditions.push({ field, item, path, inherited });
  }

  private field(item: QuestionnaireItem, path: string, name: string): FormField | undefined {
    const declared = extensionOf(item, CLINSIGN.fieldType)?.valueCode;
    const ours = declared && FIELD_TYPES.has(declared) && ITEM_TYPE[declared as FormField["type"]] === item.type;
    let label = [item.prefix, item.text].filter((s) => typeof s === "string" && s.trim()).join(" ");
    if (!label) {
      label = item.linkId;
      if (item.type !== "display") this.warn(path, `${name} has no text; its linkId is the label`, "value");
    }
    if (label.length > 500) {
      this.warn(path, `${name}: the text is cut to 500 characters`, "value");
      label = label.slice(0, 500);
    }
    const base: Record<string, unknown> = { id: "", label };
    if (item.required !== undefined) base.required = item.required === true;
    const entryFormat = extensionOf(item, HL7.entryFormat)?.valueString;
    if (entryFormat !== undefined) base.placeholder = entryFormat.slice(0, 200);
    const lengths = () => {
      if (item.maxLength !== undefined) base.maxLength = item.maxLength;
      const min = extensionOf(item, HL7.minLength)?.valueInteger;
      if (min !== undefined) base.minLength = min;
      const regex = extensionOf(item, HL7.regex)?.valueString;
      if (regex !== undefined) base.pattern = regex;
    };
    if (item.readOnly && !(ours && declared === "score"))
      this.warn(path, `${name}: readOnly is not kept (the patient can answer it)`);
    if (item.repeats && item.type !== "choice" && item.type !== "open-choice")
      return void this.refuse(path, `${name}: repeating answers are supported for choice items only`);
    switch (item.type) {
      case "string":
      case "text":
      case "url": {
        if (item.type === "url") this.warn(path, `${name}: a url item becomes a text field`);
        lengths();
        const type = ours ? declared : item.type === "text" ? "textarea" : "text";
        return { ...base, type } as FormField;
      }
      case "integer":
      case "decimal": {
        if (ours && declared === "score") return this.score(base, item, path, name);
        if (item.type === "integer")
          this.warn(path, `${name}: integer becomes a number field (whole numbers are not enforced)`);
        const min = extensionOf(item, HL7.minValue);
        const max = extensionOf(item, HL7.maxValue);
        if (min) base.min = min.valueDecimal ?? min.valueInteger;
        if (max) base.max = max.valueDecimal ?? max.valueInteger;
        if (item.maxLength !== undefined) this.warn(path, `${name}: maxLength on a number is not kept`);
        return { ...base, type: "number" } as FormField;
      }
      case "date": {
        const min = extensionOf(item, HL7.minValue)?.valueDate;
        const max = extensionOf(item, HL7.maxValue)?.valueDate;
        if (min) base.min = min;
        if (max) base.max = max;
        return { ...base, type: "date" } as FormField;
      }
      case "boolean":
        return { ...base, type: "checkbox" } as FormField;
      case "choice":
      case "open-choice": {
        if (item.type === "open-choice")
          this.warn(path, `${name}: open-choice becomes a choice; answers other than the options are not accepted`);
        if (!Array.isArray(item.answerOption) || item.answerOption.length === 0)
          return void this.refuse(
            path,
            `${name}: choices need answerOption (answerValueSet and other option sources are not supported)`,
          );
        const options = this.options(item, path, name);
        if (!options) return;
        const control = controlOf(item);
        // Several answers: multiselect; one: radio buttons where the form asks for them, else a drop-down.
        const type = item.repeats
          ? "multiselect"
          : control === "radio-button" || control === "check-box"
            ? "radio"
            : "select";
        return { ...base, type, options } as FormField;
      }
      case "attachment": {
        if (ours && declared === "signature") return { ...base, type: "signature" } as FormField;
        const accept =
          extensionOf(item, CLINSIGN.accept)?.valueString ??
          ((item.extension as Extension[] | undefined) ?? [])
            .filter((e) => e.url === HL7.mimeType && e.valueCode)
            .map((e) => e.valueCode)
            .join(",");
        if (accept) base.accept = accept;
        const maxSize = extensionOf(item, HL7.maxSize)?.valueDecimal;
        if (maxSize !== undefined) base.maxSizeMb = Math.min(25, Math.round((maxSize / 1024 / 1024) * 1000) / 1000);
        return { ...base, type: "file" } as FormField;
      }
      case "display": {
        const help = extensionOf(item, CLINSIGN.helpText)?.valueString;
        if (help !== undefined) base.helpText = help;
        if (controlOf(item) === "help")
          this.warn(path, `${name}: a help item outside a question becomes a paragraph`, "informational");
        return { ...base, type: ours && declared === "heading" ? "heading" : "paragraph" } as FormField;
      }
      default:
        return void this.refuse(path, `${name}: item type ${item.type} is not supported`);
    }
  }

  /** One of our score fields: sources and bands from our extensions (the contract checks them). */
  private score(base: Record<string, unknown>, item: QuestionnaireItem, path: string, name: string) {
    const parsed = (url: string) => {
      const raw = extensionOf(item, url)?.valueString;
      try {
        return raw === undefined ? undefined : (JSON.parse(raw) as unknown);
      } catch {
        this.refuse(path, `${name}: the ${url} extension is not JSON`, "invalid");
        return undefined;
      }
    };
    const sources = parsed(CLINSIGN.scoreSources);
    const bands = parsed(CLINSIGN.scoreBands);
    if (sources === undefined) return undefined;
    return { ...base, type: "score", sources, ...(bands !== undefined && { bands }) } as FormField;
  }

  private options(item: QuestionnaireItem, path: string, name: string): Option[] | undefined {
    const options: Option[] = [];
    for (const [i, option] of item.answerOption!.entries()) {
      const at = `${path}.answerOption[${i}]`;
      // itemWeight (SDC, R5) or ordinalValue (R4 core): the option's score weight.
      const weightExtension = option.extension?.find((e) => e.url === HL7.itemWeight || e.url === HL7.ordinalValue);
      const weight = weightExtension?.valueDecimal ?? weightExtension?.valueInteger;
      let value: string | undefined;
      let label: string | undefined;
      if (option.valueCoding) {
        value = option.valueCoding.code;
        label = option.valueCoding.display;
        if (option.valueCoding.system)
          this.warn(
            at,
            `${name}: the code system ${option.valueCoding.system} of option "${value}" is not kept`,
            "informational",
          );
      } else if (option.valueString !== undefined) value = option.valueString;
      else if (option.valueInteger !== undefined) value = String(option.valueInteger);
      else if (option.valueDate !== undefined) value = option.valueDate;
      if (value === undefined) return void this.refuse(at, `${name}: an answerOption needs a code or a value`);
      if (weight !== undefined) options.push({ value, label: label ?? value, weight });
      else options.push(label && label !== value ? { value, label } : value);
    }
    return options;
  }

  /** Conditions, once every field is known: they name fields by key, and only earlier ones. */
  conditions() {
    for (const { field, item, path, inherited } of this.pendingConditions) {
      const own = extensionOf(item, CLINSIGN.visibleWhen)?.valueString;
      if (own) {
        try {
          field.visibleWhen = JSON.parse(own) as VisibleWhen;
          continue;
        } catch {
          this.refuse(path, `item "${item.linkId}": the ${CLINSIGN.visibleWhen} extension is not JSON`, "invalid");
          continue;
        }
      }
      const sets = inherited.map((set) => this.conditionOf(set, item.linkId)).filter((s) => s !== undefined);
      if (sets.length !== inherited.length) continue;
      if (sets.length === 1) field.visibleWhen = sets[0];
      else {
        // A group's condition and the item's own: both must hold, which `all` can say when each is one list of all.
        const all: FieldCondition[] = [];
        for (const set of sets) {
          if ("any" in set) {
            this.refuse(
              path,
              `item "${item.linkId}": conditions of nested groups combined with enableBehavior any cannot be expressed`,
            );
            break;
          }
          all.push(...("all" in set ? set.all : [set]));
        }
        if (all.length) field.visibleWhen = all.length === 1 ? all[0]! : { all };
      }
    }
  }

  private conditionOf(set: EnableWhenSet, linkId: string): VisibleWhen | undefined {
    if (!Array.isArray(set.enableWhen) || set.enableWhen.length === 0) return undefined;
    const conditions: FieldCondition[] = [];
    for (const [i, when] of set.enableWhen.entries()) {
      const at = `${set.path}.enableWhen[${i}]`;
      const key = this.keys.get(when.question);
      if (key === undefined) {
        this.refuse(at, `item "${linkId}": enableWhen refers to "${when.question}", which is not an imported question`);
        return undefined;
      }
      const answer = enableWhenAnswer(when);
      if (answer === undefined) {
        this.refuse(
          at,
          `item "${linkId}": the enableWhen answer type is not supported (use coding, string, boolean, decimal, integer or date)`,
        );
        return undefined;
      }
      if (when.operator === "exists") conditions.push({ field: key, operator: answer === false ? "empty" : "filled" });
      else if (when.operator === "=") conditions.push({ field: key, operator: "equals", value: answer });
      else if (when.operator === "!=") conditions.push({ field: key, operator: "notEquals", value: answer });
      else if ((when.operator === ">=" || when.operator === "<=") && typeof answer === "number")
        conditions.push({ field: key, operator: when.operator === ">=" ? "atLeast" : "atMost", value: answer });
      else {
        this.refuse(
          at,
          `item "${linkId}": enableWhen operator "${when.operator}" is not supported (=, !=, exists are; >= and <= with a number)`,
        );
        return undefined;
      }
    }
    const behavior = set.behavior ?? "all";
    if (behavior === "any") {
      // Several `=` on one question under any are one `in`.
      const merged: FieldCondition[] = [];
      for (const c of conditions) {
        const previous = merged.find((m) => m.field === c.field && (m.operator === "in" || m.operator === "equals"));
        if (c.operator === "equals" && previous && typeof c.value !== "boolean") {
          const values =
            previous.operator === "in" ? (previous.value as (string | number)[]) : [previous.value as string];
          previous.operator = "in";
          previous.value = [...values, c.value as string | number];
        } else merged.push({ ...c });
      }
      return merged.length === 1 ? merged[0]! : { any: merged };
    }
    return conditions.length === 1 ? conditions[0]! : { all: conditions };
  }
}

interface EnableWhenSet {
  enableWhen: EnableWhen[];
  behavior?: "all" | "any";
  path: string;
}

function enableWhenAnswer(when: FhirJson): string | number | boolean | undefined {
  if (when.answerCoding && typeof when.answerCoding === "object") return (when.answerCoding as Coding).code;
  for (const key of ["answerString", "answerBoolean", "answerDecimal", "answerInteger", "answerDate"])
    if (when[key] !== undefined) return when[key] as string | number | boolean;
  return undefined;
}

/** The form settings extension's JSON: only the settings a template has; anything else is refused. */
function formSettingsFrom(ext: Extension, importer: Importer): Record<string, unknown> {
  try {
    const value: unknown = JSON.parse(String(ext.valueString));
    if (typeof value === "object" && value !== null && !Array.isArray(value)) {
      const { scoresShownToPatient, flagged, ...rest } = value as Record<string, unknown>;
      if (Object.keys(rest).length === 0)
        return {
          ...(scoresShownToPatient !== undefined && { scoresShownToPatient }),
          ...(flagged !== undefined && { flagged }),
        };
    }
  } catch {
    // Refused below, as any other value that is not the settings object.
  }
  importer.refuse(
    "Questionnaire.extension",
    `the ${CLINSIGN.formSettings} extension is not the form's settings`,
    "invalid",
  );
  return {};
}

/**
 * A Questionnaire as a new template's input, with every issue: errors mean it is refused,
 * warnings name what is not kept. The schema is checked by the template contract, so a
 * condition on a later item or an invalid pattern is refused here, naming the item.
 */
export function questionnaireToTemplate(resource: FhirJson): { template?: ImportedTemplate; issues: OutcomeIssue[] } {
  const importer = new Importer();
  if (resource.resourceType !== "Questionnaire") {
    importer.refuse("resourceType", "the body must be a Questionnaire", "invalid");
    return { issues: importer.issues };
  }
  for (const key of Object.keys(resource))
    if (!QUESTIONNAIRE_KEYS.has(key)) importer.warn(`Questionnaire.${key}`, `Questionnaire.${key} is not kept`);
  let settings: Record<string, unknown> = {};
  if (Array.isArray(resource.extension))
    for (const ext of resource.extension as Extension[]) {
      if (ext?.url === CLINSIGN.formSettings) settings = formSettingsFrom(ext, importer);
      else if (ext?.url !== CLINSIGN.exportIssues)
        importer.warn("Questionnaire.extension", `extension ${ext?.url} is not kept`);
    }
  importer.items(resource.item, "Questionnaire.item", []);
  importer.conditions();
  const rawTitle = [resource.title, resource.name].find((t) => typeof t === "string" && t.trim()) as string | undefined;
  const title = (rawTitle ?? "Imported questionnaire").trim().slice(0, 120);
  if (!rawTitle)
    importer.warn("Questionnaire.title", 'no title; the template is called "Imported questionnaire"', "value");
  else if (rawTitle.trim().length > 120)
    importer.warn("Questionnaire.title", "the title is cut to 120 characters", "value");
  let description = typeof resource.description === "string" ? resource.description : null;
  if (description && description.length > 1000) {
    importer.warn("Questionnaire.description", "the description is cut to 1000 characters", "value");
    description = description.slice(0, 1000);
  }
  const version = Number(resource.version);
  const schema = {
    version: Number.isFinite(version) && version > 0 ? version : 1,
    fields: importer.fields,
    ...settings,
  };
  const parsed = templateSchema.safeParse(schema);
  if (!parsed.success) {
    for (const issue of parsed.error.issues) {
      const [, index, ...rest] = issue.path;
      const field = typeof index === "number" ? importer.fields[index] : undefined;
      importer.refuse(
        (field && importer.paths.get(field)) ?? "Questionnaire.item",
        `${field ? `item "${field.key ?? field.id}"` : "the form"}: ${[...rest].join(".")}${rest.length ? ": " : ""}${issue.message}`,
        "invalid",
      );
    }
  }
  if (importer.issues.some((i) => i.severity === "error")) return { issues: importer.issues };
  const status = resource.status === "active" ? "active" : resource.status === "retired" ? "archived" : "draft";
  return { template: { title, description, status, schema: parsed.data! }, issues: importer.issues };
}
