import { patientLanguages } from "@clinsign/contracts";
import { describe, expect, it } from "vitest";
import { formLinkSms, otpSms, signatureReminderSms } from "./sms-texts";

const values = { organization: "Klinik Nord", title: "Anamnese", link: "https://sign.example.org/f/abc123" };

/** What each language's text must say, in its own words (so a copy of another language fails). */
const words = {
  de: { form: "Formular", otp: "Code", reminder: "Erinnerung" },
  en: { form: "fill in the form", otp: "your code", reminder: "reminder" },
  tr: { form: "formunu doldurun", otp: "kodunuz", reminder: "hatırlatma" },
  ar: { form: "النموذج", otp: "رمزك", reminder: "تذكير" },
  ru: { form: "заполните форму", otp: "Ваш код", reminder: "напоминание" },
  uk: { form: "заповніть форму", otp: "Ваш код", reminder: "нагадування" },
  pl: { form: "formularza", otp: "kod", reminder: "przypomnienie" },
} as const;

describe("patient SMS texts in the seven languages", () => {
  for (const lang of patientLanguages) {
    it(`${lang}: the form link names the clinic first, the form, and ends with the tappable link`, () => {
      const text = formLinkSms(lang, values);
      expect(text.startsWith("Klinik Nord: ")).toBe(true);
      expect(text).toContain("Anamnese");
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

    it(`${lang}: the signature reminder names the document and ends with the link`, () => {
      const text = signatureReminderSms(lang, values);
      expect(text.startsWith("Klinik Nord: ")).toBe(true);
      expect(text).toContain("Anamnese");
      expect(text).toContain(words[lang].reminder);
      expect(text.endsWith(` ${values.link}`)).toBe(true);
    });
  }

  it("gives every language its own text", () => {
    const texts = patientLanguages.map((lang) => formLinkSms(lang, values));
    expect(new Set(texts).size).toBe(patientLanguages.length);
    const codes = patientLanguages.map((lang) => otpSms(lang, { organization: "K", code: "1", minutes: 5 }));
    expect(new Set(codes).size).toBe(patientLanguages.length);
  });
});
