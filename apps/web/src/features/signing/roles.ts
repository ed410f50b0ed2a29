import { builtInSignerRoles, PATIENT_ROLE, type BuiltInSignerRole } from "@clinsign/contracts/signer-roles";

/**
 * Signer roles as people read them. A field's role is one of the built-in roles or a name the
 * clinic typed ("Second parent"); built-in ones are translated, a clinic's own name is shown as typed.
 */
export const isBuiltInRole = (role: string): role is BuiltInSignerRole =>
  (builtInSignerRoles as readonly string[]).includes(role);

/** The role's name for people; a field without a role is the patient's. */
export function signerRoleLabel(role: string | null | undefined, names: Record<BuiltInSignerRole, string>): string {
  const value = role?.trim() || PATIENT_ROLE;
  return isBuiltInRole(value) ? names[value] : value;
}

/** Several roles as one phrase: "Patient, Legal representative". */
export const signerRoleList = (roles: readonly string[], names: Record<BuiltInSignerRole, string>): string =>
  roles.map((role) => signerRoleLabel(role, names)).join(", ");

/** A colour slot (1–6) for a role: built-in roles each their own, a clinic's own names the sixth. */
export function roleTone(role: string | null | undefined): number {
  const builtIn = builtInSignerRoles.indexOf((role?.trim() || PATIENT_ROLE) as BuiltInSignerRole);
  return builtIn >= 0 ? builtIn + 1 : 6;
}
