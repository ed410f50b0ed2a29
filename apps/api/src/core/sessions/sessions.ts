import {
  createSessionInput,
  type CreatedSession,
  type CreateSessionInput,
  type ListPage,
  type ListSort,
  type PersonalLink,
  type SessionInfo,
} from "@clinsign/contracts";
import {
  eq,
  formSessions,
  getTableColumns,
  gt,
  institutions,
  isNull,
  rowsOf,
  sql,
  type Db,
  type FormSessionConfig,
} from "@clinsign/db";
import { recordAudit } from "../audit/audit";
import { getBranding, getDefaultBranding, knownInstitution } from "../branding/branding";
import { inTransaction, type EmbedSession, type OrgContext } from "../context";
import { randomSecret, sha256Hex } from "../crypto";
import { notFound, unauthorized } from "../errors";
import { assertMayChooseDestinations } from "../forms/destinations";
import { afterTimeIdCursor, exactTimestamp, keyOrder, toPage } from "../lists/keyset";
import { assertWithinLimit, countAttempt, type WindowCount } from "../rate-limit";
import { resolveFormTemplate } from "../forms/form-template";
import { phoneCountryOf } from "../form-requests/phone";
import { organizationProfile } from "../organizations/profile";

const DEFAULT_LIFETIME_MINUTES = 24 * 60;

/**
 * Creates an embed session for one active template. The sessionId (256 random bits) is returned
 * once; only its SHA-256 is stored, so a database leak does not hand out live sessions.
 */
export async function createFormSession(ctx: OrgContext, raw: CreateSessionInput): Promise<CreatedSession> {
  const input = createSessionInput.parse(raw);
  const template = await resolveFormTemplate(ctx, input.templateIdentifier);
  await assertMayChooseDestinations(
    ctx,
    { webhookUrl: input.config.webhookUrl, emailTo: input.config.emailTo },
    "config.",
  );
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
  const keyset = afterTimeIdCursor([formSessions.createdAt, formSessions.id], input.cursor, input.sort);
  const rows = await ctx.scope.db
    .select({ ...getTableColumns(formSessions), cursorAt: exactTimestamp(formSessions.createdAt) })
    .from(formSessions)
    .where(
      ctx.scope.owns(
        formSessions,
        isNull(formSessions.publicEmbedId),
        gt(formSessions.expiresAt, new Date()),
        input.templateIdentifier === undefined
          ? undefined
          : eq(formSessions.templateIdentifier, input.templateIdentifier),
        keyset,
      ),
    )
    .orderBy(...keyOrder([formSessions.createdAt, formSessions.id], input.sort))
    .limit(input.limit + 1);
  return toPage(
    rows,
    input.limit,
    (row) => ({
      id: row.id,
      templateIdentifier: row.templateIdentifier,
      rnummer: row.config.rnummer ?? null,
      draftKey: row.config.draftKey ?? null,
      createdAt: row.createdAt.toISOString(),
      expiresAt: row.expiresAt.toISOString(),
    }),
    (row) => [row.cursorAt, row.id],
  );
}

/**
 * Staff: ends an embed session now, e.g. when its link was sent to the wrong patient. Every later
 * call with its sessionId is 401; its drafts stay (and are deleted with the template's data).
 */
export async function revokeFormSession(ctx: OrgContext, input: { id: string }): Promise<{ ok: true }> {
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
 * Calls one embed session may make per minute (form calls, drafts, uploads, events), counted when
 * its sessionId is authenticated. A sessionId is handed to a browser: whoever holds it is held to
 * a pace a person filling in a form (with autosave every 1.5 s) never reaches, shared by every API
 * instance.
 */
export const FORM_SESSION_CALLS_PER_MINUTE = 120;

/**
 * Resolves a sessionId to its organization and session and counts the call against the session's
 * rate limit, in one statement (autosave makes this the second most frequent statement there is):
 * unknown or expired is 401 and counts nothing; past the limit is 429. Nothing is cached, so a
 * revoked session is refused by every process from the revoking commit on.
 */
export async function authenticateFormSession(
  db: Db,
  sessionId: string | undefined,
): Promise<{ organizationId: string; embedSession: EmbedSession }> {
  if (!sessionId || sessionId.length > 200) throw unauthorized("invalid or expired session");
  const result = await db.execute(sql`
    with session as (
      select id, organization_id, template_identifier, config, expires_at from ${formSessions}
      where token_hash = ${sha256Hex(sessionId)} and expires_at > now()
      limit 1
    ),
    counted as (${countAttempt(sql`select 'form-session:' || session.id from session`, 60)})
    select session.id::text, session.organization_id::text, session.template_identifier, session.config::text as config,
      to_char(session.expires_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') as expires_at,
      counted.count, counted.retry_after_seconds
    from session cross join counted`);
  const [row] = rowsOf<SessionRow & WindowCount>(result);
  if (!row) throw unauthorized("invalid or expired session");
  assertWithinLimit(row, FORM_SESSION_CALLS_PER_MINUTE);
  return {
    organizationId: row.organization_id,
    embedSession: {
      id: row.id,
      templateIdentifier: row.template_identifier,
      config: JSON.parse(row.config) as FormSessionConfig,
      expiresAt: new Date(row.expires_at),
    },
  };
}

/** A session as `authenticateFormSession` selects it (text columns: the same on PGlite and postgres.js). */
interface SessionRow {
  id: string;
  organization_id: string;
  template_identifier: string;
  config: string;
  expires_at: string;
}

/**
 * What the embedded form needs to know about its session: who is asking, and the branding of the
 * session's institution (else the organization's default).
 */
export async function describeSession(ctx: OrgContext, session: EmbedSession): Promise<SessionInfo> {
  const org = await organizationProfile(ctx);
  const institution = session.config.institutionId;
  const institutionId = institution === undefined ? undefined : await findInstitutionId(ctx, institution);
  return {
    branding: institutionId ? await getBranding(ctx, institutionId) : await getDefaultBranding(ctx),
    organizationName: org.name,
    phoneCountry: phoneCountryOf(org.phoneCountry),
    templateIdentifier: session.templateIdentifier,
    expiresAt: session.expiresAt.toISOString(),
    draftKey: session.config.draftKey ?? null,
    redirectUrl: session.config.redirectUrl ?? null,
    prefill: session.config.prefill ?? {},
    allowedOrigins: session.config.allowedOrigins ?? [],
  };
}

/** The institution a session names, if the organization still has it. */
async function findInstitutionId(ctx: OrgContext, externalId: string): Promise<string | undefined> {
  const [row] = await ctx.scope.select(institutions, eq(institutions.externalId, externalId)).limit(1);
  return row?.id;
}
