import {
  acceptsFileType,
  fieldProblemMessage,
  isBlankValue,
  validateFormValues,
  visibleFieldKeys,
  type Attachment,
  type FieldError,
  type FormValidationOptions,
  type FormValues,
  type TemplateSchema,
} from "@clinsign/contracts";
import { and, eq, formUploads, inArray, isNull } from "@clinsign/db";
import type { OrgContext } from "../context";

/** Uploads check a file against its field's `accept` the same way a submission does. */
export const acceptsType = acceptsFileType;

/**
 * The shared checks of form-validation.ts (the browser runs the same), with English messages,
 * plus what only the server knows: file values must reference uploads of this organization and
 * template, and their stored size and type are what count, not what the caller claims.
 */
export async function validateSubmission(
  ctx: OrgContext,
  templateIdentifier: string,
  schema: TemplateSchema,
  values: FormValues,
  options?: FormValidationOptions,
): Promise<FieldError[]> {
  const issues = validateFormValues(schema, values, options);
  const errors: FieldError[] = issues.map((issue) => ({ ...issue, message: fieldProblemMessage(issue) }));
  const failed = new Set(issues.map((issue) => issue.key));
  const visible = visibleFieldKeys(schema, values);
  const claimed = new Map<string, { key: string; item: Attachment }>();
  for (const field of schema.fields) {
    if (field.type !== "file" || !visible.has(field.key) || failed.has(field.key) || isBlankValue(values[field.key]))
      continue;
    for (const item of values[field.key] as Attachment[]) claimed.set(item.path, { key: field.key, item });
  }
  if (claimed.size === 0) return errors;
  const found = await ctx.scope.select(
    formUploads,
    // An upload the orphan sweep claimed is being deleted (core/jobs/upload-sweeper.ts): as good as gone.
    and(
      eq(formUploads.templateIdentifier, templateIdentifier),
      inArray(formUploads.storageKey, [...claimed.keys()]),
      isNull(formUploads.deletingSince),
    ),
  );
  const stored = new Map(found.map((f) => [f.storageKey, f]));
  const reported = new Set<string>();
  for (const [path, { key, item }] of claimed) {
    if (reported.has(key)) continue;
    const upload = stored.get(path);
    // The shared check has already held the claimed size to maxSizeMb; a match makes it the stored size.
    const message = !upload
      ? "references a file that was not uploaded for this form"
      : upload.size !== item.size || upload.type !== item.type
        ? "does not match the uploaded file"
        : null;
    if (message) {
      errors.push({ key, message });
      reported.add(key);
    }
  }
  return errors;
}
