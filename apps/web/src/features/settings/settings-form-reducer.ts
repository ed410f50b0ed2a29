import type { SaveFeedback } from "./SaveRow";
import type { SettingsErrors, SettingsFormState } from "./settings-form";

/** Where the focus goes after the next render: the first invalid field, or a new URL row. */
export type FocusRequest = { kind: "error" } | { kind: "url"; row: number } | null;

/** Everything the settings form holds between renders. */
export interface SettingsFormModel {
  form: SettingsFormState;
  errors: SettingsErrors;
  feedback: SaveFeedback;
  /** The server's refusal that names no field. */
  formError: string | null;
  /** A new object each time, so the same request moves the focus again. */
  focusRequest: FocusRequest;
}

export type SettingsFormAction =
  | { type: "change"; patch: Partial<SettingsFormState> }
  | { type: "changeUrl"; row: number; value: string }
  | { type: "removeUrl"; row: number }
  | { type: "addUrl" }
  | { type: "submit" }
  | { type: "send" }
  | { type: "fail"; errors: SettingsErrors; formError: string | null; text: string }
  | { type: "saved"; form: SettingsFormState; text: string };

export const settingsFormModel = (form: SettingsFormState): SettingsFormModel => ({
  form,
  errors: {},
  feedback: null,
  formError: null,
  focusRequest: null,
});

/** A change of the form: the last save's word no longer applies. */
function changed(model: SettingsFormModel, patch: Partial<SettingsFormState>): SettingsFormModel {
  return { ...model, form: { ...model.form, ...patch }, feedback: null };
}

export function settingsFormReducer(model: SettingsFormModel, action: SettingsFormAction): SettingsFormModel {
  const urls = model.form.webhookUrls;
  switch (action.type) {
    case "change":
      return changed(model, action.patch);
    case "changeUrl":
      return changed(model, { webhookUrls: urls.map((url, index) => (index === action.row ? action.value : url)) });
    case "removeUrl": {
      const next = changed(model, { webhookUrls: urls.filter((_, index) => index !== action.row) });
      // Row errors point at positions that just moved.
      const errors = Object.fromEntries(Object.entries(model.errors).filter(([key]) => !key.startsWith("webhookUrls")));
      return { ...next, errors };
    }
    case "addUrl":
      return { ...changed(model, { webhookUrls: [...urls, ""] }), focusRequest: { kind: "url", row: urls.length } };
    case "submit":
      return { ...model, formError: null };
    case "send":
      return { ...model, errors: {}, feedback: null };
    case "fail":
      return {
        ...model,
        errors: action.errors,
        formError: action.formError,
        feedback: { tone: "danger", text: action.text },
        focusRequest: { kind: "error" },
      };
    case "saved":
      return { ...model, form: action.form, errors: {}, feedback: { tone: "success", text: action.text } };
  }
}
