import type { Dictionary } from "../i18n";
import { translateValidationMessage, type ApiError } from "./errors";

/**
 * The server's message for one input, in the UI's language: a validation issue on that key, or a
 * refusal whose `details.field` names it (e.g. A1's `document_not_active` on `document_id`).
 */
export function fieldMessage(error: ApiError | null, key: string, t: Dictionary): string | undefined {
  if (!error) return undefined;
  const issue = error.fieldErrors.find((e) => e.key === key || e.key.startsWith(`${key}.`));
  if (issue) return translateValidationMessage(issue.message, t);
  if (error.code !== "BAD_REQUEST" && error.details.field === key) return error.message;
  return undefined;
}

/** Whether some input shows the error already (then the form's notice only says "check the fields"). */
export function errorOnAField(error: ApiError | null, keys: readonly string[], t: Dictionary): boolean {
  return keys.some((key) => fieldMessage(error, key, t) !== undefined);
}
