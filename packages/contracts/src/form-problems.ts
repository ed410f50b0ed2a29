// The problem codes alone, without the validators: the translation checks (form-languages.ts)
// need them where the phone number rules must not be loaded.

/** Every problem a value can have; clients translate these. */
export const fieldProblemCodes = [
  "required",
  "must_be_checked",
  "not_text",
  "too_short",
  "too_long",
  "pattern",
  "email",
  "phone",
  "not_number",
  "too_small",
  "too_large",
  "not_date",
  "date_too_early",
  "date_too_late",
  "not_option",
  "not_options",
  "duplicate_option",
  "not_boolean",
  "signature_invalid",
  "signature_too_large",
  "files_invalid",
  "too_many_files",
  "file_too_large",
  "file_type",
  "display_only",
  "unknown_field",
] as const;
export type FieldProblemCode = (typeof fieldProblemCodes)[number];
