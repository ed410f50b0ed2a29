/**
 * The checks of a form's values against its template, shared by the server (F10, SMS portal)
 * and the form renderer in the browser. Pure: no zod, no node APIs; its only dependency is
 * libphonenumber-js with the "min" metadata (the same numbers validate as with the default build).
 * The server adds what only it can know (file references belong to an upload of this form).
 */
import { isSupportedCountry, parsePhoneNumberFromString, type CountryCode } from "libphonenumber-js/min";
import type { Attachment } from "./forms";
import { isBlankValue, takesValue, visibleFieldKeys } from "./form-conditions";
import { dataUrlImageSize, fitsPixelBudget, SIGNATURE_IMAGE_LIMITS } from "./image-header";
import { matchesPattern } from "./pattern";
import type { FormField, TemplateSchema } from "./template-schema";

export {
  evaluateForm,
  isBlankValue,
  visibleFieldKeys,
  visibleFields,
  visibleValues,
  withComputedScores,
} from "./form-conditions";
export { matchesPattern, patternProblem } from "./pattern";
export { computeScore, scoreBandOf, type ScoreField, type ScoreState, type ScoreValue } from "./form-scores";

export { fieldProblemCodes, type FieldProblemCode } from "./form-problems";
import type { FieldProblemCode } from "./form-problems";

/** A problem with one value; `params` fill the message (e.g. `{code: "too_long", params: {max: 20}}`). */
export interface FieldProblem {
  code: FieldProblemCode;
  params?: Record<string, string | number>;
}
export interface FieldIssue extends FieldProblem {
  key: string;
}

export const MAX_FILES_PER_FIELD = 20;
export const MAX_SIGNATURE_CHARS = 2 * 1024 * 1024;
/** Text fields other than textarea, and textarea, whatever the template allows. */
const MAX_TEXT_CHARS = 10_000;
const MAX_TEXTAREA_CHARS = 100_000;

const ISO_DATE = /^\d{4}-\d{2}-\d{2}$/;
/** PNG or JPEG only: an SVG is a document (scripts, external references), not a picture of ink. */
const SIGNATURE_DATA_URL = /^data:image\/(png|jpeg);base64,[A-Za-z0-9+/=]+$/;

type Params = Record<string, string | number>;
const messages: Record<FieldProblemCode, (p: Params) => string> = {
  required: () => "is required",
  must_be_checked: () => "must be checked",
  not_text: () => "must be text",
  too_short: (p) => `must be at least ${p.min} characters`,
  too_long: (p) => `must be at most ${p.max} characters`,
  pattern: () => "does not have the expected format",
  email: () => "must be a valid e-mail address",
  phone: () => "must be a valid phone number",
  not_number: () => "must be a number",
  too_small: (p) => `must be at least ${p.min}`,
  too_large: (p) => `must be at most ${p.max}`,
  not_date: () => "must be a date (YYYY-MM-DD)",
  date_too_early: (p) => `must be on or after ${p.min}`,
  date_too_late: (p) => `must be on or before ${p.max}`,
  not_option: () => "must be one of the options",
  not_options: () => "must contain only the options",
  duplicate_option: () => "must not repeat an option",
  not_boolean: () => "must be true or false",
  signature_invalid: () => "must be a PNG or JPEG signature image (data URL)",
  signature_too_large: (p) =>
    p.width !== undefined
      ? `the signature image is ${p.width} × ${p.height} pixels; at most ${p.maxSide} × ${p.maxSide} and ${p.maxMegapixels} megapixels are accepted`
      : "the signature image is too large",
  files_invalid: () => "must be a list of uploaded files, each {name, path, url, size, type}",
  too_many_files: (p) => `at most ${p.max} files`,
  file_too_large: (p) => `files must be at most ${p.maxMb} MB`,
  file_type: (p) => `file type ${p.type} is not accepted`,
  display_only: () => "is a display element and takes no value",
  unknown_field: () => "is not a field of this form",
};

/** Readable English for a problem: F10's `fieldErrors[].message`. */
export function fieldProblemMessage(problem: FieldProblem): string {
  return messages[problem.code](problem.params ?? {});
}

const problem = (code: FieldProblemCode, params?: Params): FieldProblem => (params ? { code, params } : { code });

/** What the checks need to know of the organization whose form it is. */
export interface FormValidationOptions {
  /**
   * ISO 3166 country whose national numbers ("0170 7654321") phone fields accept, besides
   * international ones; the organization's `phoneCountry`. DE when absent or unknown.
   */
  phoneCountry?: string;
}

function countryOf(options: FormValidationOptions | undefined): CountryCode {
  const code = (options?.phoneCountry ?? "DE").toUpperCase();
  return isSupportedCountry(code) ? code : "DE";
}

/** A phone number as typed (national or international, 00 or +), in E.164; null when it is not a valid number. */
export function normalizePhoneNumber(value: string, options?: FormValidationOptions): string | null {
  const parsed = parsePhoneNumberFromString(value.trim().replace(/^00/, "+"), countryOf(options));
  return parsed?.isValid() ? parsed.number : null;
}

/**
 * The values with each valid answer of a phone field in E.164, so that stored submissions and
 * webhooks carry one format whatever the patient typed. Other values are returned as they are.
 */
export function normalizePhoneValues(
  schema: TemplateSchema,
  values: Record<string, unknown>,
  options?: FormValidationOptions,
): Record<string, unknown> {
  const out = { ...values };
  for (const field of schema.fields) {
    if (field.type !== "phone" || typeof out[field.key] !== "string") continue;
    const normalized = normalizePhoneNumber(out[field.key] as string, options);
    if (normalized) out[field.key] = normalized;
  }
  return out;
}

/** The `accept` entry for any type, as the HTTP Accept header writes it. */
const ANY_FILE_TYPE = "*/*";

/** Does a file match an `accept` list such as ".pdf,image/*,application/pdf"? No list, or ANY_FILE_TYPE in it, accepts all. */
export function acceptsFileType(accept: string | undefined, type: string, name: string): boolean {
  if (!accept) return true;
  const lowerName = name.toLowerCase();
  const lowerType = type.toLowerCase();
  return accept
    .split(",")
    .map((a) => a.trim().toLowerCase())
    .filter(Boolean)
    .some((a) =>
      a === ANY_FILE_TYPE
        ? true
        : a.startsWith(".")
          ? lowerName.endsWith(a)
          : a.endsWith("/*")
            ? lowerType.startsWith(a.slice(0, -1))
            : lowerType === a,
    );
}

/**
 * local@domain.tld: one "@", no whitespace, a dot inside the domain. Written out rather than as
 * /^[^\s@]+@[^\s@]+\.[^\s@]+$/, whose backtracking over the domain's dots is quadratic.
 */
function isEmailAddress(value: string): boolean {
  if (/\s/.test(value)) return false;
  const at = value.indexOf("@");
  if (at < 1 || value.indexOf("@", at + 1) !== -1) return false;
  const domain = value.slice(at + 1);
  return domain.slice(1, -1).includes(".");
}

function isValidDate(value: string): boolean {
  if (!ISO_DATE.test(value)) return false;
  const d = new Date(`${value}T00:00:00Z`);
  return !Number.isNaN(d.getTime()) && d.toISOString().slice(0, 10) === value;
}

const ATTACHMENT_KEYS = new Set(["name", "path", "url", "size", "type"]);
const isString = (v: unknown, min: number, max: number): v is string =>
  typeof v === "string" && v.length >= min && v.length <= max;

/** The `attachment` contract (forms.ts) without zod, so that this module stays small. */
function isAttachment(value: unknown): value is Attachment {
  if (typeof value !== "object" || value === null || Array.isArray(value)) return false;
  const item = value as Record<string, unknown>;
  return (
    Object.keys(item).every((k) => ATTACHMENT_KEYS.has(k)) &&
    isString(item.name, 1, 255) &&
    isString(item.path, 1, 300) &&
    (item.url === undefined || isString(item.url, 0, 4096)) &&
    Number.isSafeInteger(item.size) &&
    (item.size as number) >= 0 &&
    isString(item.type, 0, 255)
  );
}

const optionValues = (options: (string | { value: string })[]) =>
  options.map((o) => (typeof o === "string" ? o : o.value));

function checkText(
  field: Extract<FormField, { type: "text" | "textarea" | "email" | "phone" }>,
  value: unknown,
  options?: FormValidationOptions,
): FieldProblem | null {
  if (typeof value !== "string") return problem("not_text");
  if (field.minLength !== undefined && value.length < field.minLength)
    return problem("too_short", { min: field.minLength });
  if (field.maxLength !== undefined && value.length > field.maxLength)
    return problem("too_long", { max: field.maxLength });
  const cap = field.type === "textarea" ? MAX_TEXTAREA_CHARS : MAX_TEXT_CHARS;
  if (value.length > cap) return problem("too_long", { max: cap });
  if (field.pattern !== undefined && !matchesPattern(field.pattern, value)) return problem("pattern");
  if (field.type === "email" && !isEmailAddress(value)) return problem("email");
  if (field.type === "phone" && normalizePhoneNumber(value, options) === null) return problem("phone");
  return null;
}

function checkFiles(field: Extract<FormField, { type: "file" }>, value: unknown): FieldProblem | null {
  if (!Array.isArray(value)) return problem("files_invalid");
  if (value.length > MAX_FILES_PER_FIELD) return problem("too_many_files", { max: MAX_FILES_PER_FIELD });
  for (const item of value) {
    if (!isAttachment(item)) return problem("files_invalid");
    if (field.maxSizeMb !== undefined && item.size > field.maxSizeMb * 1024 * 1024)
      return problem("file_too_large", { maxMb: field.maxSizeMb });
    if (!acceptsFileType(field.accept, item.type, item.name)) return problem("file_type", { type: item.type });
  }
  return null;
}

/**
 * A signature is a PNG or JPEG data URL whose header (read without decoding the image) declares
 * at most SIGNATURE_IMAGE_LIMITS: whoever renders it (the submission PDF) decodes every pixel.
 */
function checkSignature(value: unknown): FieldProblem | null {
  if (typeof value !== "string" || !SIGNATURE_DATA_URL.test(value)) return problem("signature_invalid");
  if (value.length > MAX_SIGNATURE_CHARS) return problem("signature_too_large");
  const size = dataUrlImageSize(value);
  if (!size) return problem("signature_invalid");
  if (!fitsPixelBudget(size)) {
    const { maxSide, maxPixels } = SIGNATURE_IMAGE_LIMITS;
    return problem("signature_too_large", {
      width: size.width,
      height: size.height,
      maxSide,
      maxMegapixels: maxPixels / 1_000_000,
    });
  }
  return null;
}

/** The problem with a value that is not blank. */
function checkPresentValue(field: FormField, value: unknown, options?: FormValidationOptions): FieldProblem | null {
  switch (field.type) {
    case "text":
    case "textarea":
    case "email":
    case "phone":
      return checkText(field, value, options);
    case "number":
      if (typeof value !== "number" || !Number.isFinite(value)) return problem("not_number");
      if (field.min !== undefined && value < field.min) return problem("too_small", { min: field.min });
      if (field.max !== undefined && value > field.max) return problem("too_large", { max: field.max });
      return null;
    case "date":
      if (typeof value !== "string" || !isValidDate(value)) return problem("not_date");
      if (field.min !== undefined && value < field.min) return problem("date_too_early", { min: field.min });
      if (field.max !== undefined && value > field.max) return problem("date_too_late", { max: field.max });
      return null;
    case "select":
    case "radio":
      return typeof value === "string" && optionValues(field.options).includes(value) ? null : problem("not_option");
    case "multiselect": {
      const allowed = optionValues(field.options);
      if (!Array.isArray(value) || !value.every((v) => typeof v === "string" && allowed.includes(v)))
        return problem("not_options");
      return new Set(value).size === value.length ? null : problem("duplicate_option");
    }
    case "checkbox":
      return typeof value === "boolean" ? null : problem("not_boolean");
    case "signature":
      return checkSignature(value);
    case "file":
      return checkFiles(field, value);
    case "heading":
    case "paragraph":
      return problem("display_only");
    case "score":
      return null;
  }
}

/** One field's value, required and blank handling included; null when fine. Visibility is the caller's. */
export function checkFieldValue(
  field: FormField,
  value: unknown,
  options?: FormValidationOptions,
): FieldProblem | null {
  const isDisplay = field.type === "heading" || field.type === "paragraph";
  if (isDisplay) return value === undefined ? null : problem("display_only");
  // A score is computed, never answered: the server replaces whatever was sent (form-scores.ts).
  if (field.type === "score") return null;
  // An unchecked required checkbox is an unanswered one.
  if (isBlankValue(value) || (field.type === "checkbox" && field.required && value === false)) {
    if (!field.required) return null;
    return problem(field.type === "checkbox" ? "must_be_checked" : "required");
  }
  return checkPresentValue(field, value, options);
}

/**
 * Every problem of a submission: keys that are not fields (unknown_field) or display elements
 * (display_only) first, then each visible field in schema order. Hidden fields are neither
 * required nor validated.
 */
export function validateFormValues(
  schema: TemplateSchema,
  values: Record<string, unknown>,
  options?: FormValidationOptions,
): FieldIssue[] {
  const byKey = new Map<string, FormField>();
  for (const field of schema.fields) if (field.key !== undefined) byKey.set(field.key, field);
  const issues: FieldIssue[] = [];
  for (const key of Object.keys(values)) {
    const field = byKey.get(key);
    if (!field) issues.push({ key, code: "unknown_field" });
    else if (!takesValue(field)) issues.push({ key, code: "display_only" });
  }
  const visible = visibleFieldKeys(schema, values);
  for (const field of schema.fields) {
    if (!takesValue(field) || !visible.has(field.key)) continue;
    const found = checkFieldValue(field, values[field.key], options);
    if (found) issues.push({ key: field.key, ...found });
  }
  return issues;
}
