import type { SaveSsoSettingsInput, SsoRoleMapping, SsoSettings } from "@clinsign/contracts";
import type { Dictionary } from "../../i18n";

/** The single sign-on form as typed: the domains as one text, the mapping as rows. */
export interface SsoFormState {
  enabled: boolean;
  displayName: string;
  issuer: string;
  clientId: string;
  clientSecret: string;
  allowedDomains: string;
  roleClaim: string;
  roleMapping: SsoRoleMapping[];
  ssoOnly: boolean;
  breakGlassUserId: string;
}

export type SsoFormErrors = Partial<Record<keyof SsoFormState | "form", string>>;

export const ssoFormStateFrom = (s: SsoSettings): SsoFormState => ({
  enabled: s.enabled,
  displayName: s.displayName,
  issuer: s.issuer,
  clientId: s.clientId,
  clientSecret: "",
  allowedDomains: s.allowedDomains.join(", "),
  roleClaim: s.roleClaim,
  roleMapping: s.roleMapping.length > 0 ? s.roleMapping : [{ value: "", role: "staff" }],
  ssoOnly: s.ssoOnly,
  breakGlassUserId: s.breakGlassUserId ?? "",
});

/** The typed domains, however they were separated. */
export const typedDomains = (text: string) =>
  text
    .split(/[\s,;]+/)
    .map((d) => d.trim())
    .filter(Boolean);

/**
 * What the browser can check before saving, and the call's input without its step-up (asked last,
 * by the step-up field): `errors` empty when the input may be sent.
 */
export function validateSsoForm(
  form: SsoFormState,
  hasClientSecret: boolean,
  t: Dictionary,
): { errors: SsoFormErrors; input: Omit<SaveSsoSettingsInput, "stepUp"> } {
  const errors: SsoFormErrors = {};
  if (!form.displayName.trim()) errors.displayName = t.validation.required;
  if (!/^https?:\/\/\S+$/.test(form.issuer.trim())) errors.issuer = t.sso.issuerInvalid;
  if (!form.clientId.trim()) errors.clientId = t.validation.required;
  if (!hasClientSecret && !form.clientSecret) errors.clientSecret = t.validation.required;
  const domains = typedDomains(form.allowedDomains);
  if (domains.length === 0) errors.allowedDomains = t.sso.domainsRequired;
  if (!form.roleClaim.trim()) errors.roleClaim = t.validation.required;
  const mapping = form.roleMapping.filter((m) => m.value.trim());
  if (mapping.length === 0) errors.roleMapping = t.sso.mappingRequired;
  if (form.ssoOnly && !form.breakGlassUserId) errors.breakGlassUserId = t.sso.breakGlassRequired;
  const input = {
    enabled: form.enabled,
    displayName: form.displayName.trim(),
    issuer: form.issuer.trim(),
    clientId: form.clientId.trim(),
    ...(form.clientSecret ? { clientSecret: form.clientSecret } : {}),
    allowedDomains: domains,
    roleClaim: form.roleClaim.trim(),
    roleMapping: mapping.map((m) => ({ value: m.value.trim(), role: m.role })),
    ssoOnly: form.ssoOnly,
    breakGlassUserId: form.breakGlassUserId || null,
  };
  return { errors, input };
}
