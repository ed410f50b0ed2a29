import type { PatientLanguage } from "@clinsign/contracts/language-list";
import type { EditorField } from "./editor-fields";

/**
 * The upload form of "Add a document", as a reducer: a PDF is chosen (and checked) before anything
 * is sent, its fields are placed on it, and the upload's refusal is shown beside the form.
 */

/** The API's cap: a larger file is refused before a byte is sent. */
export const MAX_PDF_BYTES = 20 * 1024 * 1024;

/** A chosen PDF, read into memory for the page viewer and the upload. */
export interface ChosenPdf {
  bytes: Uint8Array;
  name: string;
}

/** The upload's refusal: the API's message and the field it names, if any. */
export interface UploadRefusal {
  message: string;
  field?: string;
}

export interface UploadFormState {
  file: ChosenPdf | null;
  fileError: string | null;
  name: string;
  description: string;
  language: PatientLanguage | null;
  fields: EditorField[];
  uploadError: UploadRefusal | null;
  uploading: boolean;
  /** Create was pressed once: missing input is marked from now on. */
  tried: boolean;
}

export const initialUploadForm: UploadFormState = {
  file: null,
  fileError: null,
  name: "",
  description: "",
  language: null,
  fields: [],
  uploadError: null,
  uploading: false,
  tried: false,
};

export type UploadFormAction =
  /** A file is being chosen: earlier errors go. */
  | { type: "choosing" }
  | { type: "fileRefused"; error: string }
  /** A PDF was chosen: its fields start empty, and it names the document unless a name was typed. */
  | { type: "fileChosen"; file: ChosenPdf }
  | { type: "edit"; change: Partial<Pick<UploadFormState, "name" | "description" | "language" | "fields">> }
  | { type: "submitted" }
  | { type: "uploading" }
  | { type: "uploadFailed"; error: UploadRefusal };

export function uploadFormReducer(state: UploadFormState, action: UploadFormAction): UploadFormState {
  switch (action.type) {
    case "choosing":
      return { ...state, fileError: null, uploadError: null };
    case "fileRefused":
      return { ...state, fileError: action.error };
    case "fileChosen":
      return {
        ...state,
        file: action.file,
        fields: [],
        name: state.name.trim() ? state.name : action.file.name.replace(/\.pdf$/i, "").slice(0, 200),
      };
    case "edit":
      return { ...state, ...action.change };
    case "submitted":
      return { ...state, tried: true };
    case "uploading":
      return { ...state, uploading: true, uploadError: null };
    case "uploadFailed":
      return { ...state, uploading: false, uploadError: action.error };
  }
}

/** True when the file starts as a PDF does: "%PDF-" within the first kilobyte, as the API checks. */
export const looksLikePdf = (bytes: Uint8Array) =>
  new TextDecoder("latin1").decode(bytes.subarray(0, 1024)).includes("%PDF-");
