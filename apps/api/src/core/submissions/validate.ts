import { isValidPhoneNumber } from "libphonenumber-js";
import { attachment, type FieldError, type FormField, type FormValues, type TemplateSchema } from "@clinsign/contracts";
import { and, eq, formUploads, inArray } from "@clinsign/db";
import type { OrgContext } from "../context";

const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;
const ISO_DATE = /^\d{4}-\d{2}-\d{2}$/;
const MAX_SIGNATURE_CHARS = 2 * 1024 * 1024;
const MAX_FILES_PER_FIELD = 20;

const isBlank = (v: unknown) => v === undefined || v === null || v === "" || (Array.isArray(v) && v.length === 0);

function optionValues(field: { options: (string | { value: string })[] }): string[] {
  return field.options.map((o) => (typeof o === "string" ? o : o.value));
}

function validDate(value: string): boolean {
  if (!ISO_DATE.test(value)) return false;
  const d = new Date(`${value}T00:00:00Z`);
  return !Number.isNaN(d.getTime()) && d.toISOString().slice(0, 10) === value;
}

/** Does `type` match an `accept` list such as ".pdf,image/*,application/pdf"? */
export function acceptsType(accept: string | undefined, type: string, name: string): boolean {
  if (!accept) return true;
  const lowerName = name.toLowerCase();
  const lowerType = type.toLowerCase();
  return accept
    .split(",")
    .map((a) => a.trim().toLowerCase())
    .filter(Boolean)
    .some((a) => (a.startsWith(".") ? lowerName.endsWith(a) : a.endsWith("/*") ? lowerType.startsWith(a.slice(0, -1)) : lowerType === a));
}

function checkText(field: Extract<FormField, { minLength?: number }>, value: unknown): string | null {
  if (typeof value !== "string") return "must be text";
  if (field.minLength !== undefined && value.length < field.minLength) return `must be at least ${field.minLength} characters`;
  if (field.maxLength !== undefined && value.length > field.maxLength) return `must be at most ${field.maxLength} characters`;
  if (field.type !== "textarea" && value.length > 10_000) return "must be at most 10000 characters";
  if (value.length > 100_000) return "must be at most 100000 characters";
  if (field.pattern !== undefined && !new RegExp(`^(?:${field.pattern})$`, "u").test(value)) return "does not have the expected format";
  if (field.type === "email" && !EMAIL.test(value)) return "must be a valid e-mail address";
  if (field.type === "phone" && !isValidPhoneNumber(value, "DE")) return "must be a valid phone number";
  return null;
}

/** The problem with one present value, or null. File references are checked afterwards. */
function checkValue(field: FormField, value: unknown): string | null {
  switch (field.type) {
    case "text":
    case "textarea":
    case "email":
    case "phone":
      return checkText(field, value);
    case "number": {
      if (typeof value !== "number" || !Number.isFinite(value)) return "must be a number";
      if (field.min !== undefined && value < field.min) return `must be at least ${field.min}`;
      if (field.max !== undefined && value > field.max) return `must be at most ${field.max}`;
      return null;
    }
    case "date": {
      if (typeof value !== "string" || !validDate(value)) return "must be a date (YYYY-MM-DD)";
      if (field.min !== undefined && value < field.min) return `must be on or after ${field.min}`;
      if (field.max !== undefined && value > field.max) return `must be on or before ${field.max}`;
      return null;
    }
    case "select":
    case "radio":
      return typeof value === "string" && optionValues(field).includes(value) ? null : "must be one of the options";
    case "multiselect": {
      if (!Array.isArray(value)) return "must be a list of options";
      const allowed = optionValues(field);
      if (!value.every((v) => typeof v === "string" && allowed.includes(v))) return "must contain only the options";
      if (new Set(value).size !== value.length) return "must not repeat an option";
      return null;
    }
    case "checkbox":
      return typeof value === "boolean" ? null : "must be true or false";
    case "signature":
      if (typeof value !== "string" || !/^data:image\/(png|svg\+xml|jpeg);base64,[A-Za-z0-9+/=]+$/.test(value)) return "must be a signature image (data URL)";
      return value.length > MAX_SIGNATURE_CHARS ? "the signature image is too large" : null;
    case "file": {
      if (!Array.isArray(value)) return "must be a list of uploaded files";
      if (value.length > MAX_FILES_PER_FIELD) return `at most ${MAX_FILES_PER_FIELD} files`;
      for (const item of value) {
        const parsed = attachment.safeParse(item);
        if (!parsed.success) return "each file must be {name, path, url, size, type} from an upload";
        if (field.maxSizeMb !== undefined && parsed.data.size > field.maxSizeMb * 1024 * 1024) return `files must be at most ${field.maxSizeMb} MB`;
        if (!acceptsType(field.accept, parsed.data.type, parsed.data.name)) return `file type ${parsed.data.type} is not accepted`;
      }
      return null;
    }
    case "heading":
    case "paragraph":
      return "is a display element and takes no value";
  }
}

/**
 * Checks every value against its field (required, type, options, lengths, min/max, pattern, file
 * constraints) and names unknown keys. File values must reference uploads of this organization
 * and template; their stored name, size and type are what count, not what the caller claims.
 */
export async function validateSubmission(ctx: OrgContext, templateIdentifier: string, schema: TemplateSchema, values: FormValues): Promise<FieldError[]> {
  const errors: FieldError[] = [];
  const byKey = new Map<string, FormField>();
  for (const field of schema.fields) if (field.key !== undefined) byKey.set(field.key, field);
  for (const key of Object.keys(values)) {
    const field = byKey.get(key);
    if (!field || field.type === "heading" || field.type === "paragraph") errors.push({ key, message: "is not a field of this form" });
  }
  const filePaths = new Map<string, string>();
  for (const field of schema.fields) {
    if (field.key === undefined || field.type === "heading" || field.type === "paragraph") continue;
    const value = values[field.key];
    const blank = isBlank(value) || (field.type === "checkbox" && field.required && value === false) || (typeof value === "string" && value.trim() === "");
    if (blank) {
      if (field.required) errors.push({ key: field.key, message: field.type === "checkbox" ? "must be checked" : "is required" });
      continue;
    }
    const problem = checkValue(field, value);
    if (problem) errors.push({ key: field.key, message: problem });
    else if (field.type === "file") for (const item of value as { path: string }[]) filePaths.set(item.path, field.key);
  }
  if (filePaths.size > 0) {
    const found = await ctx.scope.select(
      formUploads,
      and(eq(formUploads.templateIdentifier, templateIdentifier), inArray(formUploads.storageKey, [...filePaths.keys()])),
    );
    const known = new Map(found.map((f) => [f.storageKey, f]));
    const reported = new Set<string>();
    for (const [path, key] of filePaths) {
      const upload = known.get(path);
      const field = byKey.get(key) as Extract<FormField, { type: "file" }>;
      const item = (values[key] as { path: string; size: number; type: string }[]).find((i) => i.path === path)!;
      let message: string | null = null;
      if (!upload) message = "references a file that was not uploaded for this form";
      else if (upload.size !== item.size || upload.type !== item.type) message = "does not match the uploaded file";
      else if (field.maxSizeMb !== undefined && upload.size > field.maxSizeMb * 1024 * 1024) message = `files must be at most ${field.maxSizeMb} MB`;
      if (message && !reported.has(key)) {
        errors.push({ key, message });
        reported.add(key);
      }
    }
  }
  return errors;
}
