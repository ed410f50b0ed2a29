import type { TRPCRouterRecord } from "@trpc/server";
import { verifyPdfInput } from "@clinsign/contracts";
import { verifySealedPdf } from "../../core/public/verify-sealed-pdf";
import { publicStepProcedure } from "../trpc";

/** `/verify`: public; the REST door reads the PDF and counts the caller's checks. */
export const verifyRouter = {
  check: publicStepProcedure.input(verifyPdfInput).mutation(({ ctx, input }) => verifySealedPdf(ctx.pub, input)),
} satisfies TRPCRouterRecord;
