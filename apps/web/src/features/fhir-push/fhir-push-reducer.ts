import type { FhirPushAuthKind, FhirPushTarget } from "@clinsign/contracts";
import type { SaveFeedback } from "../settings/SaveRow";
import {
  authNeeds,
  fhirPushFormFrom,
  storedCredentialFits,
  type FhirPushErrors,
  type FhirPushFormState,
} from "./fhir-push-form";

/** Everything the FHIR server card holds between renders. */
export interface FhirPushModel {
  /** The server as last saved (null before the first save): whether a credential is stored, and for which kind. */
  saved: FhirPushTarget | null;
  form: FhirPushFormState;
  errors: FhirPushErrors;
  /** The stored credential's field is open for a new one. */
  replacing: boolean;
  feedback: SaveFeedback;
  /** A new object at each refusal, so the first invalid field takes the focus again. */
  focusRequest: object | null;
}

export type FhirPushAction =
  | { type: "change"; patch: Partial<Omit<FhirPushFormState, "auth">> }
  | { type: "chooseAuth"; auth: FhirPushAuthKind }
  | { type: "replaceCredential" }
  | { type: "keepCredential" }
  | { type: "fail"; errors: FhirPushErrors; text: string }
  | { type: "saved"; target: FhirPushTarget; text: string };

export const fhirPushModel = (saved: FhirPushTarget | null): FhirPushModel => ({
  saved,
  form: fhirPushFormFrom(saved),
  errors: {},
  replacing: false,
  feedback: null,
  focusRequest: null,
});

/**
 * How the credential shows: `none` (the kind takes none), `stored` (one is kept: said, never shown,
 * with "Replace"), `replace` (its field open; left empty, the stored one stays), `enter` (needed).
 */
export type CredentialState = "none" | "stored" | "replace" | "enter";

export function credentialState(model: FhirPushModel): CredentialState {
  if (!authNeeds[model.form.auth].credential) return "none";
  if (!storedCredentialFits(model.saved, model.form.auth)) return "enter";
  return model.replacing ? "replace" : "stored";
}

/** A change of the form: the last save's word no longer applies, nor the message on what changed. */
function changed(model: FhirPushModel, patch: Partial<FhirPushFormState>): FhirPushModel {
  const errors = Object.fromEntries(Object.entries(model.errors).filter(([key]) => !(key in patch)));
  return { ...model, form: { ...model.form, ...patch }, errors, feedback: null };
}

export function fhirPushReducer(model: FhirPushModel, action: FhirPushAction): FhirPushModel {
  switch (action.type) {
    case "change":
      return changed(model, action.patch);
    case "chooseAuth":
      // What was typed for one kind's credential is no credential of another's.
      return { ...changed(model, { auth: action.auth, secret: "" }), replacing: false };
    case "replaceCredential":
      return { ...model, replacing: true };
    case "keepCredential":
      return { ...changed(model, { secret: "" }), replacing: false };
    case "fail":
      return {
        ...model,
        errors: action.errors,
        feedback: { tone: "danger", text: action.text },
        focusRequest: {},
      };
    case "saved":
      return { ...fhirPushModel(action.target), feedback: { tone: "success", text: action.text } };
  }
}
