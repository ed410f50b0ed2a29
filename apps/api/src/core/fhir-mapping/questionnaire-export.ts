import {
  isCodable,
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
import {
  CHOICE_CONTROL,
  ITEM_TYPE,
  itemControl,
  type AnswerOption,
  type EnableWhen,
  type Option,
  type QuestionnaireItem,
  type ScoreField,
} from "./questionnaire-items";
import { scoreTemplate, templateExtractOf, templateIdFor, type CodedScore } from "./score-templates";

// A template as an R4 Questionnaire; questionnaire-items.ts holds what both directions share.

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

/**
 * One option as an answerOption; its score weight (if any) as `itemWeight`, which FHIRPath's
 * `weight()` reads (SDC, R5), and the same as `ordinalValue`, which R4 readers such as LHC-Forms read.
 */
export function answerOptionOf(option: Option): AnswerOption {
  const coding: Coding = { code: optionValue(option) };
  if (typeof option === "string") return { valueCoding: coding };
  if (option.label !== option.value) coding.display = option.label;
  const weight = option.weight;
  return {
    valueCoding: coding,
    ...(weight !== undefined && {
      extension: [
        { url: HL7.itemWeight, valueDecimal: weight },
        { url: HL7.ordinalValue, valueDecimal: weight },
      ],
    }),
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
  const exporting: ItemExport = {
    ids: linkIds(fields),
    byKey: new Map(fields.flatMap((f) => (f.key === undefined ? [] : [[f.key, f] as const]))),
    translated: translationsOf(template),
    issues,
    templates: [],
  };
  const items = fields.map((field, index) => itemOf(field, index, exporting));
  const { translated, templates } = exporting;
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
  const contained: FhirJson[] = [...templates];
  if (issues.length) {
    contained.unshift({ resourceType: "OperationOutcome", id: "export-issues", issue: issues });
    extensions.push({ url: CLINSIGN.exportIssues, valueReference: { reference: "#export-issues" } });
  }
  if (contained.length) questionnaire.contained = contained;
  const settings = formSettingsOf(template.schema);
  if (settings) extensions.push({ url: CLINSIGN.formSettings, valueString: JSON.stringify(settings) });
  if (extensions.length) questionnaire.extension = extensions;
  return { questionnaire, issues };
}

/** What each item's export needs of the whole template, and where it reports what it could not express. */
interface ItemExport {
  ids: Map<FormField, string>;
  byKey: Map<string, FormField>;
  translated: ReturnType<typeof translationsOf>;
  issues: OutcomeIssue[];
  /** The extraction templates of coded scores, to be contained in the Questionnaire. */
  templates: FhirJson[];
}

/** One field as a Questionnaire item (`index`: its place, for the issues' expression). */
function itemOf(
  field: FormField,
  index: number,
  { ids, byKey, translated, issues, templates }: ItemExport,
): QuestionnaireItem {
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
  if (field.type === "score" && field.code) {
    const sources = field.sources.flatMap((key) => byKey.get(key) ?? []);
    markForExtraction(item, { ...field, code: field.code }, sources, templates);
  } else if (isCodable(field) && field.code) {
    // SDC observation-based extraction of the answer itself (a weight, a date, a choice).
    item.code = [field.code];
    item.extension!.push({ url: HL7.observationExtract, valueBoolean: true });
  }
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
}

/**
 * A coded score for SDC extraction both ways an extractor may choose: observation-based (item.code
 * and the `observationExtract` marker: score-observations.ts) and template-based (a contained
 * Observation template: score-templates.ts). Both make the same Observation, but for the identifier
 * no template can compute (template-extract.test.ts).
 */
function markForExtraction(item: QuestionnaireItem, field: CodedScore, sources: FormField[], templates: FhirJson[]) {
  item.code = [field.code];
  const template = scoreTemplate(field, templateIdFor(item.linkId, templates), sources);
  templates.push(template);
  item.extension!.push({ url: HL7.observationExtract, valueBoolean: true }, templateExtractOf(template));
}

/** The schema's settings beside its fields, or null when it has none (most forms). */
function formSettingsOf(schema: TemplateSchema): Pick<TemplateSchema, "scoresShownToPatient" | "flagged"> | null {
  const { scoresShownToPatient, flagged } = schema;
  if (scoresShownToPatient === undefined && flagged === undefined) return null;
  return { ...(scoresShownToPatient !== undefined && { scoresShownToPatient }), ...(flagged && { flagged }) };
}
