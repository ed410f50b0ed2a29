import { and, apiTokens, eq, isNull, lt, or, preparedQuery, sql, type Executor } from "@clinsign/db";
import type { TokenPrincipal } from "../context";
import { safeEqual, sha256Hex } from "../crypto";
import { unauthorized } from "../errors";

/** How every API token starts (`cs_` and 43 base64url characters). */
export const API_TOKEN_PREFIX = "cs_";
/** lastUsedAt is refreshed at most this often, so authentication stays a read on the hot path. */
const LAST_USED_RESOLUTION_MS = 60_000;

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

/**
 * Resolves a bearer token to its organization, by the token's hash across all organizations (the
 * token says which one it belongs to). Unknown, revoked, or (when `organizationId` is given)
 * another organization's token: 401, with one message for all, so callers learn nothing.
 */
export async function authenticateApiToken(
  db: Executor,
  token: string | undefined,
  organizationId?: string,
): Promise<TokenPrincipal> {
  if (!token || !token.startsWith(API_TOKEN_PREFIX) || token.length > 200) throw unauthorized("invalid API token");
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
