import { de } from "../../apps/web/src/i18n/de";
import { en } from "../../apps/web/src/i18n/en";
import { ar } from "../../apps/web/src/i18n/patient/ar";
import { pl } from "../../apps/web/src/i18n/patient/pl";
import { ru } from "../../apps/web/src/i18n/patient/ru";
import { tr } from "../../apps/web/src/i18n/patient/tr";
import { uk } from "../../apps/web/src/i18n/patient/uk";
import type { PatientLanguage } from "./axe-support";

/**
 * The patient pages' texts in each language, from the web app's dictionaries: a test asks for
 * the heading a Turkish patient reads without copying the Turkish here.
 */
export const patientTexts = { de, en, tr, ar, ru, uk, pl } satisfies Record<PatientLanguage, unknown>;
