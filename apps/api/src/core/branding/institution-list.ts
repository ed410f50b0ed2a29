import type { InstitutionBrandingItem, InstitutionIdList, ListPage, ListSort } from "@clinsign/contracts";
import { eq, institutionBranding, institutions, sql } from "@clinsign/db";
import type { OrgContext } from "../context";
import { page } from "../lists/keyset";

/**
 * Staff: the institutions that have their own branding (A5), most recently changed first; the
 * others show the organization default. Keyset pages on (updated_at, id) (migration 0009).
 */
export async function listInstitutionBrandingPage(
  ctx: OrgContext,
  input: { cursor?: string; limit: number; sort: ListSort },
): Promise<ListPage<InstitutionBrandingItem>> {
  const b = institutionBranding;
  const query = ctx.scope
    .query({
      institutionId: institutions.externalId,
      logoUrl: b.logoUrl,
      primaryColor: b.primaryColor,
      accentColor: b.accentColor,
      font: b.font,
      updatedAt: b.updatedAt,
    })
    .from(b)
    .innerJoin(institutions, eq(institutions.id, b.institutionId));
  return page(query, [b.updatedAt, b.id], input, (row) => ({
    institutionId: row.institutionId,
    logoUrl: row.logoUrl,
    primaryColor: row.primaryColor,
    accentColor: row.accentColor,
    font: row.font as InstitutionBrandingItem["font"],
    updatedAt: row.updatedAt.toISOString(),
  }));
}

/**
 * Staff: the organization's institution ids (every one a request or a design named), for pickers:
 * alphabetical, those starting with `prefix` (case as stored), at most `limit`. The range
 * condition lets the (organization_id, external_id) index start at the prefix.
 */
export async function listInstitutionIds(
  ctx: OrgContext,
  input: { prefix?: string; limit: number },
): Promise<InstitutionIdList> {
  const prefix = input.prefix ?? "";
  const rows = await ctx.scope
    .query({
      institutionId: institutions.externalId,
      hasBranding: sql<boolean>`${institutionBranding.id} is not null`,
    })
    .from(institutions)
    .leftJoin(institutionBranding, eq(institutionBranding.institutionId, institutions.id))
    .where(
      prefix ? sql`${institutions.externalId} >= ${prefix}` : undefined,
      prefix ? sql`starts_with(${institutions.externalId}, ${prefix})` : undefined,
    )
    .orderBy(institutions.externalId)
    .limit(input.limit + 1);
  return {
    items: rows
      .slice(0, input.limit)
      .map((r) => ({ institutionId: r.institutionId, hasBranding: Boolean(r.hasBranding) })),
    hasMore: rows.length > input.limit,
  };
}
