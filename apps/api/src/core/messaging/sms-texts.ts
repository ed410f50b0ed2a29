import { patientLanguages, type PatientLanguage } from "@clinsign/contracts";

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

/**
 * The link to a form: the clinic and a neutral phrase, never the form's title: a lock screen shows
 * the text to anyone near the phone, and "PHQ-9" there tells them of a depression screening. The
 * title shows on the page, after identification.
 */
const formLink: Record<SmsLocale, (v: Values<"organization" | "link">) => string> = {
  de: (v) => `${v.organization}: Sie haben ein Formular auszufüllen: ${v.link}`,
  en: (v) => `${v.organization}: you have a form to fill in: ${v.link}`,
  tr: (v) => `${v.organization}: doldurmanız gereken bir form var: ${v.link}`,
  ar: (v) => `${v.organization}: لديك نموذج لتعبئته: ${v.link}`,
  ru: (v) => `${v.organization}: вам нужно заполнить форму: ${v.link}`,
  uk: (v) => `${v.organization}: вам потрібно заповнити форму: ${v.link}`,
  pl: (v) => `${v.organization}: prosimy o wypełnienie formularza: ${v.link}`,
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

/** A signer's reminder: the clinic and a neutral phrase, never the document's title (as the form link). */
const reminder: Record<SmsLocale, (v: Values<"organization" | "link">) => string> = {
  de: (v) => `${v.organization}: Erinnerung: Ein Dokument wartet auf Ihre Unterschrift: ${v.link}`,
  en: (v) => `${v.organization}: reminder: a document is waiting for your signature: ${v.link}`,
  tr: (v) => `${v.organization}: hatırlatma: imzanızı bekleyen bir belge var: ${v.link}`,
  ar: (v) => `${v.organization}: تذكير: هناك مستند بانتظار توقيعك: ${v.link}`,
  ru: (v) => `${v.organization}: напоминание: документ ожидает вашей подписи: ${v.link}`,
  uk: (v) => `${v.organization}: нагадування: документ очікує на ваш підпис: ${v.link}`,
  pl: (v) => `${v.organization}: przypomnienie: dokument czeka na Państwa podpis: ${v.link}`,
};

/** The language an SMS is written in: the patient's (one of the seven), else the organization's. */
export const smsLocale = (language: string | null, organization: SmsLocale): SmsLocale =>
  (patientLanguages as readonly string[]).includes(language ?? "") ? (language as SmsLocale) : organization;

export function formLinkSms(locale: SmsLocale, values: { organization: string; link: string }): string {
  return formLink[locale](values);
}

export function otpSms(locale: SmsLocale, values: { organization: string; code: string; minutes: number }): string {
  return otp[locale](values);
}

/** A reminder to a signer who has not signed yet (core/signatures/notices.ts). */
export function signatureReminderSms(locale: SmsLocale, values: { organization: string; link: string }): string {
  return reminder[locale](values);
}

/** A signing link sent from the console: the clinic and a neutral phrase, never the document's title. */
const signingLink: Record<SmsLocale, (v: Values<"organization" | "link">) => string> = {
  de: (v) => `${v.organization}: Bitte unterschreiben Sie ein Dokument: ${v.link}`,
  en: (v) => `${v.organization}: please sign a document: ${v.link}`,
  tr: (v) => `${v.organization}: lütfen bir belgeyi imzalayın: ${v.link}`,
  ar: (v) => `${v.organization}: يرجى توقيع مستند: ${v.link}`,
  ru: (v) => `${v.organization}: пожалуйста, подпишите документ: ${v.link}`,
  uk: (v) => `${v.organization}: будь ласка, підпишіть документ: ${v.link}`,
  pl: (v) => `${v.organization}: prosimy o podpisanie dokumentu: ${v.link}`,
};

export function signingLinkSms(locale: SmsLocale, values: { organization: string; link: string }): string {
  return signingLink[locale](values);
}

const signingLinkSubject: Record<SmsLocale, (organization: string) => string> = {
  de: (o) => `${o}: ein Dokument zum Unterschreiben`,
  en: (o) => `${o}: a document to sign`,
  tr: (o) => `${o}: imzalanacak bir belge`,
  ar: (o) => `${o}: مستند للتوقيع`,
  ru: (o) => `${o}: документ на подпись`,
  uk: (o) => `${o}: документ на підпис`,
  pl: (o) => `${o}: dokument do podpisania`,
};

const signingLinkNote: Record<SmsLocale, string> = {
  de: "Der Link ist nur für Sie bestimmt. Wenn Sie diese Nachricht nicht erwartet haben, ignorieren Sie sie.",
  en: "This link is for you alone. If you did not expect this message, ignore it.",
  tr: "Bu bağlantı yalnızca sizin içindir. Bu mesajı beklemiyorsanız dikkate almayın.",
  ar: "هذا الرابط لك وحدك. إذا لم تكن تتوقع هذه الرسالة، فتجاهلها.",
  ru: "Эта ссылка предназначена только для вас. Если вы не ждали этого сообщения, не обращайте на него внимания.",
  uk: "Це посилання призначене лише для вас. Якщо ви не очікували цього повідомлення, не зважайте на нього.",
  pl: "Ten link jest przeznaczony tylko dla Państwa. Jeśli nie oczekiwali Państwo tej wiadomości, prosimy ją zignorować.",
};

/** The same link by e-mail: subject and body name the clinic, never the document. */
export function signingLinkEmail(
  locale: SmsLocale,
  values: { organization: string; link: string },
): { subject: string; body: string } {
  return {
    subject: signingLinkSubject[locale](values.organization),
    body: `${signingLink[locale](values)}\n\n${signingLinkNote[locale]}`,
  };
}
