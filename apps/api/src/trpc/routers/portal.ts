import type { TRPCRouterRecord } from "@trpc/server";
import {
  portalAccessInput,
  portalLinkInput,
  portalOtpInput,
  portalSaveDraftInput,
  portalSubmitInput,
  portalVerifyInput,
} from "@clinsign/contracts";

import {
  checkOtp,
  openFormRequest,
  PORTAL_ACCESS_COOKIE,
  portalLoadDraft,
  portalSaveDraft,
  portalSubmit,
  portalTemplate,
  resendOtp,
  verifyIdentity,
} from "../../core/form-requests/portal";
import { publicProcedure, type TrpcContext } from "../trpc";

/** The portal's pages and their tRPC door live under /f/ (the web app's /f/trpc proxy). */
const PORTAL_COOKIE_PATH = "/f/";

function setPortalAccess(ctx: TrpcContext, access: { accessToken: string; expiresAt: string } | { accessToken: null }) {
  const secure = ctx.services.config.publicWebUrl.startsWith("https:") ? "; Secure" : "";
  const maxAge = access.accessToken ? Math.max(0, Math.floor((Date.parse(access.expiresAt) - Date.now()) / 1000)) : 0;
  ctx.setCookie(`${PORTAL_ACCESS_COOKIE}=${access.accessToken ?? ""}; Path=${PORTAL_COOKIE_PATH}; HttpOnly; SameSite=Strict; Max-Age=${maxAge}${secure}`);
}

/** Identification answered: the access goes into the cookie, the page only learns what is next. */
function grantAccess(ctx: TrpcContext, step: { otpRequired: boolean; accessToken: string | null; expiresAt: string | null }) {
  if (step.accessToken && step.expiresAt) setPortalAccess(ctx, { accessToken: step.accessToken, expiresAt: step.expiresAt });
  return { otpRequired: step.otpRequired, accessExpiresAt: step.expiresAt };
}

/** The SMS portal pages: link token → identification → (OTP) → access token → form. */
export const portalRouter = {
  open: publicProcedure.input(portalLinkInput).query(({ ctx, input }) => openFormRequest(ctx.services, { ...input, accessToken: ctx.portalAccess })),
  verify: publicProcedure
    .input(portalVerifyInput)
    .mutation(async ({ ctx, input }) => grantAccess(ctx, await verifyIdentity(ctx.services, ctx.request, input))),
  resendOtp: publicProcedure.input(portalLinkInput).mutation(({ ctx, input }) => resendOtp(ctx.services, ctx.request, input)),
  checkOtp: publicProcedure
    .input(portalOtpInput)
    .mutation(async ({ ctx, input }) => grantAccess(ctx, { otpRequired: false, ...(await checkOtp(ctx.services, ctx.request, input)) })),
  template: publicProcedure
    .input(portalAccessInput)
    .query(({ ctx, input }) => portalTemplate(ctx.services, ctx.request, { ...input, accessToken: ctx.portalAccess })),
  loadDraft: publicProcedure
    .input(portalAccessInput)
    .query(({ ctx, input }) => portalLoadDraft(ctx.services, ctx.request, { ...input, accessToken: ctx.portalAccess })),
  saveDraft: publicProcedure
    .input(portalSaveDraftInput)
    .mutation(({ ctx, input }) => portalSaveDraft(ctx.services, ctx.request, { ...input, accessToken: ctx.portalAccess })),
  submit: publicProcedure.input(portalSubmitInput).mutation(async ({ ctx, input }) => {
    const result = await portalSubmit(ctx.services, ctx.request, { ...input, accessToken: ctx.portalAccess });
    setPortalAccess(ctx, { accessToken: null });
    return result;
  }),
} satisfies TRPCRouterRecord;
