import type { TRPCRouterRecord } from "@trpc/server";
import { declineInput, openSigningInput, previewSigningInput, signInput } from "@clinsign/contracts";
import { declineRequest } from "../../core/signatures/decline";
import { signRequest } from "../../core/signatures/sign";
import { openSigningLink, previewSigningLink } from "../../core/public/signing-links";
import { getSignedSigningDocument, getSigningDocument, getSigningStatus } from "../../core/signatures/signing-reads";
import { getSigningPageTexts } from "../../core/signatures/page-images";
import { publicStepProcedure, signerProcedure } from "../trpc";

/**
 * The signer's side of signing, used by the signing page: no account, the signing link or an A4
 * ticket is the credential, exchanged by `open` for a signing pass (the wire's `sessionToken`)
 * that the page keeps and `signerProcedure` resolves on every later call.
 */
export const signingRouter = {
  open: publicStepProcedure.input(openSigningInput).mutation(({ ctx, input }) => openSigningLink(ctx.pub, input)),
  /** The view of a link open for signing, read without acting on it: the web server's first HTML of the page. */
  preview: publicStepProcedure.input(previewSigningInput).query(({ ctx, input }) => previewSigningLink(ctx.pub, input)),
  document: signerProcedure.query(({ ctx }) => getSigningDocument(ctx.signer)),
  /** The text of each page of the page images (`view.pageImages`), for screen readers. */
  pageTexts: signerProcedure.query(({ ctx }) => getSigningPageTexts(ctx.signer)),
  sign: signerProcedure.input(signInput).mutation(({ ctx, input }) => signRequest(ctx.signer, input)),
  /** Where the request and the signer's copy stand (the page polls this while `sealing`). */
  status: signerProcedure.query(({ ctx }) => getSigningStatus(ctx.signer)),
  /** The signer's copy of the sealed PDF, within the organization's copy period; audited. */
  signedDocument: signerProcedure.query(({ ctx }) => getSignedSigningDocument(ctx.signer)),
  decline: signerProcedure.input(declineInput).mutation(({ ctx, input }) => declineRequest(ctx.signer, input)),
} satisfies TRPCRouterRecord;
