import type { TRPCRouterRecord } from "@trpc/server";
import { defaultBrandingInput, updateOrganizationInput } from "@clinsign/contracts";
import { getDefaultBranding, saveDefaultBranding } from "../../core/branding/branding";
import { getOrganizationSettings, rotateWebhookSecret, updateOrganizationSettings } from "../../core/organizations/organizations";
import { staffProcedure } from "../trpc";

export const organizationRouter = {
  settings: staffProcedure.query(({ ctx }) => getOrganizationSettings(ctx.org)),
  update: staffProcedure.input(updateOrganizationInput).mutation(({ ctx, input }) => updateOrganizationSettings(ctx.org, input)),
  rotateWebhookSecret: staffProcedure.mutation(({ ctx }) => rotateWebhookSecret(ctx.org)),
  /** The default branding: institutions without their own, and the form pages. */
  defaultBranding: staffProcedure.query(({ ctx }) => getDefaultBranding(ctx.org)),
  /** Owners and admins: the service's one branding rule (assertMayChangeBranding) decides, as for `/design`. */
  setDefaultBranding: staffProcedure.input(defaultBrandingInput).mutation(({ ctx, input }) => saveDefaultBranding(ctx.org, input)),
} satisfies TRPCRouterRecord;
