/**
 * The texts of the SMS the service sends to patients, in the request's language. Each names the
 * clinic first, so the recipient knows who is asking before they read on (and before they type a
 * code into a page).
 */
export type SmsLocale = "de" | "en";

/**
 * The language an SMS is written in for a patient language: the patient's where the texts exist
 * in it, else the organization's (a request preset to Turkish opens the form in Turkish).
 */
export const smsLocale = (language: string | null, organization: SmsLocale): SmsLocale =>
  language === "de" || language === "en" ? language : organization;

export function formLinkSms(locale: SmsLocale, values: { organization: string; title: string; link: string }): string {
  return locale === "en"
    ? `${values.organization}: please fill in the form "${values.title}": ${values.link}`
    : `${values.organization}: Bitte füllen Sie das Formular „${values.title}“ aus: ${values.link}`;
}

export function otpSms(locale: SmsLocale, values: { organization: string; code: string; minutes: number }): string {
  return locale === "en"
    ? `${values.organization}: your code is ${values.code} (valid for ${values.minutes} minutes). Do not share it.`
    : `${values.organization}: Ihr Code lautet ${values.code} (${values.minutes} Minuten gültig). Geben Sie ihn nicht weiter.`;
}

/** A reminder to a signer who has not signed yet (core/signatures/notices.ts). */
export function signatureReminderSms(
  locale: SmsLocale,
  values: { organization: string; title: string; link: string },
): string {
  return locale === "en"
    ? `${values.organization}: reminder: please sign "${values.title}": ${values.link}`
    : `${values.organization}: Erinnerung: Bitte unterschreiben Sie „${values.title}“: ${values.link}`;
}
