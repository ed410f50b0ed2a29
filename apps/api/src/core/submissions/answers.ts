import {
  localizeTemplate,
  type PatientLanguage,
  type SubmissionAnswer,
  type TemplateSchema,
  type TemplateTranslations,
} from "@clinsign/contracts";
import type { OrgContext } from "../context";
import {
  NEUTRAL_OUTPUT,
  outputDate,
  outputPhone,
  outputTexts,
  type OutputFormat,
} from "../organizations/output-format";
import { signedFileUrl } from "../uploads/uploads";

/**
 * A field as a stored submission keeps it: the template's schema at submission time, read
 * loosely, because schemas of older versions may lack attributes today's contract requires.
 */
interface StoredField {
  key?: string;
  label?: string;
  type?: string;
  options?: Array<string | { value: string; label: string }>;
}

const DISPLAY_TYPES = new Set(["heading", "paragraph"]);

/** The fields that hold answers, in the order of the form, from a stored schema. */
export function answerFields(schema: {
  fields: unknown[];
}): Array<Required<Pick<StoredField, "key" | "label" | "type">> & StoredField> {
  const fields: Array<Required<Pick<StoredField, "key" | "label" | "type">> & StoredField> = [];
  for (const raw of schema.fields ?? []) {
    const field = raw as StoredField;
    if (typeof field?.key !== "string" || DISPLAY_TYPES.has(field.type ?? "")) continue;
    fields.push({ ...field, key: field.key, label: field.label || field.key, type: field.type ?? "text" });
  }
  return fields;
}

/**
 * The labels the patient read, by field key, when they answered in another language than the
 * template's default (from the copy of the translations the submission keeps); else none.
 */
export function answeredLabelsOf(row: {
  language: string | null;
  templateLanguage: string | null;
  templateTitle: string;
  templateSchema: { version: number; fields: unknown[] };
  templateTranslations: Record<string, unknown> | null;
}): Map<string, string> | undefined {
  if (!row.language || !row.templateLanguage || row.language === row.templateLanguage || !row.templateTranslations)
    return undefined;
  const localized = localizeTemplate(
    {
      title: row.templateTitle,
      description: null,
      schema: row.templateSchema as TemplateSchema,
      defaultLanguage: row.templateLanguage as PatientLanguage,
      translations: row.templateTranslations as TemplateTranslations,
    },
    row.language,
  );
  return new Map(localized.schema.fields.flatMap((f) => (f.key && f.label ? [[f.key, f.label] as const] : [])));
}

/** Field keys (lower case, without `_ . -`) and labels that name the patient, in many forms' words. */
const NAME_KEYS = new Set([
  "name",
  "fullname",
  "patientname",
  "patient",
  "vorname",
  "nachname",
  "firstname",
  "lastname",
  "givenname",
  "familyname",
  "surname",
]);
const NAME_LABEL =
  /^(?:(?:vollständiger|voller|full|patient(?:en)?)\s*)?(?:name|vorname|nachname|first name|last name|given name|family name|surname)(?:\s*\(.*\))?\s*[:*]?$/i;

/**
 * The patient's name as the submission's form asked for it, for the staff list: the text answers
 * of the fields whose key or label says "name" (`name`, `vorname` + `nachname`, "Vollständiger
 * Name", "Name (wie auf der Karte)"; not "Name des Hausarztes"), at most two, in form order; null
 * when the form asked for none.
 */
export function patientName(schema: { fields: unknown[] }, values: Record<string, unknown>): string | null {
  const parts = answerFields(schema)
    .filter(
      (f) =>
        f.type === "text" &&
        (NAME_KEYS.has(f.key.toLowerCase().replace(/[_.-]/g, "")) || NAME_LABEL.test(f.label.trim())),
    )
    .map((f) => values[f.key])
    .filter((v): v is string => typeof v === "string" && v.trim() !== "")
    .slice(0, 2)
    .map((v) => v.trim());
  return parts.length > 0 ? parts.join(" ").slice(0, 200) : null;
}

interface StoredFile {
  name: string;
  path: string;
  size: number;
  type: string;
}

const isStoredFile = (v: unknown): v is StoredFile =>
  !!v &&
  typeof v === "object" &&
  typeof (v as StoredFile).name === "string" &&
  typeof (v as StoredFile).path === "string";

/** A stored score (`{score, band}`, form-scores.ts) as "12 (Moderate)", or "12" without a band. */
export function scoreText(value: unknown, format: OutputFormat = NEUTRAL_OUTPUT): string {
  if (!value || typeof value !== "object" || typeof (value as { score?: unknown }).score !== "number") return "";
  const { score, band } = value as { score: number; band?: unknown };
  const number = new Intl.NumberFormat(format.locale).format(score);
  return typeof band === "string" && band ? `${number} (${band})` : number;
}

/**
 * A value as a person reads it, in the organization's language: option labels, yes/no, dates
 * and phone numbers as the clinic writes them, file names; a signature as a marker.
 */
export function answerText(
  field: StoredField | undefined,
  value: unknown,
  format: OutputFormat = NEUTRAL_OUTPUT,
): string {
  if (value === null || value === undefined) return "";
  const texts = outputTexts(format);
  if (field?.type === "signature") return value ? texts.signature : "";
  if (field?.type === "score") return scoreText(value, format);
  if (field?.type === "date" && typeof value === "string") return outputDate(value, format);
  if (field?.type === "phone" && typeof value === "string") return outputPhone(value, format);
  const optionLabel = (v: unknown) => {
    const option = field?.options?.find((o) => (typeof o === "string" ? o : o.value) === v);
    return option === undefined ? String(v) : typeof option === "string" ? option : option.label;
  };
  if (Array.isArray(value)) return value.map((v) => (isStoredFile(v) ? v.name : optionLabel(v))).join("; ");
  if (typeof value === "boolean") return value ? texts.yes : texts.no;
  if (typeof value === "object") return JSON.stringify(value);
  return field?.options ? optionLabel(value) : String(value);
}

/**
 * Each answer under its label, in form order, then any stored key the schema does not name.
 * Attachments get signed URLs of the organization's own storage (the path is only ever looked
 * up under that organization, so a stored path cannot reach another tenant's file).
 */
export function describeAnswers(
  ctx: OrgContext,
  schema: { fields: unknown[] },
  values: Record<string, unknown>,
  format: OutputFormat = NEUTRAL_OUTPUT,
  /** Labels in the language the patient answered in, where it differs from the template's default. */
  answeredLabels?: ReadonlyMap<string, string>,
): SubmissionAnswer[] {
  const fields = answerFields(schema);
  const known = new Set(fields.map((f) => f.key));
  const extra = Object.keys(values)
    .filter((key) => !known.has(key))
    .map((key) => ({ key, label: key, type: "unknown" }));
  const answers: SubmissionAnswer[] = [];
  for (const field of [...fields, ...extra]) {
    if (!(field.key in values)) continue;
    const value = values[field.key];
    const answer: SubmissionAnswer = {
      key: field.key,
      label: field.label,
      type: field.type,
      value,
      text: answerText(field, value, format),
    };
    const answeredLabel = answeredLabels?.get(field.key);
    if (answeredLabel && answeredLabel !== field.label) answer.answeredLabel = answeredLabel;
    if (field.type === "file" && Array.isArray(value)) {
      answer.files = value.filter(isStoredFile).map((file) => ({
        name: file.name,
        size: Number(file.size) || 0,
        type: String(file.type ?? ""),
        url: signedFileUrl(ctx, file.path),
      }));
      answer.value = value.filter(isStoredFile).map(({ name, size, type }) => ({ name, size, type }));
    }
    answers.push(answer);
  }
  return answers;
}
