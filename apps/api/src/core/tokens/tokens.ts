import type { ApiTokenSummary } from "@clinsign/contracts";
import { and, apiTokens, desc, eq, isNull, lt, or, preparedQuery, sql, type Db, type OrgScope } from "@clinsign/db";
import { recordAudit } from "../audit/audit";
import { inTransaction, type OrgContext } from "../context";
import { randomSecret, safeEqual, sha256Hex } from "../crypto";
import { notFound, unauthorized } from "../errors";

const TOKEN_PREFIX = "cs_";
/** Characters of the token kept in clear, enough to tell tokens apart in a list. */
const VISIBLE_PREFIX_LENGTH = TOKEN_PREFIX.length + 8;
/** lastUsedAt is refreshed at most this often, so authentication stays a read on the hot path. */
const LAST_USED_RESOLUTION_MS = 60_000;

function toSummary(row: typeof apiTokens.$inferSelect): ApiTokenSummary {
  return {
    id: row.id,
    name: row.name,
    prefix: row.prefix,
    createdAt: row.createdAt.toISOString(),
    lastUsedAt: row.lastUsedAt?.toISOString() ?? null,
    revokedAt: row.revokedAt?.toISOString() ?? null,
  };
}

/** Issues a token; the clear value is returned here once and only its hash is stored. */
export async function createApiToken(ctx: OrgContext, input: { name: string }) {
  const token = `${TOKEN_PREFIX}${randomSecret(32)}`;
  return inTransaction(ctx, async (tx) => {
    const [row] = await tx.scope
      .insert(apiTokens, {
        name: input.name,
        prefix: token.slice(0, VISIBLE_PREFIX_LENGTH),
        tokenHash: sha256Hex(token),
        createdByUserId: ctx.actor.type === "user" ? ctx.actor.id : null,
      })
      .returning();
    await recordAudit(tx, { action: "token.created", metadata: { tokenId: row!.id, name: input.name } });
    return { id: row!.id, token, summary: toSummary(row!) };
  });
}

/** Newest first; bounded, since an organization keeps few tokens. */
export async function listApiTokens(scope: OrgScope, limit = 200): Promise<ApiTokenSummary[]> {
  const rows = await scope.select(apiTokens).orderBy(desc(apiTokens.createdAt)).limit(limit);
  return rows.map(toSummary);
}

export async function revokeApiToken(ctx: OrgContext, input: { id: string }): Promise<ApiTokenSummary> {
  return inTransaction(ctx, async (tx) => {
    const [row] = await tx.scope
      .update(apiTokens, { revokedAt: new Date() }, eq(apiTokens.id, input.id), isNull(apiTokens.revokedAt))
      .returning();
    if (!row) {
      const [existing] = await tx.scope.select(apiTokens, eq(apiTokens.id, input.id)).limit(1);
      if (!existing) throw notFound("token", { field: "id" });
      return toSummary(existing);
    }
    await recordAudit(tx, { action: "token.revoked", metadata: { tokenId: row.id, name: row.name } });
    return toSummary(row);
  });
}

/** Every API call looks its token up: built once, run with the hash. */
const activeTokenByHash = preparedQuery("active_token_by_hash", (db) =>
  db
    .select({
      id: apiTokens.id,
      organizationId: apiTokens.organizationId,
      tokenHash: apiTokens.tokenHash,
      lastUsedAt: apiTokens.lastUsedAt,
    })
    .from(apiTokens)
    .where(and(eq(apiTokens.tokenHash, sql.placeholder("hash")), isNull(apiTokens.revokedAt)))
    .limit(1),
);

export interface TokenPrincipal {
  tokenId: string;
  organizationId: string;
}

/**
 * Resolves a bearer token to its organization. Unknown, revoked, or (when `organizationId` is
 * given) another organization's token: 401, with one message for all, so callers learn nothing.
 */
export async function authenticateApiToken(
  db: Db,
  token: string | undefined,
  organizationId?: string,
): Promise<TokenPrincipal> {
  if (!token || !token.startsWith(TOKEN_PREFIX) || token.length > 200) throw unauthorized("invalid API token");
  const hash = sha256Hex(token);
  const [row] = await activeTokenByHash(db).execute({ hash });
  if (!row || !safeEqual(row.tokenHash, hash)) throw unauthorized("invalid API token");
  if (organizationId !== undefined && !safeEqual(row.organizationId, organizationId)) {
    throw unauthorized("invalid API token for this orgId");
  }
  if (!row.lastUsedAt || Date.now() - row.lastUsedAt.getTime() > LAST_USED_RESOLUTION_MS) {
    const staleBefore = new Date(Date.now() - LAST_USED_RESOLUTION_MS);
    await db
      .update(apiTokens)
      .set({ lastUsedAt: new Date() })
      .where(and(eq(apiTokens.id, row.id), or(isNull(apiTokens.lastUsedAt), lt(apiTokens.lastUsedAt, staleBefore))));
  }
  return { tokenId: row.id, organizationId: row.organizationId };
}
