import type { TRPCRouterRecord } from "@trpc/server";
import { updateOrganizationInput } from "@clinsign/contracts";
import { getOrganizationSettings, rotateWebhookSecret, updateOrganizationSettings } from "../../core/organizations/organizations";
import { adminProcedure, staffProcedure } from "../trpc";

export const organizationRouter = {
  settings: staffProcedure.query(({ ctx }) => getOrganizationSettings(ctx.org)),
  update: adminProcedure.input(updateOrganizationInput).mutation(({ ctx, input }) => updateOrganizationSettings(ctx.org, input)),
  rotateWebhookSecret: adminProcedure.mutation(({ ctx }) => rotateWebhookSecret(ctx.org)),
} satisfies TRPCRouterRecord;
