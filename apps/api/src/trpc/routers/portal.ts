import type { TRPCRouterRecord } from "@trpc/server";
import { z } from "zod";
import {
  createFormRequestInput,
  listLimit,
  portalAccessInput,
  portalLinkInput,
  portalOtpInput,
  portalSaveDraftInput,
  portalSubmitInput,
  portalVerifyInput,
} from "@clinsign/contracts";

import { createFormRequest, listFormRequests } from "../../core/form-requests/form-requests";
import {
  checkOtp,
  openFormRequest,
  portalLoadDraft,
  portalSaveDraft,
  portalSubmit,
  portalTemplate,
  resendOtp,
  verifyIdentity,
} from "../../core/form-requests/portal";
import { orgProcedure, publicProcedure, staffProcedure } from "../trpc";

export const formRequestsRouter = {
  /** F1. */
  create: orgProcedure.input(createFormRequestInput).mutation(({ ctx, input }) => createFormRequest(ctx.org, input)),
  list: staffProcedure.input(z.object({ limit: listLimit(50, 200) })).query(({ ctx, input }) => listFormRequests(ctx.org, input)),
} satisfies TRPCRouterRecord;

/** The SMS portal pages: link token → identification → (OTP) → access token → form. */
export const portalRouter = {
  open: publicProcedure.input(portalLinkInput).query(({ ctx, input }) => openFormRequest(ctx.services, input)),
  verify: publicProcedure.input(portalVerifyInput).mutation(({ ctx, input }) => verifyIdentity(ctx.services, ctx.request, input)),
  resendOtp: publicProcedure.input(portalLinkInput).mutation(({ ctx, input }) => resendOtp(ctx.services, ctx.request, input)),
  checkOtp: publicProcedure.input(portalOtpInput).mutation(({ ctx, input }) => checkOtp(ctx.services, ctx.request, input)),
  template: publicProcedure.input(portalAccessInput).query(({ ctx, input }) => portalTemplate(ctx.services, ctx.request, input)),
  loadDraft: publicProcedure.input(portalAccessInput).query(({ ctx, input }) => portalLoadDraft(ctx.services, ctx.request, input)),
  saveDraft: publicProcedure.input(portalSaveDraftInput).mutation(({ ctx, input }) => portalSaveDraft(ctx.services, ctx.request, input)),
  submit: publicProcedure.input(portalSubmitInput).mutation(({ ctx, input }) => portalSubmit(ctx.services, ctx.request, input)),
} satisfies TRPCRouterRecord;
