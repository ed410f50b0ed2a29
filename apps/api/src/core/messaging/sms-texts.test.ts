import { patientLanguages } from "@clinsign/contracts";
import { describe, expect, it } from "vitest";
import { formLinkSms, otpSms, signatureReminderSms, signingLinkEmail, signingLinkSms, smsLocale } from "./sms-texts";

const values = { organization: "Klinik Nord", link: "https://sign.example.org/f/abc123" };

/** What each language's text must say, in its own words (so a copy of another language fails). */
const words = {
  de: { form: "Formular", otp: "Code", reminder: "Erinnerung" },
  en: { form: "form to fill in", otp: "your code", reminder: "reminder" },
  tr: { form: "form var", otp: "kodunuz", reminder: "hatırlatma" },
  ar: { form: "نموذج", otp: "رمزك", reminder: "تذكير" },
  ru: { form: "заполнить форму", otp: "Ваш код", reminder: "напоминание" },
  uk: { form: "заповнити форму", otp: "Ваш код", reminder: "нагадування" },
  pl: { form: "formularza", otp: "kod", reminder: "przypomnienie" },
} as const;

describe("patient SMS texts in the seven languages", () => {
  for (const lang of patientLanguages) {
    it(`${lang}: the form link names the clinic first, a neutral phrase, and ends with the tappable link`, () => {
      const text = formLinkSms(lang, values);
      expect(text.startsWith("Klinik Nord: ")).toBe(true);
      expect(text).toContain(words[lang].form);
      expect(text.endsWith(` ${values.link}`)).toBe(true);
    });

    it(`${lang}: the code SMS carries the code and its minutes in Latin digits`, () => {
      const text = otpSms(lang, { organization: "Klinik Nord", code: "482913", minutes: 10 });
      expect(text.startsWith("Klinik Nord: ")).toBe(true);
      expect(text).toContain(" 482913 ");
      expect(text).toContain("10");
      expect(text).toContain(words[lang].otp);
    });

    it(`${lang}: the signature reminder names no document and ends with the link`, () => {
      const text = signatureReminderSms(lang, values);
      expect(text.startsWith("Klinik Nord: ")).toBe(true);
      expect(text).toContain(words[lang].reminder);
      expect(text.endsWith(` ${values.link}`)).toBe(true);
    });
  }

  it("sends a signing link in every language naming the clinic, never a document, by SMS and by e-mail", () => {
    const texts = patientLanguages.map((lang) => signingLinkSms(lang, values));
    expect(new Set(texts).size).toBe(patientLanguages.length);
    for (const text of texts) {
      expect(text.startsWith("Klinik Nord: ")).toBe(true);
      expect(text.endsWith(` ${values.link}`)).toBe(true);
    }
    for (const lang of patientLanguages) {
      const mail = signingLinkEmail(lang, values);
      expect(mail.subject.startsWith("Klinik Nord: ")).toBe(true);
      expect(mail.body.startsWith(signingLinkSms(lang, values))).toBe(true);
    }
  });

  it("is written in the patient's language, any of the seven, else the organization's", () => {
    expect(smsLocale("tr", "de")).toBe("tr");
    expect(smsLocale("ar", "en")).toBe("ar");
    expect(smsLocale(null, "en")).toBe("en");
    expect(smsLocale("xx", "de")).toBe("de");
  });

  it("gives every language its own text", () => {
    const texts = patientLanguages.map((lang) => formLinkSms(lang, values));
    expect(new Set(texts).size).toBe(patientLanguages.length);
    const codes = patientLanguages.map((lang) => otpSms(lang, { organization: "K", code: "1", minutes: 5 }));
    expect(new Set(codes).size).toBe(patientLanguages.length);
  });
});
