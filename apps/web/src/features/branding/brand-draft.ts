import type { Branding, DesignParameters } from "@clinsign/contracts";
import { normalizeHex } from "../patient/branding";

/** Which branding the editor changes: the organization's default, an institution's, or a new one. */
export type EditTarget = { kind: "default" } | { kind: "institution"; institutionId: string } | { kind: "new" };

/** The branding as typed in the editor. */
export interface Draft {
  institutionId: string;
  logoUrl: string;
  primaryColor: string;
  accentColor: string;
  font: string;
}

/** The fields the server's `/design` checks name, as the editor shows their messages. */
export const FIELDS = [
  "institution_id",
  "logo_url",
  "design_parameters.primaryColor",
  "design_parameters.accentColor",
  "design_parameters.font",
] as const;
export type DesignField = (typeof FIELDS)[number];

export const toDraft = (branding: Branding | null, institutionId: string): Draft => ({
  institutionId,
  logoUrl: branding?.logoUrl ?? "",
  primaryColor: branding?.primaryColor ?? "",
  accentColor: branding?.accentColor ?? "",
  font: branding?.font ?? "",
});

/** The draft as the preview shows it: only values the patient pages would accept, like the server keeps. */
export function previewBranding(draft: Draft): Branding {
  return {
    logoUrl: draft.logoUrl.trim() || null,
    primaryColor: normalizeHex(draft.primaryColor),
    accentColor: normalizeHex(draft.accentColor),
    font: draft.font || null,
  };
}

/** What every save sends, whichever branding it changes: the logo address and the set parameters. */
export function designInput(draft: Draft): { logo_url: string | null; design_parameters: DesignParameters } {
  const design_parameters: DesignParameters = {};
  if (draft.primaryColor) design_parameters.primaryColor = draft.primaryColor;
  if (draft.accentColor) design_parameters.accentColor = draft.accentColor;
  if (draft.font) design_parameters.font = draft.font as DesignParameters["font"];
  return { logo_url: draft.logoUrl.trim() || null, design_parameters };
}

/** The editor's state: the draft, and whether the last save is still what it shows. */
export interface EditorState {
  draft: Draft;
  saved: boolean;
}

export type EditorAction = { type: "set"; key: keyof Draft; value: string } | { type: "saved" };

export function editorReducer(state: EditorState, action: EditorAction): EditorState {
  switch (action.type) {
    case "set":
      return { draft: { ...state.draft, [action.key]: action.value }, saved: false };
    case "saved":
      return { ...state, saved: true };
  }
}
