import { eq, templates } from "@clinsign/db";
import type { OrgContext } from "../context";
import { AppError, notFound } from "../errors";

export type TemplateRow = typeof templates.$inferSelect;

/**
 * The template a form call works on: the session's own template, or the one named by
 * `templateIdentifier` for token callers. Only `active` templates take drafts and submissions.
 */
export async function resolveFormTemplate(ctx: OrgContext, identifier: string | undefined): Promise<TemplateRow> {
  let wanted = identifier;
  if (ctx.session) {
    if (wanted !== undefined && wanted !== ctx.session.templateIdentifier) {
      throw new AppError("forbidden", "this session belongs to another template", { field: "templateIdentifier" });
    }
    wanted = ctx.session.templateIdentifier;
  }
  if (!wanted) throw new AppError("invalid_request", "templateIdentifier: is required", { field: "templateIdentifier" });
  const [row] = await ctx.scope.select(templates, eq(templates.identifier, wanted)).limit(1);
  if (!row || row.status !== "active") throw notFound("active template", { field: "templateIdentifier" });
  return row;
}

/** The draft a call names: its own draftKey, else the session's configured one. */
export function resolveDraftKey(ctx: OrgContext, draftKey: string | undefined): string | undefined {
  return draftKey ?? ctx.session?.config.draftKey;
}
