import type { z } from "zod";
import type { Branding, defaultBrandingInput, designInput } from "@clinsign/contracts";
import { eq, institutionBranding, institutions, organizationBranding } from "@clinsign/db";
import { recordAudit } from "../audit/audit";
import { settingChanges } from "../audit/changes";
import { inTransaction, type OrgContext } from "../context";
import { AppError, notFound } from "../errors";
import { actsForOrganization } from "../permissions";

/** The caller's `institution_id` inside this organization, created on first use. */
export async function ensureInstitution(ctx: OrgContext, externalId: string): Promise<string> {
  await ctx.scope.insert(institutions, { externalId }).onConflictDoNothing();
  const [row] = await ctx.scope.select(institutions, eq(institutions.externalId, externalId)).limit(1);
  return row!.id;
}

async function findInstitution(ctx: OrgContext, externalId: string) {
  const [row] = await ctx.scope.select(institutions, eq(institutions.externalId, externalId)).limit(1);
  return row;
}

const DESIGN_SAVED = "Design saved successfully";

/**
 * The one rule for changing branding (an institution's design, the default, an uploaded logo):
 * what every patient of the organization sees, under its name, is an administrator's decision.
 * Owners, admins and API tokens (A5 is an organization credential's path) may; the staff role
 * may look, not change (403).
 */
export function assertMayChangeBranding(ctx: OrgContext): void {
  if (actsForOrganization(ctx.actor)) return;
  throw new AppError("forbidden", "changing branding needs the admin or owner role");
}

/**
 * A5. POST creates an institution's branding (409 if it exists), PUT replaces it (404 if none).
 * Only validated values are stored: hex colours, a font from a fixed list, an https logo URL, so
 * nothing a caller sends can carry markup or CSS into the portal.
 */
/** The stored columns of a validated branding (an institution's or the default). */
function brandingValues(input: {
  logo_url?: string | null;
  design_parameters: { primaryColor?: string; accentColor?: string; font?: string };
}) {
  return {
    // An uploaded logo's path is kept as it is; a URL in its normalized form.
    logoUrl: input.logo_url ? (input.logo_url.startsWith("/") ? input.logo_url : new URL(input.logo_url).href) : null,
    primaryColor: input.design_parameters.primaryColor ?? null,
    accentColor: input.design_parameters.accentColor ?? null,
    font: input.design_parameters.font ?? null,
  };
}

const toBranding = (row: {
  logoUrl: string | null;
  primaryColor: string | null;
  accentColor: string | null;
  font: string | null;
}): Branding => ({
  logoUrl: row.logoUrl,
  primaryColor: row.primaryColor,
  accentColor: row.accentColor,
  font: row.font,
});

/** `/design`'s input as the door parsed it (`designInput`). */
export type Design = z.output<typeof designInput>;
/** The default branding's input as the door parsed it (`defaultBrandingInput`). */
export type DefaultBranding = z.output<typeof defaultBrandingInput>;

export async function saveDesign(
  ctx: OrgContext,
  input: Design,
  mode: "create" | "replace",
): Promise<{ message: string }> {
  assertMayChangeBranding(ctx);
  const values = brandingValues(input);
  return inTransaction(ctx, async (tx) => {
    const institutionId =
      mode === "create"
        ? await ensureInstitution(tx, input.institution_id)
        : (await findInstitution(tx, input.institution_id))?.id;
    const [existing] = institutionId
      ? await tx.scope
          .select(institutionBranding, eq(institutionBranding.institutionId, institutionId))
          .limit(1)
          .for("update")
      : [];
    if (mode === "create") {
      if (existing) {
        throw new AppError("conflict", "this institution already has a design; use PUT /design to replace it", {
          field: "institution_id",
          reason: "design_exists",
        });
      }
      await tx.scope.insert(institutionBranding, { institutionId: institutionId!, ...values });
    } else {
      if (!existing) throw notFound("design of this institution", { field: "institution_id" });
      await tx.scope.update(
        institutionBranding,
        { ...values, updatedAt: new Date() },
        eq(institutionBranding.id, existing.id),
      );
    }
    // A new design with its values; a replaced one with what changed, before and after.
    await recordAudit(
      tx,
      mode === "create"
        ? { action: "branding.created", metadata: { institutionId: input.institution_id, ...values } }
        : {
            action: "branding.updated",
            metadata: { institutionId: input.institution_id, ...settingChanges(existing!, values) },
          },
    );
    return { message: DESIGN_SAVED };
  });
}

/**
 * The branding the signing portal shows for an institution: its own, else the organization's
 * default, else null for the product's look.
 */
export async function getBranding(ctx: OrgContext, institutionId: string): Promise<Branding | null> {
  return (await institutionOwnBranding(ctx, institutionId)) ?? getDefaultBranding(ctx);
}

async function institutionOwnBranding(ctx: OrgContext, institutionId: string): Promise<Branding | null> {
  const [row] = await ctx.scope
    .select(institutionBranding, eq(institutionBranding.institutionId, institutionId))
    .limit(1);
  return row ? toBranding(row) : null;
}

/** The organization's default branding (institutions without their own, the form pages), or null. */
export async function getDefaultBranding(ctx: OrgContext): Promise<Branding | null> {
  const [row] = await ctx.scope.select(organizationBranding).limit(1);
  return row ? toBranding(row) : null;
}

/** Sets the organization's default branding, with the same validation as `/design`. */
export async function saveDefaultBranding(ctx: OrgContext, input: DefaultBranding): Promise<Branding> {
  assertMayChangeBranding(ctx);
  const values = brandingValues(input);
  return inTransaction(ctx, async (tx) => {
    const [existing] = await tx.scope.select(organizationBranding).limit(1).for("update");
    await tx.scope
      .insert(organizationBranding, values)
      .onConflictDoUpdate({ target: organizationBranding.organizationId, set: { ...values, updatedAt: new Date() } });
    await recordAudit(tx, {
      action: "branding.updated",
      metadata: { default: true, ...settingChanges(existing ?? {}, values) },
    });
    return toBranding(values);
  });
}

export async function getDesign(ctx: OrgContext, input: { institution_id: string }): Promise<Branding> {
  const institution = await findInstitution(ctx, input.institution_id);
  const found = institution ? await institutionOwnBranding(ctx, institution.id) : null;
  if (!found) throw notFound("design of this institution", { field: "institution_id" });
  return found;
}

/**
 * The organization's institution with the caller's id (as A1 and `/design` named it), for a form
 * page's branding; 400 when the organization has none of that id (a typo would otherwise silently
 * show the default branding).
 */
export async function knownInstitution(ctx: OrgContext, externalId: string, field = "institutionId"): Promise<string> {
  const row = await findInstitution(ctx, externalId);
  if (!row) {
    throw new AppError("invalid_request", `${field}: unknown institution`, { field }, [
      { key: field, message: "is not an institution of this organization" },
    ]);
  }
  return row.id;
}
