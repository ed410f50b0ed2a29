import { isCodable, type CodableField, type FormField } from "@clinsign/contracts";
import { CLINSIGN, HL7, type Coding, type Extension, type OutcomeIssue } from "./resources";
import { controlOf, extensionOf, ITEM_TYPE, type Option, type QuestionnaireItem } from "./questionnaire-items";

// One Questionnaire item as a field, for questionnaire-import.ts (which gives it its id, key and
// condition): each item type's reader, and what it reports as not kept or refused.

/** Where the readers say what they could not keep (`warn`) and what they will not import (`refuse`). */
export interface ImportReport {
  warn(path: string, diagnostics: string, code?: OutcomeIssue["code"]): void;
  refuse(path: string, diagnostics: string, code?: OutcomeIssue["code"]): void;
}

/** The item being read: where it is, how issues name it, and the attributes every field has. */
interface ItemReading {
  report: ImportReport;
  item: QuestionnaireItem;
  path: string;
  name: string;
  base: Record<string, unknown>;
  /** Our own field type, where the item carries one that fits its FHIR type (a ClinSign export). */
  declared: FormField["type"] | undefined;
}

const FIELD_TYPES = new Set(Object.keys(ITEM_TYPE));

function declaredType(item: QuestionnaireItem): FormField["type"] | undefined {
  const declared = extensionOf(item, CLINSIGN.fieldType)?.valueCode;
  if (!declared || !FIELD_TYPES.has(declared)) return undefined;
  const type = declared as FormField["type"];
  return ITEM_TYPE[type] === item.type ? type : undefined;
}

/** What every field has: its label (prefix and text, cut to 500), required and placeholder. */
function baseOf(report: ImportReport, item: QuestionnaireItem, path: string, name: string): Record<string, unknown> {
  let label = [item.prefix, item.text].filter((s) => typeof s === "string" && s.trim()).join(" ");
  if (!label) {
    label = item.linkId;
    if (item.type !== "display") report.warn(path, `${name} has no text; its linkId is the label`, "value");
  }
  if (label.length > 500) {
    report.warn(path, `${name}: the text is cut to 500 characters`, "value");
    label = label.slice(0, 500);
  }
  const base: Record<string, unknown> = { id: "", label };
  if (item.required !== undefined) base.required = item.required === true;
  const entryFormat = extensionOf(item, HL7.entryFormat)?.valueString;
  if (entryFormat !== undefined) base.placeholder = entryFormat.slice(0, 200);
  return base;
}

/** The field an item becomes, or undefined when it cannot become one (refused, with the reason). */
export function fieldOfItem(
  report: ImportReport,
  item: QuestionnaireItem,
  path: string,
  name: string,
): FormField | undefined {
  const declared = declaredType(item);
  const base = baseOf(report, item, path, name);
  if (item.readOnly && declared !== "score")
    report.warn(path, `${name}: readOnly is not kept (the patient can answer it)`);
  if (item.repeats && item.type !== "choice" && item.type !== "open-choice")
    return void report.refuse(path, `${name}: repeating answers are supported for choice items only`);
  const reading: ItemReading = { report, item, path, name, base, declared };
  const field = fieldOfType(reading);
  return field && isCodable(field) ? withCodeOf(reading, field) : field;
}

function fieldOfType(reading: ItemReading): FormField | undefined {
  const { report, item, path, name, base, declared } = reading;
  switch (item.type) {
    case "string":
    case "text":
    case "url":
      return textField(reading);
    case "integer":
    case "decimal":
      return declared === "score" ? scoreField(reading) : numberField(reading);
    case "date":
      return dateField(reading);
    case "boolean":
      return { ...base, type: "checkbox" } as FormField;
    case "choice":
    case "open-choice":
      return choiceField(reading);
    case "attachment":
      return attachmentField(reading);
    case "display":
      return displayField(reading);
    default:
      return void report.refuse(path, `${name}: item type ${item.type} is not supported`);
  }
}

function textField({ report, item, path, name, base, declared }: ItemReading): FormField {
  if (item.type === "url") report.warn(path, `${name}: a url item becomes a text field`);
  if (item.maxLength !== undefined) base.maxLength = item.maxLength;
  const min = extensionOf(item, HL7.minLength)?.valueInteger;
  if (min !== undefined) base.minLength = min;
  const regex = extensionOf(item, HL7.regex)?.valueString;
  if (regex !== undefined) base.pattern = regex;
  const type = declared ?? (item.type === "text" ? "textarea" : "text");
  return { ...base, type } as FormField;
}

function numberField({ report, item, path, name, base }: ItemReading): FormField {
  if (item.type === "integer")
    report.warn(path, `${name}: integer becomes a number field (whole numbers are not enforced)`);
  const min = extensionOf(item, HL7.minValue);
  const max = extensionOf(item, HL7.maxValue);
  if (min) base.min = min.valueDecimal ?? min.valueInteger;
  if (max) base.max = max.valueDecimal ?? max.valueInteger;
  if (item.maxLength !== undefined) report.warn(path, `${name}: maxLength on a number is not kept`);
  return { ...base, type: "number" } as FormField;
}

function dateField({ item, base }: ItemReading): FormField {
  const min = extensionOf(item, HL7.minValue)?.valueDate;
  const max = extensionOf(item, HL7.maxValue)?.valueDate;
  if (min) base.min = min;
  if (max) base.max = max;
  return { ...base, type: "date" } as FormField;
}

/** One of our score fields: sources and bands from our extensions (the contract checks them). */
function scoreField({ report, item, path, name, base }: ItemReading): FormField | undefined {
  const parsed = (url: string) => {
    const raw = extensionOf(item, url)?.valueString;
    try {
      return raw === undefined ? undefined : (JSON.parse(raw) as unknown);
    } catch {
      report.refuse(path, `${name}: the ${url} extension is not JSON`, "invalid");
      return undefined;
    }
  };
  const sources = parsed(CLINSIGN.scoreSources);
  const bands = parsed(CLINSIGN.scoreBands);
  if (sources === undefined) return undefined;
  return { ...base, type: "score", sources, ...(bands !== undefined && { bands }) } as FormField;
}

/** What a codable field's answer measures (item.code): the first coding; a field keeps one. */
function withCodeOf({ report, item, path, name }: ItemReading, field: CodableField): FormField {
  const [first, ...more] = Array.isArray(item.code) ? (item.code as Coding[]) : [];
  if (more.length) report.warn(`${path}.code`, `${name}: only the first code is kept`);
  if (!first?.system || !first.code) return field;
  return {
    ...field,
    code: { system: first.system, code: first.code, ...(first.display && { display: first.display }) },
  };
}

function choiceField(reading: ItemReading): FormField | undefined {
  const { report, item, path, name, base } = reading;
  if (item.type === "open-choice")
    report.warn(path, `${name}: open-choice becomes a choice; answers other than the options are not accepted`);
  if (!Array.isArray(item.answerOption) || item.answerOption.length === 0)
    return void report.refuse(
      path,
      `${name}: choices need answerOption (answerValueSet and other option sources are not supported)`,
    );
  const options = optionsOf(reading, item.answerOption);
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

function optionsOf(
  { report, path, name }: ItemReading,
  answerOptions: NonNullable<QuestionnaireItem["answerOption"]>,
): Option[] | undefined {
  const options: Option[] = [];
  for (const [i, option] of answerOptions.entries()) {
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
        report.warn(
          at,
          `${name}: the code system ${option.valueCoding.system} of option "${value}" is not kept`,
          "informational",
        );
    } else if (option.valueString !== undefined) value = option.valueString;
    else if (option.valueInteger !== undefined) value = String(option.valueInteger);
    else if (option.valueDate !== undefined) value = option.valueDate;
    if (value === undefined) return void report.refuse(at, `${name}: an answerOption needs a code or a value`);
    if (weight !== undefined) options.push({ value, label: label ?? value, weight });
    else options.push(label && label !== value ? { value, label } : value);
  }
  return options;
}

function attachmentField({ item, base, declared }: ItemReading): FormField {
  if (declared === "signature") return { ...base, type: "signature" } as FormField;
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

function displayField({ report, item, path, name, base, declared }: ItemReading): FormField {
  const help = extensionOf(item, CLINSIGN.helpText)?.valueString;
  if (help !== undefined) base.helpText = help;
  if (controlOf(item) === "help")
    report.warn(path, `${name}: a help item outside a question becomes a paragraph`, "informational");
  return { ...base, type: declared === "heading" ? "heading" : "paragraph" } as FormField;
}
