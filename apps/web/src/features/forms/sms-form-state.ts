import type { Branding, FormValues, Template } from "@clinsign/contracts";
import { readApiError } from "../../trpc/errors";
import type { FormEnd, FormStatus } from "./FormStatusScreen";

/** The ends an SMS link can reach before or instead of a submission made here. */
export type End = Extract<FormEnd, "unknown" | "expired" | "locked" | "submitted" | "unavailable">;

/** Where an API refusal leaves the recipient. */
export function endFor(error: unknown): End | null {
  const code = readApiError(error).code;
  if (code === "FORBIDDEN") return "locked";
  if (code === "CONFLICT") return "submitted";
  if (code === "NOT_FOUND") return "unknown";
  return null;
}

export type Step =
  | FormStatus
  | { kind: "identify"; notice?: string }
  | { kind: "otp"; sentAt: number }
  | { kind: "form"; template: Template; values: FormValues; language: string | null };

/** What opening the link told about it, for the page around every step. */
export interface OpenedLink {
  organizationName: string | null;
  branding: Branding | null;
  expiresAt: string | null;
  phoneCountry: string | undefined;
}

/** What the SMS form keeps of its link on the device with the opened form (see useOfflineForm). */
export interface SmsPage {
  link: OpenedLink;
}

export interface SmsFormState {
  step: Step;
  link: OpenedLink;
  /** Bumped by "Try again": the link is opened again. */
  attempt: number;
  /** The recipient did something: an end reached from here on takes focus. */
  acted: boolean;
}

export type SmsFormAction =
  { type: "linkOpened"; link: OpenedLink } | { type: "show"; step: Step } | { type: "acted" } | { type: "retry" };

export const initialSmsFormState: SmsFormState = {
  step: { kind: "opening" },
  link: { organizationName: null, branding: null, expiresAt: null, phoneCountry: undefined },
  attempt: 0,
  acted: false,
};

export function smsFormReducer(state: SmsFormState, action: SmsFormAction): SmsFormState {
  switch (action.type) {
    case "linkOpened":
      return { ...state, link: action.link };
    case "show":
      return { ...state, step: action.step };
    case "acted":
      return { ...state, acted: true };
    case "retry":
      return { ...state, step: { kind: "opening" }, attempt: state.attempt + 1 };
  }
}
