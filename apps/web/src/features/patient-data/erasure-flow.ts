import { patientSelector, type PatientErasureReceipt, type PatientSelector } from "@clinsign/contracts";
import type { Dictionary } from "../../i18n";
import { translateValidationMessage } from "../../trpc/errors";

/** The identifiers that name a patient, in the order the form shows them. */
export type SelectorField = keyof PatientSelector;
export const selectorFields: SelectorField[] = ["patientId", "rnummer", "phone"];
export type SelectorValues = Record<SelectorField, string>;
export type SelectorErrors = Partial<Record<SelectorField, string>>;
const emptyValues: SelectorValues = { patientId: "", rnummer: "", phone: "" };

/** Where the focus goes once the render that shows a step is on screen. */
export type FocusTarget = "result" | "first" | "phone";

/**
 * The steps of an erasure: the patient named (`values`), checked (`selector`, then the dry run's
 * `report`), confirmed (`confirming`), erased (`receipt`).
 */
export interface ErasureFlowState {
  values: SelectorValues;
  fieldErrors: SelectorErrors;
  /** The patient as checked: what the dry run, the export and the erasure name. */
  selector: PatientSelector | null;
  report: PatientErasureReceipt | null;
  receipt: PatientErasureReceipt | null;
  confirming: boolean;
  /** A new object each time, so the same target twice focuses twice. */
  focusTo: { target: FocusTarget } | null;
}

export type ErasureFlowAction =
  | { type: "edited"; field: SelectorField; value: string }
  | { type: "refused"; fieldErrors: SelectorErrors }
  | { type: "checking"; selector: PatientSelector }
  | { type: "reported"; report: PatientErasureReceipt }
  | { type: "focus"; target: FocusTarget }
  | { type: "confirming"; confirming: boolean }
  | { type: "erased"; receipt: PatientErasureReceipt }
  | { type: "startedOver" };

export const initialErasureFlow: ErasureFlowState = {
  values: emptyValues,
  fieldErrors: {},
  selector: null,
  report: null,
  receipt: null,
  confirming: false,
  focusTo: null,
};

export function erasureFlow(state: ErasureFlowState, action: ErasureFlowAction): ErasureFlowState {
  switch (action.type) {
    case "edited":
      return { ...state, values: { ...state.values, [action.field]: action.value } };
    case "refused":
      return { ...state, fieldErrors: action.fieldErrors };
    case "checking":
      return { ...state, fieldErrors: {}, selector: action.selector, report: null, receipt: null };
    case "reported":
      return { ...state, report: action.report, focusTo: { target: "result" } };
    case "focus":
      return { ...state, focusTo: { target: action.target } };
    case "confirming":
      return { ...state, confirming: action.confirming };
    case "erased":
      return { ...state, confirming: false, receipt: action.receipt, report: null, focusTo: { target: "result" } };
    case "startedOver":
      // After a receipt the next patient starts from empty fields; before one, the same names are corrected.
      return {
        ...state,
        values: state.receipt ? emptyValues : state.values,
        report: null,
        receipt: null,
        selector: null,
        focusTo: { target: "first" },
      };
  }
}

/** The patient the fields name (trimmed, empty ones left out), or what is wrong with them, per field. */
export function parseSelector(
  values: SelectorValues,
  t: Dictionary,
): { selector: PatientSelector } | { fieldErrors: SelectorErrors } {
  const trimmed = Object.fromEntries(
    selectorFields.filter((name) => values[name].trim() !== "").map((name) => [name, values[name].trim()]),
  );
  const parsed = patientSelector.safeParse(trimmed);
  if (parsed.success) return { selector: parsed.data };
  const fieldErrors: SelectorErrors = {};
  for (const issue of parsed.error.issues) {
    const name = issue.path[0] as SelectorField;
    fieldErrors[name] ??=
      Object.keys(trimmed).length === 0 ? t.patientData.selectorMissing : translateValidationMessage(issue.message, t);
  }
  return { fieldErrors };
}
