import { createSessionInput, type CreatedSession, type CreateSessionInput, type SessionInfo } from "@clinsign/contracts";
import { and, eq, formSessions, gt, type Db, type FormSessionConfig } from "@clinsign/db";
import { recordAudit } from "../audit/audit";
import { inTransaction, type FormSession, type OrgContext } from "../context";
import { randomSecret, sha256Hex } from "../crypto";
import { unauthorized } from "../errors";
import { resolveFormTemplate } from "../forms/form-template";

const DEFAULT_LIFETIME_MINUTES = 24 * 60;

/**
 * Creates an embed session for one active template. The sessionId (256 random bits) is returned
 * once; only its SHA-256 is stored, so a database leak does not hand out live sessions.
 */
export async function createFormSession(ctx: OrgContext, raw: CreateSessionInput): Promise<CreatedSession> {
  const input = createSessionInput.parse(raw);
  const template = await resolveFormTemplate(ctx, input.templateIdentifier);
  const { expiresInMinutes, ...config } = input.config;
  const sessionId = `fs_${randomSecret(32)}`;
  const expiresAt = new Date(Date.now() + (expiresInMinutes ?? DEFAULT_LIFETIME_MINUTES) * 60_000);
  return inTransaction(ctx, async (tx) => {
    const [row] = await tx.scope
      .insert(formSessions, { templateIdentifier: template.identifier, tokenHash: sha256Hex(sessionId), config: config as FormSessionConfig, expiresAt })
      .returning({ id: formSessions.id });
    // Which settings the session carries, not their values (URLs and addresses stay out of the log).
    await recordAudit(tx, {
      action: "config.updated",
      templateIdentifier: template.identifier,
      metadata: { kind: "session", sessionRecordId: row!.id, configKeys: Object.keys(config).sort(), expiresAt: expiresAt.toISOString() },
    });
    const embedUrl = `${ctx.services.config.publicWebUrl}/embed/${encodeURIComponent(template.identifier)}?session=${encodeURIComponent(sessionId)}`;
    return { sessionId, expiresAt: expiresAt.toISOString(), embedUrl };
  });
}

/** Resolves a sessionId to its organization and session; unknown or expired is 401. */
export async function authenticateFormSession(db: Db, sessionId: string | undefined): Promise<{ organizationId: string; session: FormSession }> {
  if (!sessionId || sessionId.length > 200) throw unauthorized("invalid or expired session");
  const [row] = await db
    .select()
    .from(formSessions)
    .where(and(eq(formSessions.tokenHash, sha256Hex(sessionId)), gt(formSessions.expiresAt, new Date())))
    .limit(1);
  if (!row) throw unauthorized("invalid or expired session");
  return {
    organizationId: row.organizationId,
    session: { id: row.id, templateIdentifier: row.templateIdentifier, config: row.config, expiresAt: row.expiresAt },
  };
}

/** What the embedded form needs to know about its session. */
export function describeSession(session: FormSession): SessionInfo {
  return {
    templateIdentifier: session.templateIdentifier,
    expiresAt: session.expiresAt.toISOString(),
    draftKey: session.config.draftKey ?? null,
    redirectUrl: session.config.redirectUrl ?? null,
    prefill: session.config.prefill ?? {},
    allowedOrigins: session.config.allowedOrigins ?? [],
  };
}
