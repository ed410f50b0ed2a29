import type { BuiltInSignerRole } from "@clinsign/contracts";
import type { PdfFieldRect, PdfPagesLabels } from "@clinsign/ui/pdf-pages";
import { format } from "../../i18n";
import { signerRoleLabel } from "../signing/roles";

/**
 * A signature field as the editor keeps it: the rectangle, whose field it is (`role`, absent: the
 * patient's) and whether that signer must sign it (`required`, absent: required).
 */
export type EditorField = PdfFieldRect & { role?: string; required?: boolean };

export interface FieldEditorLabels {
  pages: PdfPagesLabels;
  /** "Signature field {number} on page {page}" */
  fieldName: string;
  /** What the arrow keys, Alt, Shift and Delete do on a focused field. */
  keyboardHelp: string;
  drawHint: string;
  touchDraw: string;
  touchDrawOn: string;
  addField: string;
  addFieldOnPage: string;
  removeField: string;
  fieldsTitle: string;
  noFields: string;
  maxFields: string;
  page: string;
  x: string;
  y: string;
  width: string;
  height: string;
  pointsHint: string;
  added: string;
  removed: string;
  /** "Signer" (the role select). */
  role: string;
  roleOther: string;
  roleName: string;
  roleNameHint: string;
  required: string;
  optionalTag: string;
  roles: Record<BuiltInSignerRole, string>;
}

/** 1 to count, the choices of a page select. */
export const pageNumbers = (count: number) => Array.from({ length: count }, (_, i) => i + 1);

const roleOf = (field: EditorField, labels: FieldEditorLabels) => signerRoleLabel(field.role, labels.roles);

/** What a placed field's handle shows: "2 · Physician", with the optional tag when it need not be signed. */
export const fieldHandleText = (field: EditorField, index: number, labels: FieldEditorLabels) =>
  `${index + 1} · ${roleOf(field, labels)}${field.required === false ? ` (${labels.optionalTag})` : ""}`;

/** The field's name in the list and in its controls' names: "Signature field 2 on page 1 (Physician)". */
export const fieldName = (field: EditorField, index: number, labels: FieldEditorLabels) =>
  `${format(labels.fieldName, { number: index + 1, page: field.page })} (${roleOf(field, labels)}${
    field.required === false ? `, ${labels.optionalTag}` : ""
  })`;
