import type { FormField } from "@clinsign/contracts";
import { HL7, type Coding, type Extension, type FhirJson } from "./resources";

/**
 * Form template ⇄ FHIR R4 Questionnaire: the shapes and tables both directions share
 * (questionnaire-export.ts, questionnaire-import.ts). Export maps every field type and attribute
 * to an item (HL7 core and SDC extensions where FHIR has no element; ClinSign URN extensions for
 * the rest), and names in `issues` what it could express only approximately. Import reads what
 * it understands, names every element it does not keep (warning) and refuses what would change
 * the form's meaning (error).
 */

export type Option = string | { value: string; label: string; weight?: number };
export type Choice = Extract<FormField, { options: Option[] }>;
export type ScoreField = Extract<FormField, { type: "score" }>;

export interface QuestionnaireItem extends FhirJson {
  linkId: string;
  text?: string;
  type: string;
  required?: boolean;
  repeats?: boolean;
  maxLength?: number;
  readOnly?: boolean;
  extension?: Extension[];
  answerOption?: AnswerOption[];
  enableWhen?: EnableWhen[];
  enableBehavior?: "all" | "any";
  item?: QuestionnaireItem[];
}

export interface AnswerOption extends FhirJson {
  valueCoding?: Coding;
  valueString?: string;
  valueInteger?: number;
  valueDate?: string;
  extension?: Extension[];
}

export interface EnableWhen extends FhirJson {
  question: string;
  operator: "exists" | "=" | "!=" | ">" | "<" | ">=" | "<=";
}

/** Our field type → FHIR item type (http://hl7.org/fhir/item-type). */
export const ITEM_TYPE: Record<FormField["type"], string> = {
  text: "string",
  textarea: "text",
  email: "string",
  phone: "string",
  number: "decimal",
  date: "date",
  select: "choice",
  radio: "choice",
  multiselect: "choice",
  checkbox: "boolean",
  file: "attachment",
  signature: "attachment",
  heading: "display",
  paragraph: "display",
  score: "decimal",
};

/** Item control (SDC) that says how a choice is shown. */
export const CHOICE_CONTROL: Record<Choice["type"], string> = {
  select: "drop-down",
  radio: "radio-button",
  multiselect: "check-box",
};

export const itemControl = (code: string): Extension => ({
  url: HL7.itemControl,
  valueCodeableConcept: { coding: [{ system: HL7.itemControlSystem, code }] },
});

/** The extension of `item` with this URL (items from outside may carry anything as `extension`). */
export const extensionOf = (item: { extension?: unknown }, url: string) =>
  (Array.isArray(item.extension) ? (item.extension as Extension[]) : []).find((e) => e?.url === url);
/** The SDC item control an item asks for (drop-down, radio-button, help …). */
export const controlOf = (item: QuestionnaireItem) =>
  extensionOf(item, HL7.itemControl)?.valueCodeableConcept?.coding?.find((c) => c.system === HL7.itemControlSystem)
    ?.code;
