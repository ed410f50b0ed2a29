import {
  isFieldRequired,
  PATIENT_ROLE,
  roleOfField,
  type SignerInput,
  type SigningFieldRect,
  type SigningOrder,
} from "@clinsign/contracts";

/** One role of a document version as the new-request form shows it. */
export interface DocumentRole {
  role: string;
  /** At least one of its fields must be signed. */
  required: boolean;
}

/**
 * The roles of a version's fields, the patient first, the others in the order their first field
 * appears (the order the document was laid out in: the usual signing order).
 */
export function rolesOfFields(fields: readonly SigningFieldRect[]): DocumentRole[] {
  const roles = new Map<string, boolean>();
  for (const field of fields) {
    const role = roleOfField(field);
    roles.set(role, (roles.get(role) ?? false) || isFieldRequired(field));
  }
  const list = [...roles].map(([role, required]) => ({ role, required }));
  return [...list.filter((r) => r.role === PATIENT_ROLE), ...list.filter((r) => r.role !== PATIENT_ROLE)];
}

/** Who signs one role, as chosen in the form: a staff member (id) or a person with their own link. */
export interface SignerChoice {
  role: string;
  /** A staff user's id, or "" for a person with their own link. */
  staffUserId: string;
  name: string;
  phone: string;
}

/** A role that staff usually sign in the console: the physician's (the signed-in member by default). */
export const defaultChoice = (role: string, me: string): SignerChoice => ({
  role,
  staffUserId: role === "physician" ? me : "",
  name: "",
  phone: "",
});

/** A1's `signers`, in the order chosen; the patient takes nothing but the role. */
export function signersOf(choices: readonly SignerChoice[]): SignerInput[] {
  return choices.map((choice) => {
    if (choice.role === PATIENT_ROLE) return { role: choice.role };
    if (choice.staffUserId) return { role: choice.role, staff_user_id: choice.staffUserId };
    return {
      role: choice.role,
      ...(choice.name.trim() && { name: choice.name.trim() }),
      ...(choice.phone.trim() && { phone: choice.phone.trim() }),
    };
  });
}

/** Moves the choice at `index` one place up (-1) or down (+1). */
export function move<T>(list: readonly T[], index: number, by: -1 | 1): T[] {
  const to = index + by;
  if (to < 0 || to >= list.length) return [...list];
  const next = [...list];
  [next[index], next[to]] = [next[to]!, next[index]!];
  return next;
}

export type { SigningOrder };
