import {
  templateSchema,
  type FieldCondition,
  type FormField,
  type Template,
  type TemplateSchema,
  type VisibleWhen,
} from "@clinsign/contracts";
import { CLINSIGN, HL7, type Coding, type Extension, type FhirJson, type OutcomeIssue } from "./resources";
import { controlOf, extensionOf, type EnableWhen, type QuestionnaireItem } from "./questionnaire-items";
import { fieldOfItem, type ImportReport } from "./questionnaire-import-fields";

// An R4 Questionnaire as a template; questionnaire-items.ts holds what both directions share.

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

/** Items that become a codable field (a number, a date, a yes/no, one choice, a ClinSign score): their code is kept. */
function codableItem(item: QuestionnaireItem): boolean {
  if (extensionOf(item, CLINSIGN.scoreSources) !== undefined) return true;
  if (item.type === "choice" || item.type === "open-choice") return !item.repeats;
  return ["integer", "decimal", "date", "boolean"].includes(String(item.type));
}

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
  HL7.observationExtract,
  // The export's own extraction template (score-templates.ts): made again from the score's code.
  HL7.templateExtract,
  ...Object.values(CLINSIGN),
]);

class Importer implements ImportReport {
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
    // An item that becomes a codable field keeps its code (what it measures: its Observation's code).
    const codable = codableItem(item);
    for (const key of Object.keys(item))
      if (!ITEM_KEYS.has(key) && !(codable && key === "code"))
        this.warn(`${path}.${key}`, `${name}: ${key} is not kept`);
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
    const field = fieldOfItem(this, item, path, name);
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
