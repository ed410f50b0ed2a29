import type { ApiTokenSummary } from "@clinsign/contracts";
import { apiTokens, desc, eq, isNull } from "@clinsign/db";
import { recordAudit } from "../audit/audit";
import { inTransaction, type OrgContext } from "../context";
import { API_TOKEN_PREFIX } from "../credentials/api-tokens";
import { randomSecret, sha256Hex } from "../crypto";
import { notFound } from "../errors";

// Checking a token (by its hash, across organizations) is core/credentials/api-tokens.ts.

/** Characters of the token kept in clear, enough to tell tokens apart in a list. */
const VISIBLE_PREFIX_LENGTH = API_TOKEN_PREFIX.length + 8;

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
  const token = `${API_TOKEN_PREFIX}${randomSecret(32)}`;
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
export async function listApiTokens(
  ctx: OrgContext,
  input: { limit: number } = { limit: 200 },
): Promise<ApiTokenSummary[]> {
  const rows = await ctx.scope.select(apiTokens).orderBy(desc(apiTokens.createdAt)).limit(input.limit);
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
