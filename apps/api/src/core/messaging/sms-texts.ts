import type { PatientLanguage } from "@clinsign/contracts";

/**
 * The texts of the SMS the service sends to patients, in the request's language (one of the
 * seven patient languages). Each names the clinic first, so the recipient knows who is asking
 * before they read on (and before they type a code into a page). The code and the link stay in
 * Latin characters in every language: the patient types the one and taps the other. In Arabic
 * the clinic's name, the title and the link may be Latin; the phone's bidi rendering keeps each
 * run in its own direction, and the link stands last, after a space, so it stays tappable.
 */
export type SmsLocale = PatientLanguage;

type Values<K extends string> = Record<K, string>;

const formLink: Record<SmsLocale, (v: Values<"organization" | "title" | "link">) => string> = {
  de: (v) => `${v.organization}: Bitte füllen Sie das Formular „${v.title}“ aus: ${v.link}`,
  en: (v) => `${v.organization}: please fill in the form "${v.title}": ${v.link}`,
  tr: (v) => `${v.organization}: Lütfen "${v.title}" formunu doldurun: ${v.link}`,
  ar: (v) => `${v.organization}: يرجى تعبئة النموذج «${v.title}»: ${v.link}`,
  ru: (v) => `${v.organization}: пожалуйста, заполните форму «${v.title}»: ${v.link}`,
  uk: (v) => `${v.organization}: будь ласка, заповніть форму «${v.title}»: ${v.link}`,
  pl: (v) => `${v.organization}: prosimy o wypełnienie formularza „${v.title}”: ${v.link}`,
};

const otp: Record<SmsLocale, (v: Values<"organization" | "code"> & { minutes: number }) => string> = {
  de: (v) => `${v.organization}: Ihr Code lautet ${v.code} (${v.minutes} Minuten gültig). Geben Sie ihn nicht weiter.`,
  en: (v) => `${v.organization}: your code is ${v.code} (valid for ${v.minutes} minutes). Do not share it.`,
  tr: (v) => `${v.organization}: kodunuz ${v.code} (${v.minutes} dakika geçerlidir). Kodu kimseyle paylaşmayın.`,
  ar: (v) => `${v.organization}: رمزك هو ${v.code} (صالح لمدة ${v.minutes} دقيقة). لا تشاركه مع أحد.`,
  ru: (v) => `${v.organization}: Ваш код ${v.code} (действителен ${v.minutes} мин.). Никому его не сообщайте.`,
  uk: (v) => `${v.organization}: Ваш код ${v.code} (дійсний ${v.minutes} хв). Нікому його не повідомляйте.`,
  pl: (v) => `${v.organization}: Państwa kod to ${v.code} (ważny ${v.minutes} min). Prosimy nikomu go nie podawać.`,
};

const reminder: Record<SmsLocale, (v: Values<"organization" | "title" | "link">) => string> = {
  de: (v) => `${v.organization}: Erinnerung: Bitte unterschreiben Sie „${v.title}“: ${v.link}`,
  en: (v) => `${v.organization}: reminder: please sign "${v.title}": ${v.link}`,
  tr: (v) => `${v.organization}: hatırlatma: lütfen "${v.title}" belgesini imzalayın: ${v.link}`,
  ar: (v) => `${v.organization}: تذكير: يرجى توقيع «${v.title}»: ${v.link}`,
  ru: (v) => `${v.organization}: напоминание: пожалуйста, подпишите «${v.title}»: ${v.link}`,
  uk: (v) => `${v.organization}: нагадування: будь ласка, підпишіть «${v.title}»: ${v.link}`,
  pl: (v) => `${v.organization}: przypomnienie: prosimy o podpisanie „${v.title}”: ${v.link}`,
};

/**
 * The language an SMS is written in for a patient language: the patient's where the texts exist
 * in it, else the organization's (a request preset to Turkish opens the form in Turkish).
 */
export const smsLocale = (language: string | null, organization: SmsLocale): SmsLocale =>
  language === "de" || language === "en" ? language : organization;

export function formLinkSms(locale: SmsLocale, values: { organization: string; title: string; link: string }): string {
  return formLink[locale](values);
}

export function otpSms(locale: SmsLocale, values: { organization: string; code: string; minutes: number }): string {
  return otp[locale](values);
}

/** A reminder to a signer who has not signed yet (core/signatures/notices.ts). */
export function signatureReminderSms(
  locale: SmsLocale,
  values: { organization: string; title: string; link: string },
): string {
  return reminder[locale](values);
}
