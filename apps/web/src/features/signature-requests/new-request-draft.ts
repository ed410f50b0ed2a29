import type { CreateSignatureRequestInput, SigningOrder } from "@clinsign/contracts";
import type { PatientLanguage } from "@clinsign/contracts/language-list";
import { dayFromNowIn, endOfDayIn } from "../../lib/dates";
import { signersOf, type SignerChoice } from "./signers";

/** How long a new request stays open unless staff choose otherwise. */
const DEFAULT_EXPIRY_DAYS = 14;

/** The fields of A1's input, as the server names them in its field errors. */
export const REQUEST_FIELDS = [
  "patient_id",
  "document_id",
  "institution_id",
  "expiration_date",
  "order_by",
  "patient_phone",
  "reminder_days",
  "signers",
  "signing_order",
  "documents_by_language",
] as const;
export type RequestField = (typeof REQUEST_FIELDS)[number];

const emptyDraft = (timeZone: string, documentId = "") => ({
  patient_id: "",
  document_id: documentId,
  institution_id: "",
  expiry: dayFromNowIn(DEFAULT_EXPIRY_DAYS, timeZone),
  order_by: "",
  /** Optional: the patient's mobile number for reminders, and days until the reminder (empty: the organization's). */
  patient_phone: "",
  reminder_days: "",
});
/** The form's text inputs, as typed. */
export type Draft = ReturnType<typeof emptyDraft>;

/** The field of A1's input each input of the draft goes to (the server's message on it shows there). */
export const fieldOfDraft: Record<keyof Draft, RequestField> = {
  patient_id: "patient_id",
  document_id: "document_id",
  institution_id: "institution_id",
  expiry: "expiration_date",
  order_by: "order_by",
  patient_phone: "patient_phone",
  reminder_days: "reminder_days",
};

export interface NewRequestState {
  draft: Draft;
  /** Known institutions are offered in a select; "another" opens a text field for a new id. */
  otherInstitution: boolean;
  order: SigningOrder;
  /** Issue 19: the same consent in other languages (one signer only), language → document id. */
  byLanguage: Partial<Record<PatientLanguage, string>>;
  /** Who signs each of the chosen document's roles (several roles only). */
  choices: SignerChoice[];
  /** The roles `choices` were made for, joined. */
  choicesFor: string;
}

export type NewRequestAction =
  | { type: "typed"; key: keyof Draft; value: string }
  /** An institution picked from the known ones, or null for "another". */
  | { type: "institutionChosen"; institutionId: string | null }
  | { type: "ordered"; order: SigningOrder }
  | { type: "languagesChosen"; byLanguage: NewRequestState["byLanguage"] }
  | { type: "signersChosen"; choices: SignerChoice[] }
  /** Another document: the choices start again from its roles, in the document's order. */
  | { type: "rolesChanged"; rolesKey: string; choices: SignerChoice[] };

export const initialNewRequest = (timeZone: string, documentId?: string): NewRequestState => ({
  draft: emptyDraft(timeZone, documentId),
  otherInstitution: false,
  order: "sequential",
  byLanguage: {},
  choices: [],
  choicesFor: "",
});

export function newRequest(state: NewRequestState, action: NewRequestAction): NewRequestState {
  switch (action.type) {
    case "typed":
      return { ...state, draft: { ...state.draft, [action.key]: action.value } };
    case "institutionChosen":
      return {
        ...state,
        otherInstitution: action.institutionId === null,
        draft: { ...state.draft, institution_id: action.institutionId ?? "" },
      };
    case "ordered":
      return { ...state, order: action.order };
    case "languagesChosen":
      return { ...state, byLanguage: action.byLanguage };
    case "signersChosen":
      return { ...state, choices: action.choices };
    case "rolesChanged":
      return { ...state, choicesFor: action.rolesKey, choices: action.choices };
  }
}

/** A1's input from the form: several roles send their signers, one signer its documents by language. */
export function requestInputOf(
  state: NewRequestState,
  timeZone: string,
  several: boolean,
): CreateSignatureRequestInput {
  const { draft } = state;
  const languageDocuments = Object.fromEntries(
    Object.entries(state.byLanguage).filter(([, id]) => id && id !== draft.document_id),
  ) as Partial<Record<PatientLanguage, string>>;
  return {
    patient_id: draft.patient_id,
    document_id: draft.document_id,
    institution_id: draft.institution_id,
    // An unparsable day goes to the server as typed, which names the problem on the field.
    expiration_date: endOfDayIn(draft.expiry, timeZone) ?? draft.expiry,
    order_by: draft.order_by,
    ...(draft.patient_phone.trim() && { patient_phone: draft.patient_phone.trim() }),
    // Anything but digits goes out as NaN (null on the wire), which the server refuses on the field.
    ...(draft.reminder_days.trim() && {
      reminder_days: /^\d{1,3}$/.test(draft.reminder_days.trim()) ? Number(draft.reminder_days.trim()) : NaN,
    }),
    ...(several && { signers: signersOf(state.choices), signing_order: state.order }),
    ...(!several && Object.keys(languageDocuments).length > 0 && { documents_by_language: languageDocuments }),
  };
}
