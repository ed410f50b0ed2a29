// The audit log's vocabulary without zod: the console's audit page imports it in the browser.

/**
 * Every action the service writes into the audit log. The server's writes are typed by this list
 * (`recordAudit` takes nothing else), and the console has a plain label for each entry of it.
 */
export const auditActions = [
  "audit.exported",
  "branding.created",
  "branding.logo_uploaded",
  "branding.updated",
  "config.updated",
  "document.availability_changed",
  "document.created",
  "document.deleted",
  "document.record_class_changed",
  "document.updated",
  "fhir.resent",
  "file.uploaded",
  "form.closed",
  "form.draft_deleted",
  "form.draft_saved",
  "form.opened",
  "form.submitted",
  "form_request.cancelled",
  "form_request.created",
  "form_request.identity_failed",
  "form_request.link_resent",
  "form_request.opened",
  "form_request.otp_sent",
  "form_request.verified",
  "legal_hold.created",
  "legal_hold.released",
  "message.revealed",
  "patient.erased",
  "patient.exported",
  "retention.deleted",
  "retention.policy_updated",
  "seal.removed",
  "seal.uploaded",
  "signature.assignment_updated",
  "signature.completed",
  "signature.copy_downloaded",
  "signature.created",
  "signature.declined",
  "signature.expired",
  "signature.kiosk_started",
  "signature.link_sent",
  "signature.link_viewed",
  "signature.opened",
  "signature.reminder_not_sent",
  "signature.reminder_sent",
  "signature.retimestamped",
  "signature.seal_failed",
  "signature.seal_requeued",
  "signature.session_refused",
  "signature.session_verified",
  "signature.signed",
  "signature.signer_opened",
  "signature.staff_notified",
  "sso.domain_verified",
  "sso.settings_updated",
  "staff.all_sessions_ended",
  "staff.deactivated",
  "staff.factor_added",
  "staff.factor_removed",
  "staff.invite_accepted",
  "staff.invite_link_shown",
  "staff.invite_revoked",
  "staff.invited",
  "staff.member_added",
  "staff.member_removed",
  "staff.reactivated",
  "staff.recovery_code_used",
  "staff.recovery_codes_regenerated",
  "staff.role_changed",
  "staff.second_factor_failed",
  "staff.session_ended",
  "staff.sign_in_failed",
  "staff.sign_in_refused",
  "staff.signed_in",
  "staff.sso_link_requested",
  "staff.sso_linked",
  "staff.sso_refused",
  "staff.step_up_failed",
  "submissions.exported",
  "template.created",
  "template.deleted",
  "template.updated",
  "token.created",
  "token.revoked",
  "webhook.dispatched",
] as const;
export type AuditAction = (typeof auditActions)[number];

/**
 * `config.updated` is the interface document's one action for "session created or configuration
 * changed" (F13 readers filter by it, so it stays one action). What changed is `metadata.kind`:
 * a personal link (`session`, ended when `revoked`), a template's public embed, or the
 * organization's settings (`settings`; entries before issue 31 carry no kind, only `changed`).
 * The console names each of these on its own.
 */
export const configUpdateKinds = ["session_created", "session_revoked", "public_embed", "settings"] as const;
export type ConfigUpdateKind = (typeof configUpdateKinds)[number];

/** What the console labels: each action, and `config.updated` once per kind of change. */
export type AuditLabelKey = Exclude<AuditAction, "config.updated"> | `config.updated:${ConfigUpdateKind}`;
export const auditLabelKeys: readonly AuditLabelKey[] = [
  ...auditActions.filter((action): action is Exclude<AuditAction, "config.updated"> => action !== "config.updated"),
  ...configUpdateKinds.map((kind) => `config.updated:${kind}` as const),
];

/** The label of an entry as stored: its action, or for `config.updated` the kind of change it records. */
export function auditLabelKey(action: string, metadata: Record<string, unknown> | null | undefined): string {
  if (action !== "config.updated") return action;
  const kind = metadata?.kind;
  if (kind === "session")
    return metadata?.revoked === true ? "config.updated:session_revoked" : "config.updated:session_created";
  if (kind === "public_embed") return "config.updated:public_embed";
  return "config.updated:settings";
}

/**
 * One changed setting in an audit entry (`metadata.changes`, keyed by the setting's name): the
 * value before and after, or for a secret (a webhook signing secret, a client secret) only that it
 * changed: its values never reach the log.
 */
export type AuditFieldChange = { from: unknown; to: unknown } | { secret: true };
export type AuditChanges = Record<string, AuditFieldChange>;

/** A changed setting as the console lists it: with its values, as a secret, or only named (older entries). */
export type AuditChangeLine =
  | { field: string; kind: "values"; from: unknown; to: unknown }
  | { field: string; kind: "secret" }
  | { field: string; kind: "named" };

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value);

/**
 * The changed settings an entry records, in field order: `changes` (entries since issue 31), else
 * the names older entries listed in `changed` (an array of names, or the retention policy's object
 * of new values).
 */
export function auditChangeLines(metadata: Record<string, unknown> | null | undefined): AuditChangeLine[] {
  const changes = metadata?.changes;
  if (isRecord(changes))
    return Object.keys(changes)
      .sort()
      .map((field): AuditChangeLine => {
        const change = changes[field];
        if (isRecord(change) && change.secret === true) return { field, kind: "secret" };
        if (isRecord(change) && "to" in change) return { field, kind: "values", from: change.from, to: change.to };
        return { field, kind: "named" };
      });
  const changed = metadata?.changed;
  if (Array.isArray(changed))
    return changed.filter((f): f is string => typeof f === "string").map((field) => ({ field, kind: "named" }));
  if (isRecord(changed)) return Object.keys(changed).map((field) => ({ field, kind: "named" }));
  return [];
}
