import type { AuditChanges } from "@clinsign/contracts";
import { canonicalJson } from "../canonical-json";

/**
 * What a settings change records (`metadata.changes`, see contracts' `AuditFieldChange`): of the
 * settings a caller gave (`after`, undefined = not given), only those whose value differs from
 * `before`, each with its value before and after. Secrets (`secrets`: the caller compares them,
 * e.g. by opening the stored one) are recorded as changed, never with a value. A form that sends
 * every field thus records only what the person changed.
 */
export function settingChanges(
  before: Record<string, unknown>,
  after: Record<string, unknown>,
  secrets: Record<string, boolean> = {},
): { changed: string[]; changes: AuditChanges } {
  const changes: AuditChanges = {};
  for (const [field, value] of Object.entries(after)) {
    if (value === undefined || field in secrets) continue;
    const from = before[field] ?? null;
    const to = value ?? null;
    if (canonicalJson(from) !== canonicalJson(to)) changes[field] = { from, to };
  }
  for (const [field, changed] of Object.entries(secrets)) if (changed) changes[field] = { secret: true };
  const changed = Object.keys(changes).sort();
  return { changed, changes: Object.fromEntries(changed.map((field) => [field, changes[field]!])) };
}
