import type { FormField } from "@clinsign/contracts";

/** The field types of DESIGN.md, in the order the builder offers them. */
export const fieldTypes = [
  "text",
  "textarea",
  "email",
  "phone",
  "number",
  "date",
  "select",
  "radio",
  "checkbox",
  "multiselect",
  "file",
  "signature",
  "heading",
  "paragraph",
  "score",
] as const satisfies readonly FormField["type"][];
export type FieldType = (typeof fieldTypes)[number];

export const isDisplayType = (type: FieldType) => type === "heading" || type === "paragraph";
export const hasOptions = (type: FieldType) => type === "select" || type === "radio" || type === "multiselect";
