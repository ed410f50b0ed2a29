import type { TRPCRouterRecord } from "@trpc/server";
import { createFormRequestInput, formRequestRef, listFormRequestsPageInput } from "@clinsign/contracts";
import { createFormRequest } from "../../core/form-requests/form-requests";
import {
  cancelFormRequest,
  listFormRequestMessages,
  listFormRequestPage,
  resendFormRequestLink,
} from "../../core/form-requests/request-follow-up";
import { orgProcedure, staffProcedure } from "../trpc";

export const formRequestsRouter = {
  /** F1 (REST POST /api/portal/request); staff send from the admin UI through the same service. */
  create: orgProcedure.input(createFormRequestInput).mutation(({ ctx, input }) => createFormRequest(ctx.org, input)),
  /** Staff: the list contract (packages/contracts/src/lists.ts) with each request's derived state. */
  list: staffProcedure.input(listFormRequestsPageInput).query(({ ctx, input }) => listFormRequestPage(ctx.org, input)),
  /** Staff: a request's SMS delivery history (link, resent links, OTP codes). */
  messages: staffProcedure.input(formRequestRef).query(({ ctx, input }) => listFormRequestMessages(ctx.org, input)),
  /** Staff: a new link by SMS; the old link stops opening. */
  resend: staffProcedure.input(formRequestRef).mutation(({ ctx, input }) => resendFormRequestLink(ctx.org, input)),
  /** Staff: the link stops opening now. */
  cancel: staffProcedure.input(formRequestRef).mutation(({ ctx, input }) => cancelFormRequest(ctx.org, input)),
} satisfies TRPCRouterRecord;
