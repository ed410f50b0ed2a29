import type { TRPCRouterRecord } from "@trpc/server";
import { createLegalHoldInput, legalHoldListInput, releaseLegalHoldInput } from "@clinsign/contracts";
import { createLegalHold, listLegalHolds, releaseLegalHold } from "../../core/retention/legal-holds";
import { staffProcedure } from "../trpc";

export const retentionRouter = {
  legalHolds: staffProcedure.input(legalHoldListInput).query(({ ctx, input }) => listLegalHolds(ctx.org, input)),
  placeLegalHold: staffProcedure
    .input(createLegalHoldInput)
    .mutation(({ ctx, input }) => createLegalHold(ctx.org, input)),
  releaseLegalHold: staffProcedure
    .input(releaseLegalHoldInput)
    .mutation(({ ctx, input }) => releaseLegalHold(ctx.org, input)),
} satisfies TRPCRouterRecord;
