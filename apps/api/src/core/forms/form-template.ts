import type { PatientIdentifier } from "@clinsign/contracts";
import { eq, templates } from "@clinsign/db";
import type { OrgContext } from "../context";
import { AppError, notFound } from "../errors";
import { normaliseEntered } from "../form-requests/phone";

export type TemplateRow = typeof templates.$inferSelect;

/**
 * The template a form call works on: the session's own template, or the one named by
 * `templateIdentifier` for token callers. Only `active` templates take drafts and submissions.
 */
export async function resolveFormTemplate(ctx: OrgContext, identifier: string | undefined): Promise<TemplateRow> {
  const wanted = formTemplateIdentifier(ctx, identifier);
  const [row] = await ctx.scope.select(templates, eq(templates.identifier, wanted)).limit(1);
  if (!row || row.status !== "active") throw notFound("active template", { field: "templateIdentifier" });
  return row;
}

/**
 * The identifier of the template a form call works on, before it is read: the session's own, or the
 * one a token caller names. For callers that check the template inside their own statement (F7).
 */
export function formTemplateIdentifier(ctx: OrgContext, identifier: string | undefined): string {
  if (ctx.formGrant) {
    if (identifier !== undefined && identifier !== ctx.formGrant.templateIdentifier) {
      throw new AppError("forbidden", "this session belongs to another template", { field: "templateIdentifier" });
    }
    return ctx.formGrant.templateIdentifier;
  }
  if (!identifier)
    throw new AppError("invalid_request", "templateIdentifier: is required", { field: "templateIdentifier" });
  return identifier;
}

/**
 * The key under which the draft a call names is stored. Token callers reach the draftKey they
 * send. An embed session is one patient's credential, so it never reaches another patient's
 * draft: when it pins a draftKey, naming any other is 403; when it does not, the draftKey the
 * caller names (e.g. from the embed URL) lives in the session's own namespace, invisibly to the
 * caller (F7 to F10 with the same session and name find the same draft).
 */
export function resolveDraftKey(ctx: OrgContext, draftKey: string | undefined): string | undefined {
  if (!ctx.formGrant) return draftKey;
  const pinned = ctx.formGrant.config.draftKey;
  if (pinned !== undefined) return pinnedValue("draftKey", pinned, draftKey);
  return draftKey === undefined ? undefined : `session:${ctx.formGrant.id}:${draftKey}`;
}

/**
 * What a session pins wins: the caller may repeat it or leave it out, and naming another value is
 * 403 (an embed session is one patient's credential, so its browser cannot speak for another).
 */
function pinnedValue(
  field: string,
  pinned: string,
  given: string | undefined,
  same: (a: string, b: string) => boolean = (a, b) => a === b,
): string {
  if (given !== undefined && !same(given, pinned)) {
    throw new AppError("forbidden", `this session is bound to another ${field}`, { field });
  }
  return pinned;
}

/** A submission's patient identifiers and which of them only the patient's browser vouches for. */
export interface PatientIdentifiers {
  rnummer: string | null;
  phone: string | null;
  patientReported: PatientIdentifier[];
}

/**
 * Whose submission this is (issue 32). Organization credentials (API tokens, staff) name the
 * rnummer and phone they vouch for. An embed session's browser does not choose the patient: a
 * value the session pins is the submission's (another is 403, as for `draftKey`; a phone matches
 * in any format that normalises to the same number), and a value the session left open, or any
 * value of a public embed's visitor, is kept but marked patient-reported. The SMS form takes both
 * from its request (`submitForm`'s `smsForm`), not from here.
 */
export function resolvePatientIdentifiers(
  ctx: OrgContext,
  given: { rnummer?: string; phone?: string },
  phoneCountry: string,
): PatientIdentifiers {
  if (!ctx.formGrant) return { rnummer: given.rnummer ?? null, phone: given.phone ?? null, patientReported: [] };
  const { config } = ctx.formGrant;
  const patientReported: PatientIdentifier[] = [];
  const resolve = (field: PatientIdentifier, same?: (a: string, b: string) => boolean): string | null => {
    const pinned = config[field];
    if (pinned !== undefined) return pinnedValue(field, pinned, given[field], same);
    if (given[field] === undefined) return null;
    patientReported.push(field);
    return given[field];
  };
  const rnummer = resolve("rnummer");
  const phone = resolve("phone", (a, b) => {
    if (a === b) return true;
    const number = normaliseEntered(a, phoneCountry);
    return number !== null && number === normaliseEntered(b, phoneCountry);
  });
  return { rnummer, phone, patientReported };
}

/** The draftKey as the caller named it (or the session pins it), for answers and webhooks. */
export function namedDraftKey(ctx: OrgContext, draftKey: string | undefined): string | undefined {
  return draftKey ?? ctx.formGrant?.config.draftKey;
}
