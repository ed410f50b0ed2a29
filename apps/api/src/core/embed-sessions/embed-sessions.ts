import type { z } from "zod";
import type {
  createSessionInput,
  CreatedSession,
  ListPage,
  ListSort,
  PersonalLink,
  SessionInfo,
} from "@clinsign/contracts";
import { isPatientLanguage } from "@clinsign/contracts";
import { eq, formSessions, getTableColumns, gt, institutions, isNull, type FormSessionConfig } from "@clinsign/db";
import { recordAudit } from "../audit/audit";
import { getBranding, getDefaultBranding, knownInstitution } from "../branding/branding";
import { inTransaction, type OrgContext } from "../context";
import { randomSecret, sha256Hex } from "../crypto";
import { notFound, unauthorized } from "../errors";
import { assertMayChooseDestinations } from "../forms/destinations";
import { assertDeliverableWebhookUrl } from "../webhooks/destinations";
import { page } from "../lists/keyset";
import { resolveFormTemplate } from "../forms/form-template";
import { phoneCountryOf } from "../form-requests/phone";
import { organizationProfile } from "../organizations/profile";

const DEFAULT_LIFETIME_MINUTES = 24 * 60;

/**
 * Creates an embed session for one active template. The sessionId (256 random bits) is returned
 * once; only its SHA-256 is stored, so a database leak does not hand out live sessions.
 */
export async function createEmbedSession(
  ctx: OrgContext,
  input: z.output<typeof createSessionInput>,
): Promise<CreatedSession> {
  const template = await resolveFormTemplate(ctx, input.templateIdentifier);
  await assertMayChooseDestinations(
    ctx,
    { webhookUrl: input.config.webhookUrl, emailTo: input.config.emailTo },
    "config.",
  );
  // Refused here, as Settings refuses it, rather than failing at every delivery later.
  if (input.config.webhookUrl !== undefined)
    assertDeliverableWebhookUrl(ctx.services.config, input.config.webhookUrl, "config.webhookUrl");
  if (input.config.institutionId !== undefined)
    await knownInstitution(ctx, input.config.institutionId, "config.institutionId");
  const { expiresInMinutes, ...config } = input.config;
  const sessionId = `fs_${randomSecret(32)}`;
  const expiresAt = new Date(Date.now() + (expiresInMinutes ?? DEFAULT_LIFETIME_MINUTES) * 60_000);
  return inTransaction(ctx, async (tx) => {
    const [row] = await tx.scope
      .insert(formSessions, {
        templateIdentifier: template.identifier,
        tokenHash: sha256Hex(sessionId),
        config: config as FormSessionConfig,
        expiresAt,
      })
      .returning({ id: formSessions.id });
    // Which settings the session carries, not their values (URLs and addresses stay out of the log).
    await recordAudit(tx, {
      action: "config.updated",
      templateIdentifier: template.identifier,
      metadata: {
        kind: "session",
        sessionRecordId: row!.id,
        configKeys: Object.keys(config).sort(),
        expiresAt: expiresAt.toISOString(),
      },
    });
    const embedUrl = `${ctx.services.config.publicWebUrl}/embed/${encodeURIComponent(template.identifier)}?session=${encodeURIComponent(sessionId)}`;
    return { sessionId, expiresAt: expiresAt.toISOString(), embedUrl };
  });
}

/**
 * Staff: the personal links that are still valid (of one template, or all), newest first, in
 * keyset pages. Visitors' sessions of a public embed are anonymous and not listed.
 */
export async function listPersonalLinks(
  ctx: OrgContext,
  input: { templateIdentifier?: string; cursor?: string; limit: number; sort: ListSort },
): Promise<ListPage<PersonalLink>> {
  const query = ctx.scope
    .query(getTableColumns(formSessions))
    .from(formSessions)
    .where(
      isNull(formSessions.publicEmbedId),
      gt(formSessions.expiresAt, new Date()),
      input.templateIdentifier === undefined
        ? undefined
        : eq(formSessions.templateIdentifier, input.templateIdentifier),
    );
  return page(query, [formSessions.createdAt, formSessions.id], input, (row) => ({
    id: row.id,
    templateIdentifier: row.templateIdentifier,
    rnummer: row.config.rnummer ?? null,
    draftKey: row.config.draftKey ?? null,
    createdAt: row.createdAt.toISOString(),
    expiresAt: row.expiresAt.toISOString(),
  }));
}

/**
 * Staff: ends an embed session now, e.g. when its link was sent to the wrong patient. Every later
 * call with its sessionId is 401; its drafts stay (and are deleted with the template's data).
 */
export async function revokeEmbedSession(ctx: OrgContext, input: { id: string }): Promise<{ ok: true }> {
  return inTransaction(ctx, async (tx) => {
    const [row] = await tx.scope
      .update(
        formSessions,
        { expiresAt: new Date() },
        eq(formSessions.id, input.id),
        gt(formSessions.expiresAt, new Date()),
      )
      .returning({ id: formSessions.id, templateIdentifier: formSessions.templateIdentifier });
    if (!row) throw notFound("active session");
    await recordAudit(tx, {
      action: "config.updated",
      templateIdentifier: row.templateIdentifier,
      metadata: { kind: "session", sessionRecordId: row.id, revoked: true },
    });
    return { ok: true as const };
  });
}

/**
 * What the embedded form needs to know about its embed session (the caller's own): who is asking,
 * and the branding of the session's institution (else the organization's default). 401 for a
 * caller without one.
 */
export async function describeEmbedSession(ctx: OrgContext): Promise<SessionInfo> {
  const embedSession = ctx.formGrant;
  if (!embedSession) throw unauthorized("this call needs a sessionId");
  const org = await organizationProfile(ctx);
  const institution = embedSession.config.institutionId;
  const institutionId = institution === undefined ? undefined : await findInstitutionId(ctx, institution);
  return {
    branding: institutionId ? await getBranding(ctx, institutionId) : await getDefaultBranding(ctx),
    organizationName: org.name,
    phoneCountry: phoneCountryOf(org.phoneCountry),
    templateIdentifier: embedSession.templateIdentifier,
    expiresAt: embedSession.expiresAt.toISOString(),
    draftKey: embedSession.config.draftKey ?? null,
    redirectUrl: embedSession.config.redirectUrl ?? null,
    prefill: embedSession.config.prefill ?? {},
    allowedOrigins: embedSession.config.allowedOrigins ?? [],
    ...(isPatientLanguage(embedSession.config.language) && { language: embedSession.config.language }),
    ...(embedSession.config.visitor && { visitor: embedSession.config.visitor }),
  };
}

/** The institution a session names, if the organization still has it. */
async function findInstitutionId(ctx: OrgContext, externalId: string): Promise<string | undefined> {
  const [row] = await ctx.scope.select(institutions, eq(institutions.externalId, externalId)).limit(1);
  return row?.id;
}
