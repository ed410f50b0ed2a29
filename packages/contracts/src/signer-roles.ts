// The built-in signer roles without zod: the signing page imports them in the browser.

/** The roles the console offers; a clinic may use its own name as well (any `signerRole`). */
export const builtInSignerRoles = ["patient", "legal_representative", "witness", "interpreter", "physician"] as const;
export type BuiltInSignerRole = (typeof builtInSignerRoles)[number];
export const PATIENT_ROLE = "patient" as const;
