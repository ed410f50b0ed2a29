import type { TRPCRouterRecord } from "@trpc/server";
import { createTokenInput, revokeTokenInput } from "@clinsign/contracts";
import { createApiToken, listApiTokens, revokeApiToken } from "../../core/tokens/tokens";
import { adminProcedure } from "../trpc";

export const tokensRouter = {
  list: adminProcedure.query(({ ctx }) => listApiTokens(ctx.org.scope)),
  create: adminProcedure.input(createTokenInput).mutation(({ ctx, input }) => createApiToken(ctx.org, input)),
  revoke: adminProcedure.input(revokeTokenInput).mutation(({ ctx, input }) => revokeApiToken(ctx.org, input)),
} satisfies TRPCRouterRecord;
