import {
  auditChangeLines,
  auditLabelKey,
  type AuditActorType,
  type AuditListItem,
  type BuiltInSignerRole,
} from "@clinsign/contracts";
import { format, type Dictionary } from "../../i18n";
import { signerRoleLabel } from "../signing/roles";

type AuditTexts = Dictionary["auditLogPage"];

/**
 * What happened, in words: the action's label, or for `config.updated` the label of the kind of
 * change it records (a personal link, the website form, the organization's settings). Null for an
 * action the console has no words for (the code stays beside the label either way).
 */
export function actionLabel(entry: Pick<AuditListItem, "action" | "metadata">, a: AuditTexts): string | null {
  return (a.actions as Record<string, string>)[auditLabelKey(entry.action, entry.metadata)] ?? null;
}

/** An actor type in words (the actor filter and entries without a name). */
export function actorTypeLabel(type: string, a: AuditTexts): string {
  const labels: Record<AuditActorType, string> = {
    api_key: a.actorApiKey,
    embed_session: a.actorEmbedSession,
    sms_recipient: a.actorSmsRecipient,
    signer: a.actorSigner,
    user: a.actorUser,
    system: a.actorSystem,
  };
  return labels[type as AuditActorType] ?? type;
}

/**
 * Who acted, in words: a signer by role ("Physician (signing link)"), every other actor by its type;
 * `name` is the staff member's or the link signer's name, when the entry has one.
 */
export function actorWords(
  entry: Pick<AuditListItem, "actorType" | "actorRole" | "actorName">,
  a: AuditTexts,
  roles: Record<BuiltInSignerRole, string>,
): { kind: string; name: string | null } {
  const kind =
    entry.actorType === "signer" && entry.actorRole
      ? format(a.actorSignerAs, { role: signerRoleLabel(entry.actorRole, roles) })
      : actorTypeLabel(entry.actorType, a);
  return { kind, name: entry.actorName };
}

const isPeriod = (value: unknown): value is { amount: number; unit: "days" | "years" } =>
  typeof value === "object" &&
  value !== null &&
  typeof (value as { amount?: unknown }).amount === "number" &&
  ((value as { unit?: unknown }).unit === "days" || (value as { unit?: unknown }).unit === "years");

const isRoleMapping = (value: unknown): value is { value: string; role: string } =>
  typeof value === "object" && value !== null && "value" in value && "role" in value;

/** A setting's value in words: on/off, none, "3 years", a list joined; retention's null is "kept for good". */
export function valueWords(value: unknown, a: AuditTexts, action: string): string {
  if (value === null || value === undefined || value === "")
    return action === "retention.policy_updated" ? a.valueKeptForGood : a.valueNone;
  if (typeof value === "boolean") return value ? a.valueOn : a.valueOff;
  if (isPeriod(value))
    return format(value.unit === "days" ? a.valueDays : a.valueYears, { amount: String(value.amount) });
  if (isRoleMapping(value)) return `${String(value.value)} → ${String(value.role)}`;
  if (Array.isArray(value)) return value.length ? value.map((v) => valueWords(v, a, action)).join(", ") : a.valueNone;
  if (typeof value === "object") return JSON.stringify(value);
  return String(value);
}

/** A setting's name in words (the settings page's wording), else its code. */
export const fieldWords = (field: string, a: AuditTexts): string =>
  (a.fields as Record<string, string>)[field] ?? field;

/**
 * The settings an entry changed, one line each: "Webhook URLs: none → https://…", a secret as
 * "changed (not shown)"; older entries that name the fields only, as one line. A settings entry
 * that changed nothing says so; other entries have no lines.
 */
export function changeWords(entry: Pick<AuditListItem, "action" | "metadata">, a: AuditTexts): string[] {
  const lines = auditChangeLines(entry.metadata);
  if (lines.length === 0)
    return "changes" in (entry.metadata ?? {}) || "changed" in (entry.metadata ?? {}) ? [a.nothingChanged] : [];
  const named = lines.filter((line) => line.kind === "named").map((line) => fieldWords(line.field, a));
  const described = lines.flatMap((line) => {
    const field = fieldWords(line.field, a);
    if (line.kind === "secret") return [format(a.changeSecret, { field })];
    if (line.kind === "values")
      return [
        format(a.changeValues, {
          field,
          from: valueWords(line.from, a, entry.action),
          to: valueWords(line.to, a, entry.action),
        }),
      ];
    return [];
  });
  return named.length ? [...described, format(a.changedNamed, { fields: named.join(", ") })] : described;
}
