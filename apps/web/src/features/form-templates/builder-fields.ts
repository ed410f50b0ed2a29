import { renameFlagRules } from "@clinsign/contracts/form-flags";
import type { CodableField, FormField, TemplateSchema } from "@clinsign/contracts";
import { hasOptions, isDisplayType, type FieldType } from "./builder-field-types";
import {
  renameConditionKey,
  renameSource,
  scoreSourceCandidates,
  withoutConditionsOn,
  withoutSource,
} from "./builder-references";

/** The longest key derived from a label: it must read well in the field list and the submitted data. */
export const DERIVED_KEY_LENGTH = 32;

/** A field key from a label: ASCII letters, digits and _ (umlauts spelled out), starting with a letter. */
export function keyFromLabel(label: string): string {
  const ascii = label
    .replace(/ä/g, "ae")
    .replace(/ö/g, "oe")
    .replace(/ü/g, "ue")
    .replace(/Ä/g, "Ae")
    .replace(/Ö/g, "Oe")
    .replace(/Ü/g, "Ue")
    .replace(/ß/g, "ss")
    .normalize("NFKD")
    .replace(/[\u0300-\u036f]/g, "");
  const words = ascii.split(/[^A-Za-z0-9]+/).filter(Boolean);
  while (words.length > 0 && !/^[A-Za-z]/.test(words[0]!)) words.shift();
  const parts = words.map((word, index) =>
    index === 0 ? word.toLowerCase() : word[0]!.toUpperCase() + word.slice(1).toLowerCase(),
  );
  // A long question makes a short key: whole words up to DERIVED_KEY_LENGTH (the first one cut if it alone is longer).
  let camel = parts[0] ?? "";
  for (const part of parts.slice(1)) {
    if (camel.length + part.length > DERIVED_KEY_LENGTH) break;
    camel += part;
  }
  const key = camel.replace(/^[^A-Za-z]+/, "").slice(0, DERIVED_KEY_LENGTH);
  return key || "field";
}

/** `wanted`, or `wanted2`, `wanted3`… whichever no other field has. */
export function uniqueKey(wanted: string, fields: readonly FormField[], exceptId?: string): string {
  const taken = new Set(fields.filter((field) => field.id !== exceptId && field.key).map((field) => field.key!));
  if (!taken.has(wanted)) return wanted;
  let n = 2;
  while (taken.has(`${wanted}${n}`)) n++;
  return `${wanted}${n}`;
}

function newId(fields: readonly FormField[]): string {
  const ids = new Set(fields.map((field) => field.id));
  let n = fields.length + 1;
  while (ids.has(`f${n}`)) n++;
  return `f${n}`;
}

/** A new field of `type` with a default label, a unique key, and what the type needs (options). */
export function createField(type: FieldType, label: string, fields: readonly FormField[]): FormField {
  const id = newId(fields);
  if (isDisplayType(type)) return { id, type, label } as FormField;
  const base = { id, label, key: uniqueKey(keyFromLabel(label), fields) };
  if (hasOptions(type)) return { ...base, type, options: ["Option 1", "Option 2"] } as FormField;
  // A new score sums every choice field so far (it is added at the end or below the selection).
  if (type === "score")
    return { ...base, type, sources: scoreSourceCandidates(fields, fields.length).map((f) => f.key!) } as FormField;
  return { ...base, type } as FormField;
}

export function addField(
  schema: TemplateSchema,
  field: FormField,
  afterIndex = schema.fields.length - 1,
): TemplateSchema {
  const fields = [...schema.fields];
  fields.splice(afterIndex + 1, 0, field);
  return { ...schema, fields };
}

/** Moves the field at `from` to `to` (both clamped to the list). */
export function moveField(schema: TemplateSchema, from: number, to: number): TemplateSchema {
  const target = Math.max(0, Math.min(schema.fields.length - 1, to));
  if (from === target || from < 0 || from >= schema.fields.length) return schema;
  const fields = [...schema.fields];
  const [moved] = fields.splice(from, 1);
  fields.splice(target, 0, moved!);
  return { ...schema, fields };
}

/** A copy right below the original, with its own id and key; conditions stay as they were. */
export function duplicateField(schema: TemplateSchema, index: number): TemplateSchema {
  const original = schema.fields[index];
  if (!original) return schema;
  const copy = { ...structuredClone(original), id: newId(schema.fields) } as FormField;
  if (copy.key !== undefined) copy.key = uniqueKey(copy.key, schema.fields);
  return addField(schema, copy, index);
}

/** Removes a field and every condition that referred to it (they could no longer hold). */
export function removeField(schema: TemplateSchema, index: number): TemplateSchema {
  const removed = schema.fields[index];
  if (!removed) return schema;
  const fields = schema.fields
    .filter((_, i) => i !== index)
    .map((field) => (removed.key ? withoutSource(withoutConditionsOn(field, removed.key), removed.key) : field));
  // Its "needs attention" rule goes with it.
  return removed.key ? renameFlagRules({ ...schema, fields }, removed.key, undefined) : { ...schema, fields };
}

export function replaceField(schema: TemplateSchema, index: number, field: FormField): TemplateSchema {
  const previous = schema.fields[index];
  let fields = schema.fields.map((f, i) => (i === index ? field : f));
  // A renamed key: conditions that named the old key follow it.
  if (previous?.key && field.key && previous.key !== field.key) {
    fields = fields.map((f) =>
      renameSource(renameConditionKey(f, previous.key!, field.key!), previous.key!, field.key!),
    );
    return renameFlagRules({ ...schema, fields }, previous.key, field.key);
  }
  return { ...schema, fields };
}

/** A number as typed, or undefined for a blank or not-a-number input (the attribute then disappears). */
export const optionalNumber = (value: string) =>
  value.trim() === "" || !Number.isFinite(Number(value)) ? undefined : Number(value);

/** What a field's code fields hold as typed: a code is only kept while its code is not empty. */
export interface FieldCodeInput {
  system: string;
  code: string;
  display: string;
}

/** LOINC, the system of what clinics chart (PHQ-9 total 44261-6, GAD-7 total 70274-6, body weight 29463-7). */
export const LOINC = "http://loinc.org";

/** The code fields of a codable field as the editor shows them: LOINC until another system is typed. */
export const fieldCodeInput = (field: CodableField): FieldCodeInput => ({
  system: field.code?.system ?? LOINC,
  code: field.code?.code ?? "",
  display: field.code?.display ?? "",
});

/**
 * A codable field with one of its code fields changed. An empty code removes the code (the answer
 * is then not extracted as an Observation); the display is kept as typed, and dropped when empty.
 */
export function withFieldCode<F extends CodableField>(field: F, patch: Partial<FieldCodeInput>): F {
  const next = { ...fieldCodeInput(field), ...patch };
  if (next.code.trim())
    return {
      ...field,
      code: {
        system: next.system.trim() || LOINC,
        code: next.code.trim(),
        ...(next.display && { display: next.display }),
      },
    };
  const uncoded = { ...field };
  delete uncoded.code;
  return uncoded;
}
