import { z } from "zod";
import { patientLanguages } from "./language-list";

export * from "./language-list";
export const patientLanguage = z.enum(patientLanguages);
