import type { TRPCRouterRecord } from "@trpc/server";
import { verifyPdfInput } from "@clinsign/contracts";
import { verifySealedPdf } from "../../core/signatures/verify";
import { publicProcedure } from "../trpc";

/** `/verify`: public; the REST door reads the PDF and counts the caller's checks. */
export const verifyRouter = {
  check: publicProcedure.input(verifyPdfInput).mutation(({ ctx, input }) => verifySealedPdf(ctx.services, input)),
} satisfies TRPCRouterRecord;
