import { eq, formSessions, publicEmbeds, rowsOf, sql, type Db, type FormSessionConfig } from "@clinsign/db";
import type { EmbedSession, Services } from "../context";
import { sha256Hex } from "../crypto";
import { unauthorized } from "../errors";
import { addressKey, assertWithinLimit, consumeRateLimit, countAttempt, type WindowCount } from "../rate-limit";

/**
 * The credentials of the embedded form, looked up across organizations: an embed session's
 * sessionId (by hash) and a public embed's code. Each answers the organization it belongs to;
 * everything after it goes through `contextFor` and that organization's OrgScope.
 */

/**
 * Calls one embed session may make per minute (form calls, drafts, uploads, events), counted when
 * its sessionId is authenticated. A sessionId is handed to a browser: whoever holds it is held to
 * a pace a person filling in a form (with autosave every 1.5 s) never reaches, shared by every API
 * instance.
 */
export const FORM_SESSION_CALLS_PER_MINUTE = 120;

/**
 * Resolves a sessionId to its organization and embed session and counts the call against the
 * session's rate limit, in one statement (autosave makes this the second most frequent statement
 * there is): unknown or expired is 401 and counts nothing; past the limit is 429. Nothing is
 * cached, so a revoked session is refused by every process from the revoking commit on.
 */
export async function authenticateEmbedSession(
  db: Db,
  sessionId: string | undefined,
): Promise<{ organizationId: string; embedSession: EmbedSession }> {
  if (!sessionId || sessionId.length > 200) throw unauthorized("invalid or expired session");
  const result = await db.execute(sql`
    with session as (
      select id, organization_id, template_identifier, config, expires_at, public_embed_id from ${formSessions}
      where token_hash = ${sha256Hex(sessionId)} and expires_at > now()
      limit 1
    ),
    counted as (${countAttempt(sql`select 'form-session:' || session.id from session`, 60)})
    select session.id::text, session.organization_id::text, session.template_identifier, session.config::text as config,
      to_char(session.expires_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') as expires_at,
      session.public_embed_id::text,
      counted.count, counted.retry_after_seconds
    from session cross join counted`);
  const [row] = rowsOf<EmbedSessionRow & WindowCount>(result);
  if (!row) throw unauthorized("invalid or expired session");
  assertWithinLimit(row, FORM_SESSION_CALLS_PER_MINUTE);
  return {
    organizationId: row.organization_id,
    embedSession: {
      id: row.id,
      templateIdentifier: row.template_identifier,
      config: JSON.parse(row.config) as FormSessionConfig,
      expiresAt: new Date(row.expires_at),
      ...(row.public_embed_id && { publicEmbedId: row.public_embed_id }),
    },
  };
}

/** An embed session as `authenticateEmbedSession` selects it (text columns: the same on PGlite and postgres.js). */
interface EmbedSessionRow {
  id: string;
  organization_id: string;
  template_identifier: string;
  config: string;
  expires_at: string;
  public_embed_id: string | null;
}

export type PublicEmbedRow = typeof publicEmbeds.$inferSelect;

/**
 * The public embed a code names, across organizations: the code is how an anonymous visitor's
 * page learns its organization, as a token or a sessionId is for other callers.
 */
export async function findPublicEmbedByCode(services: Services, code: string): Promise<PublicEmbedRow | null> {
  const [row] = await services.db.select().from(publicEmbeds).where(eq(publicEmbeds.code, code)).limit(1);
  return row ?? null;
}

/** Counts one visitor session started from a public embed at one address or IPv6 /64 (429 past `limit`). */
export async function countVisitorStart(
  services: Services,
  embedId: string,
  ip: string | null,
  rule: { limit: number; windowSeconds: number },
): Promise<void> {
  await consumeRateLimit(services.db, { key: `public-embed:${embedId}:${addressKey(ip)}`, ...rule });
}
