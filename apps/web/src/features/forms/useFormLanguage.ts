"use client";

import type { FormValues, PatientLanguage, Template } from "@clinsign/contracts";
import { localizeTemplate } from "@clinsign/contracts/form-localize";
import { isPatientLanguage } from "@clinsign/contracts/language-list";
import { useEffect, useMemo, useRef, useState } from "react";
import { isLang } from "../../i18n";
import { usePatientI18n } from "../../i18n/I18nProvider";

/**
 * The language a form is shown in. One choice of language: the page's. A preset or remembered
 * language opens the form in it (and the page too, where the page has it); a later switch of the
 * page's language changes the form's.
 */
export function useFormLanguage(template: Template, initialLanguage: string | null) {
  const { lang, setLang } = usePatientI18n();
  const [wanted, setWanted] = useState<string>(initialLanguage ?? lang);
  const seenLang = useRef(lang);
  useEffect(() => {
    if (initialLanguage && isLang(initialLanguage) && initialLanguage !== lang) setLang(initialLanguage);
    // Once, on opening.
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, []);
  useEffect(() => {
    if (lang === seenLang.current) return;
    seenLang.current = lang;
    setWanted(lang);
  }, [lang]);
  const localized = useMemo(() => localizeTemplate(template, wanted), [template, wanted]);
  // What the form is shown in (sent with the submission), and what the patient chose (kept with
  // the draft: restoring it must give the same page language, not the template's fallback).
  const language = localized.language;
  const chosen = isPatientLanguage(wanted) ? wanted : language;
  return { localized, language, chosen };
}

/** The draft remembers a language the patient switched to, answers or not. */
export function useDraftRemembersLanguage(
  saveDraft: ((values: FormValues, language: PatientLanguage) => Promise<unknown>) | null,
  chosen: PatientLanguage,
) {
  const savedLanguage = useRef(chosen);
  useEffect(() => {
    if (!saveDraft || chosen === savedLanguage.current) return;
    savedLanguage.current = chosen;
    saveDraft({}, chosen).catch(() => {});
    // Only a change of language saves here; answers go through the autosave.
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [chosen]);
}
