import type { TRPCRouterRecord } from "@trpc/server";
import { createTokenInput, revokeTokenInput } from "@clinsign/contracts";
import { createApiToken, listApiTokens, revokeApiToken } from "../../core/tokens/tokens";
import { staffProcedure } from "../trpc";

export const tokensRouter = {
  list: staffProcedure.query(({ ctx }) => listApiTokens(ctx.org)),
  create: staffProcedure.input(createTokenInput).mutation(({ ctx, input }) => createApiToken(ctx.org, input)),
  revoke: staffProcedure.input(revokeTokenInput).mutation(({ ctx, input }) => revokeApiToken(ctx.org, input)),
} satisfies TRPCRouterRecord;
