import type { TRPCRouterRecord } from "@trpc/server";
import { declineInput, openSigningInput, signingSessionInput, signInput } from "@clinsign/contracts";
import {
  declineRequest,
  getSignedSigningDocument,
  getSigningDocument,
  getSigningStatus,
  openSigning,
  signRequest,
} from "../../core/signatures/portal";
import { publicProcedure } from "../trpc";

/**
 * The patient's side of signing, used by the portal page: no account, the signing link or an A4
 * ticket is the credential, exchanged for a signing-session token the page keeps.
 */
export const signingRouter = {
  open: publicProcedure
    .input(openSigningInput)
    .mutation(({ ctx, input }) => openSigning(ctx.services, ctx.request, input)),
  document: publicProcedure
    .input(signingSessionInput)
    .query(({ ctx, input }) => getSigningDocument(ctx.services, ctx.request, input)),
  sign: publicProcedure.input(signInput).mutation(({ ctx, input }) => signRequest(ctx.services, ctx.request, input)),
  /** Where the request and the signer's copy stand (the page polls this while `sealing`). */
  status: publicProcedure
    .input(signingSessionInput)
    .query(({ ctx, input }) => getSigningStatus(ctx.services, ctx.request, input)),
  /** The signer's copy of the sealed PDF, within the organization's copy period; audited. */
  signedDocument: publicProcedure
    .input(signingSessionInput)
    .query(({ ctx, input }) => getSignedSigningDocument(ctx.services, ctx.request, input)),
  decline: publicProcedure
    .input(declineInput)
    .mutation(({ ctx, input }) => declineRequest(ctx.services, ctx.request, input)),
} satisfies TRPCRouterRecord;
