import { eq, templates } from "@clinsign/db";
import type { OrgContext } from "../context";
import { AppError, notFound } from "../errors";

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
  if (pinned !== undefined) {
    if (draftKey !== undefined && draftKey !== pinned) {
      throw new AppError("forbidden", "this session is bound to another draftKey", { field: "draftKey" });
    }
    return pinned;
  }
  return draftKey === undefined ? undefined : `session:${ctx.formGrant.id}:${draftKey}`;
}

/** The draftKey as the caller named it (or the session pins it), for answers and webhooks. */
export function namedDraftKey(ctx: OrgContext, draftKey: string | undefined): string | undefined {
  return draftKey ?? ctx.formGrant?.config.draftKey;
}
