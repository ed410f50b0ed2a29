import type { TRPCRouterRecord } from "@trpc/server";
import {
  createLegalHoldInput,
  legalHoldListInput,
  releaseLegalHoldInput,
  updateRetentionPolicyInput,
} from "@clinsign/contracts";
import { createLegalHold, listLegalHolds, releaseLegalHold } from "../../core/retention/legal-holds";
import { retentionSettingsOf, updateRetentionPolicy } from "../../core/retention/policies";
import { previewRetention } from "../../core/retention/sweep";
import { staffProcedure } from "../trpc";

export const retentionRouter = {
  settings: staffProcedure.query(({ ctx }) => retentionSettingsOf(ctx.org)),
  updatePolicy: staffProcedure
    .input(updateRetentionPolicyInput)
    .mutation(({ ctx, input }) => updateRetentionPolicy(ctx.org, input)),
  preview: staffProcedure.query(({ ctx }) => previewRetention(ctx.org)),
  legalHolds: staffProcedure.input(legalHoldListInput).query(({ ctx, input }) => listLegalHolds(ctx.org, input)),
  placeLegalHold: staffProcedure
    .input(createLegalHoldInput)
    .mutation(({ ctx, input }) => createLegalHold(ctx.org, input)),
  releaseLegalHold: staffProcedure
    .input(releaseLegalHoldInput)
    .mutation(({ ctx, input }) => releaseLegalHold(ctx.org, input)),
} satisfies TRPCRouterRecord;
