import type { TRPCRouterRecord } from "@trpc/server";
import {
  defaultBrandingInput,
  saveSsoSettingsInput,
  verifySsoDomainInput,
  updateOrganizationInput,
  uploadOrganizationSealInput,
} from "@clinsign/contracts";
import { getDefaultBranding, saveDefaultBranding } from "../../core/branding/branding";
import {
  getOrganizationSettings,
  rotateWebhookSecret,
  updateOrganizationSettings,
} from "../../core/organizations/organizations";
import { getOrganizationSeal, removeOrganizationSeal, uploadOrganizationSeal } from "../../core/signatures/org-seal";
import { getSsoSettings, saveSsoSettings, verifySsoDomain } from "../../core/identity/sso/settings";
import { staffProcedure } from "../trpc";

export const organizationRouter = {
  settings: staffProcedure.query(({ ctx }) => getOrganizationSettings(ctx.org)),
  update: staffProcedure
    .input(updateOrganizationInput)
    .mutation(({ ctx, input }) => updateOrganizationSettings(ctx.org, input)),
  rotateWebhookSecret: staffProcedure.mutation(({ ctx }) => rotateWebhookSecret(ctx.org)),
  /** The default branding: institutions without their own, and the form pages. */
  defaultBranding: staffProcedure.query(({ ctx }) => getDefaultBranding(ctx.org)),
  /** Owners and admins: the service's one branding rule (assertMayChangeBranding) decides, as for `/design`. */
  setDefaultBranding: staffProcedure
    .input(defaultBrandingInput)
    .mutation(({ ctx, input }) => saveDefaultBranding(ctx.org, input)),
  /** Single sign-on (OpenID Connect): admins only; the client secret is never returned. */
  sso: staffProcedure.query(({ ctx }) => getSsoSettings(ctx.org)),
  saveSso: staffProcedure
    .input(saveSsoSettingsInput)
    .mutation(({ ctx, input }) => saveSsoSettings(ctx.org, { ...input, staffSession: ctx.staff })),
  verifySsoDomain: staffProcedure
    .input(verifySsoDomainInput)
    .mutation(({ ctx, input }) => verifySsoDomain(ctx.org, input)),
  /** The organization's own seal (PKCS#12) and the service's default certificate. */
  seal: staffProcedure.query(({ ctx }) => getOrganizationSeal(ctx.org)),
  uploadSeal: staffProcedure
    .input(uploadOrganizationSealInput)
    .mutation(({ ctx, input }) => uploadOrganizationSeal(ctx.org, input)),
  removeSeal: staffProcedure.mutation(({ ctx }) => removeOrganizationSeal(ctx.org)),
} satisfies TRPCRouterRecord;
