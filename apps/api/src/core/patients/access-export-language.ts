import { isPatientLanguage, type PatientExportLanguageSuggestion, type PatientLanguage } from "@clinsign/contracts";
import {
  and,
  desc,
  drafts,
  formRequests,
  formSessions,
  isNotNull,
  signatureRequests,
  signatureSigners,
  sql,
  submissions,
} from "@clinsign/db";
import type { OrgContext } from "../context";
import type { PatientRecords } from "./patient-records";
import { inList } from "./record-filters";

/**
 * The language the patient last used with the organization, where their records name one: the
 * newest of the language they answered a form in, signed in (alone or as one of several signers),
 * saved a draft in, or were invited or linked in. One small query per kind, newest row only.
 */
export async function patientLanguageOf(ctx: OrgContext, records: PatientRecords): Promise<PatientLanguage | null> {
  const candidates: { language: unknown; at: Date | null }[] = [];
  const pick = async (query: PromiseLike<{ language: unknown; at: Date | null }[]>) => {
    candidates.push(...(await query));
  };
  const { ids } = records;
  const scope = ctx.scope;
  await pick(
    scope
      .query({ language: submissions.language, at: submissions.createdAt })
      .from(submissions)
      .where(and(inList(submissions.id, ids.submissions), isNotNull(submissions.language)))
      .orderBy(desc(submissions.createdAt))
      .limit(1),
  );
  await pick(
    scope
      .query({ language: signatureRequests.signingLanguage, at: signatureRequests.signedAt })
      .from(signatureRequests)
      .where(and(inList(signatureRequests.id, ids.signatureRequests), isNotNull(signatureRequests.signingLanguage)))
      .orderBy(desc(signatureRequests.signedAt))
      .limit(1),
  );
  await pick(
    scope
      .query({ language: signatureSigners.signingLanguage, at: signatureSigners.signedAt })
      .from(signatureSigners)
      .where(and(inList(signatureSigners.id, records.patientSigners), isNotNull(signatureSigners.signingLanguage)))
      .orderBy(desc(signatureSigners.signedAt))
      .limit(1),
  );
  await pick(
    scope
      .query({ language: drafts.language, at: drafts.updatedAt })
      .from(drafts)
      .where(and(inList(drafts.id, ids.drafts), isNotNull(drafts.language)))
      .orderBy(desc(drafts.updatedAt))
      .limit(1),
  );
  await pick(
    scope
      .query({ language: formRequests.locale, at: formRequests.createdAt })
      .from(formRequests)
      .where(and(inList(formRequests.id, ids.formRequests), isNotNull(formRequests.locale)))
      .orderBy(desc(formRequests.createdAt))
      .limit(1),
  );
  const sessionLanguage = sql<string | null>`${formSessions.config}->>'language'`;
  await pick(
    scope
      .query({ language: sessionLanguage, at: formSessions.createdAt })
      .from(formSessions)
      .where(and(inList(formSessions.id, ids.embedSessions), isNotNull(sessionLanguage)))
      .orderBy(desc(formSessions.createdAt))
      .limit(1),
  );
  const known = candidates
    .filter((c): c is { language: PatientLanguage; at: Date | null } => isPatientLanguage(c.language))
    .sort((a, b) => (b.at?.getTime() ?? 0) - (a.at?.getTime() ?? 0));
  return known[0]?.language ?? null;
}

/** The patient's language where known, else the organization's (German or English). */
export async function exportLanguageFor(
  ctx: OrgContext,
  records: PatientRecords,
): Promise<PatientExportLanguageSuggestion> {
  const patient = await patientLanguageOf(ctx, records);
  if (patient) return { language: patient, basis: "patient" };
  const { locale } = await ctx.scope.organization();
  return { language: isPatientLanguage(locale) ? locale : "de", basis: "organization" };
}
