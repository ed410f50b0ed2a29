// The form renderer, its own entry point: patient pages import it without the rest of the
// component library (the PDF viewer above all).
export { FormRenderer, type FormRendererProps } from "./FormRenderer";
export { loadFormValidation, type FileField, type UploadFile } from "./form-parts";
export { fieldControlId } from "./FieldControl";
export type { FormRendererLabels } from "./labels";
export { describeAcceptedKinds, type FileKindLabels } from "./file-kinds";
