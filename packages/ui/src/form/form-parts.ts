/**
 * What the renderer's parts share (FormRenderer, FieldControl, FileInput): the file field's types
 * and the validators' loader, kept apart so that the parts import it, not each other's owner.
 */
import type { Attachment, FormField } from "@clinsign/contracts";

export type FileField = Extract<FormField, { type: "file" }>;
export type UploadFile = (file: File, field: FileField, onProgress: (fraction: number) => void) => Promise<Attachment>;

export type FormValidation = typeof import("@clinsign/contracts/form-validation");

let validationModule: Promise<FormValidation> | null = null;

/**
 * The validators (with the phone number rules, the heaviest part) load on the first
 * interaction, not with the page: a patient's phone shows the form sooner.
 */
export function loadFormValidation(): Promise<FormValidation> {
  validationModule ??= import("@clinsign/contracts/form-validation");
  return validationModule;
}
