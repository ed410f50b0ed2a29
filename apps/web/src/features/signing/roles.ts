/**
 * Signer roles as people read them. A field's role is one of the built-in roles or a name the
 * clinic typed ("Parent 2"); the built-in ones are translated, a clinic's own name is shown as typed.
 */
export const BUILT_IN_SIGNER_ROLES = ["patient", "legal_representative", "witness", "interpreter", "physician"] as const;
export type BuiltInSignerRole = (typeof BUILT_IN_SIGNER_ROLES)[number];

export const isBuiltInRole = (role: string): role is BuiltInSignerRole =>
  (BUILT_IN_SIGNER_ROLES as readonly string[]).includes(role);

/** A field without a role is the patient's (documents from before signers had roles). */
export const PATIENT_ROLE = "patient";

export function signerRoleLabel(role: string | null | undefined, names: Record<BuiltInSignerRole, string>): string {
  const value = role?.trim() || PATIENT_ROLE;
  return isBuiltInRole(value) ? names[value] : value;
}

/** A colour slot (1–6) for a role: built-in roles each their own, a clinic's own names the sixth. */
export function roleTone(role: string | null | undefined): number {
  const value = role?.trim() || PATIENT_ROLE;
  const builtIn = BUILT_IN_SIGNER_ROLES.indexOf(value as BuiltInSignerRole);
  return builtIn >= 0 ? builtIn + 1 : 6;
}
