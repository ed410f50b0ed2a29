import { recordAudit } from "../audit/audit";
import type { OrgContext } from "../context";
import { queueMessage } from "../messaging/messaging";
import { organizationProfile } from "../organizations/profile";
import { publicContextOf, type PublicContext } from "./public-context";
import { accountById, scopesOfAccount } from "./store/accounts";

/**
 * What an account is told and what its organizations record when the account itself changes.
 * Factors, passkeys and sessions belong to the account, so the change is audited in every
 * organization it belongs to, and the account's holder gets an e-mail: a change they did not make
 * is their cue to act.
 */

export type AccountAuditAction =
  | "staff.factor_added"
  | "staff.factor_removed"
  | "staff.recovery_codes_regenerated"
  | "staff.recovery_code_used"
  | "staff.second_factor_failed"
  | "staff.step_up_failed"
  | "staff.all_sessions_ended"
  | "staff.sso_linked";

/** An account's own change (or failure), in the audit log of each organization it belongs to, in the store's transaction. */
export async function auditAccount(
  pub: PublicContext,
  userId: string,
  action: AccountAuditAction,
  metadata: Record<string, unknown> = {},
) {
  for (const scope of await scopesOfAccount(pub.identity, userId)) {
    await recordAudit(
      { services: pub.services, scope, actor: { type: "user", id: userId }, request: pub.request },
      { action, metadata },
    );
  }
}

export type AccountChange =
  | "totp_added"
  | "totp_removed"
  | "passkey_added"
  | "passkey_removed"
  | "recovery_codes_regenerated"
  | "all_sessions_ended"
  | "sso_linked";

const CHANGE_TEXT: Record<AccountChange, { de: string; en: string }> = {
  totp_added: { de: "Eine Authenticator-App wurde eingerichtet.", en: "An authenticator app was set up." },
  totp_removed: { de: "Die Authenticator-App wurde entfernt.", en: "The authenticator app was removed." },
  passkey_added: { de: "Ein Passkey wurde hinzugefügt.", en: "A passkey was added." },
  passkey_removed: { de: "Ein Passkey wurde entfernt.", en: "A passkey was removed." },
  recovery_codes_regenerated: {
    de: "Neue Wiederherstellungscodes wurden erstellt; die alten gelten nicht mehr.",
    en: "New recovery codes were created; the old ones no longer work.",
  },
  all_sessions_ended: {
    de: "Alle Anmeldungen des Kontos wurden beendet, in jeder Organisation.",
    en: "Every sign-in of the account was ended, in every organization.",
  },
  sso_linked: {
    de: "Die Anmeldung über den Identitätsanbieter einer Organisation wurde mit Ihrem Konto verbunden.",
    en: "An organization's identity provider sign-in was connected to your account.",
  },
};

/** The notice e-mail of an account change, in the organization's language; it names no secret. */
export function accountChangeEmail(
  locale: "de" | "en",
  values: { change: AccountChange; organization: string; when: Date; ip: string | null },
): { subject: string; body: string } {
  const what = CHANGE_TEXT[values.change][locale];
  const when = values.when.toISOString().replace("T", " ").slice(0, 16) + " UTC";
  return locale === "en"
    ? {
        subject: "ClinSign: your sign-in was changed",
        body: `${what}\n\nWhen: ${when}\nIn: ${values.organization}${values.ip ? `\nFrom address: ${values.ip}` : ""}\n\nIf this was you, nothing is to be done. If not, sign in, end all sessions on the Account page, check your sign-in methods under Account security, and tell an owner of your organization.`,
      }
    : {
        subject: "ClinSign: Ihre Anmeldung wurde geändert",
        body: `${what}\n\nWann: ${when}\nIn: ${values.organization}${values.ip ? `\nVon Adresse: ${values.ip}` : ""}\n\nWenn Sie das waren, ist nichts zu tun. Wenn nicht: Melden Sie sich an, beenden Sie auf der Seite „Konto“ alle Sitzungen, prüfen Sie unter „Kontosicherheit“ Ihre Anmeldemethoden und informieren Sie einen Inhaber Ihrer Organisation.`,
      };
}

/** E-mails the account about a change made in `ctx`'s organization (queued in its transaction, sent after commit). */
export async function noticeAccountChange(ctx: OrgContext, userId: string, change: AccountChange): Promise<void> {
  const account = await accountById(publicContextOf(ctx).identity, userId);
  if (!account) return;
  const org = await organizationProfile(ctx);
  const mail = accountChangeEmail(org.locale, { change, organization: org.name, when: new Date(), ip: ctx.request.ip });
  await queueMessage(ctx, {
    channel: "email",
    recipients: [account.email],
    subject: mail.subject,
    body: mail.body,
    purpose: "staff.account_notice",
  });
}
