import type { PublicEmbed, SavePublicEmbedInput, StartedVisitorSession } from "@clinsign/contracts";
import { and, eq, formSessions, gt, publicEmbeds, sql, templates, type VisitorPolicy } from "@clinsign/db";
import { recordAudit } from "../audit/audit";
import { settingChanges } from "../audit/changes";
import { inTransaction, type OrgContext } from "../context";
import type { PublicEmbedRow } from "../credentials/embed-sessions";
import { randomSecret, sha256Hex } from "../crypto";
import { AppError, notFound } from "../errors";
import { resolveFormTemplate } from "../forms/form-template";

/**
 * How long a visitor's session lives. The draft is reachable only with the sessionId the
 * visitor's browser holds, so it lasts as long as both: that storage and this lifetime (a shared
 * waiting-room tablet forgets an unfinished form by the next day).
 */
export const VISITOR_SESSION_HOURS = 24;

/**
 * Sessions one address may start from one public embed in `VISITOR_START_WINDOW_SECONDS`. A
 * clinic's waiting room shares one address, so the bound is generous; it stops a script from
 * filling the sessions table, not a family filling forms.
 */
export const VISITOR_STARTS_PER_WINDOW = 60;
export const VISITOR_START_WINDOW_SECONDS = 10 * 60;

/** How the embed treats the visitor's browser (issue 31: a shared tablet is the next patient's too). */
const visitorPolicyOf = (row: PublicEmbedRow): VisitorPolicy => ({
  mode: row.visitorMode,
  idleMinutes: row.idleMinutes,
});

/** The settings of a public embed a save can change (what its audit entry compares). */
const publicEmbedSettingsOf = (row: PublicEmbedRow) => ({
  enabled: row.enabled,
  allowedOrigins: row.allowedOrigins,
  visitorMode: row.visitorMode,
  idleMinutes: row.idleMinutes,
});

function toPublicEmbed(ctx: OrgContext, row: PublicEmbedRow): PublicEmbed {
  return {
    templateIdentifier: row.templateIdentifier,
    code: row.code,
    allowedOrigins: row.allowedOrigins,
    enabled: row.enabled,
    visitor: visitorPolicyOf(row),
    embedUrl: `${ctx.services.config.publicWebUrl}/embed/${encodeURIComponent(row.templateIdentifier)}?embed=${encodeURIComponent(row.code)}`,
    updatedAt: row.updatedAt.toISOString(),
  };
}

/** Staff: the template's public embed, or null before one was set up. */
export async function getPublicEmbed(
  ctx: OrgContext,
  input: { templateIdentifier: string },
): Promise<PublicEmbed | null> {
  const [row] = await ctx.scope
    .select(publicEmbeds, eq(publicEmbeds.templateIdentifier, input.templateIdentifier))
    .limit(1);
  return row ? toPublicEmbed(ctx, row) : null;
}

/**
 * Staff: sets up, changes or turns off a template's public embed. The code stays the same for the
 * template's life, so the snippet on the clinic's website keeps working through every change.
 * Turning it off ends every visitor's session at once; new origins and a new visitor policy reach
 * live sessions too (a tablet switched to "shared device" stops offering yesterday's form at once).
 */
export async function savePublicEmbed(ctx: OrgContext, input: SavePublicEmbedInput): Promise<PublicEmbed> {
  const allowedOrigins = [...new Set(input.allowedOrigins)];
  if (input.enabled && allowedOrigins.length === 0) {
    throw new AppError(
      "invalid_request",
      "allowedOrigins: name the website (origin) that embeds the form",
      { field: "allowedOrigins" },
      [{ key: "allowedOrigins", message: "name at least one origin, e.g. https://clinic.example" }],
    );
  }
  return inTransaction(ctx, async (tx) => {
    const [template] = await tx.scope.select(templates, eq(templates.identifier, input.templateIdentifier)).limit(1);
    if (!template) throw notFound("template", { field: "templateIdentifier" });
    const now = new Date();
    const visitor = input.visitor && { visitorMode: input.visitor.mode, idleMinutes: input.visitor.idleMinutes };
    const [before] = await tx.scope
      .select(publicEmbeds, eq(publicEmbeds.templateIdentifier, template.identifier))
      .limit(1)
      .for("update");
    const [row] = await tx.scope
      .insert(publicEmbeds, {
        templateIdentifier: template.identifier,
        code: `pe_${randomSecret(18)}`,
        allowedOrigins,
        enabled: input.enabled,
        ...visitor,
      })
      .onConflictDoUpdate({
        target: [publicEmbeds.organizationId, publicEmbeds.templateIdentifier],
        set: { allowedOrigins, enabled: input.enabled, ...visitor, updatedAt: now },
      })
      .returning();
    const live = and(eq(formSessions.publicEmbedId, row!.id), gt(formSessions.expiresAt, now));
    if (!input.enabled) {
      await tx.scope.update(formSessions, { expiresAt: now }, live);
    } else {
      await tx.scope.update(
        formSessions,
        {
          config: sql`${formSessions.config} || jsonb_build_object('allowedOrigins', ${JSON.stringify(allowedOrigins)}::jsonb, 'visitor', ${JSON.stringify(visitorPolicyOf(row!))}::jsonb)`,
        },
        live,
      );
    }
    await recordAudit(tx, {
      action: "config.updated",
      templateIdentifier: template.identifier,
      metadata: {
        kind: "public_embed",
        enabled: input.enabled,
        allowedOrigins,
        visitor: visitorPolicyOf(row!),
        // What this save changed, before and after (a new embed: from nothing).
        ...settingChanges(before ? publicEmbedSettingsOf(before) : {}, publicEmbedSettingsOf(row!)),
      },
    });
    return toPublicEmbed(tx, row!);
  });
}

/** Removes a deleted template's public embed (its visitors' sessions go with it). */
export async function deletePublicEmbedOf(tx: OrgContext, templateIdentifier: string): Promise<void> {
  await tx.scope.delete(publicEmbeds, eq(publicEmbeds.templateIdentifier, templateIdentifier));
}

/**
 * A visitor's own embed session, once core/public/embeds.ts found the embed its public code names
 * and counted the start: a fresh sessionId that only this browser holds (its storage, never a
 * URL), whose drafts live in the session's own namespace, so no visitor can reach another's
 * answers. An inactive template: 404.
 */
export async function startVisitor(ctx: OrgContext, embed: PublicEmbedRow): Promise<StartedVisitorSession> {
  const template = await resolveFormTemplate(ctx, embed.templateIdentifier);
  const sessionId = `fs_${randomSecret(32)}`;
  const expiresAt = new Date(Date.now() + VISITOR_SESSION_HOURS * 3_600_000);
  const visitor = visitorPolicyOf(embed);
  await ctx.scope.insert(formSessions, {
    templateIdentifier: template.identifier,
    tokenHash: sha256Hex(sessionId),
    config: { allowedOrigins: embed.allowedOrigins, visitor },
    publicEmbedId: embed.id,
    expiresAt,
  });
  return { sessionId, expiresAt: expiresAt.toISOString(), visitor };
}
