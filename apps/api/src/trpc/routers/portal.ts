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
  IDENTITY_WINDOW_MS,
  PORTAL_ACCESS_COOKIE,
  PORTAL_IDENTITY_COOKIE,
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

function setPortalCookie(ctx: TrpcContext, name: string, value: string | null, maxAgeSeconds: number) {
  const secure = ctx.services.config.publicWebUrl.startsWith("https:") ? "; Secure" : "";
  const maxAge = value ? Math.max(0, Math.floor(maxAgeSeconds)) : 0;
  ctx.setCookie(
    `${name}=${value ?? ""}; Path=${PORTAL_COOKIE_PATH}; HttpOnly; SameSite=Strict; Max-Age=${maxAge}${secure}`,
  );
}

function setPortalAccess(ctx: TrpcContext, access: { accessToken: string; expiresAt: string } | { accessToken: null }) {
  setPortalCookie(
    ctx,
    PORTAL_ACCESS_COOKIE,
    access.accessToken,
    access.accessToken ? (Date.parse(access.expiresAt) - Date.now()) / 1000 : 0,
  );
}

/**
 * Identification answered: the access (or, before the OTP, the identification of this browser)
 * goes into a cookie; the page only learns what is next.
 */
function grantAccess(
  ctx: TrpcContext,
  step: { otpRequired: boolean; accessToken: string | null; expiresAt: string | null; identityToken?: string | null },
) {
  if (step.identityToken) setPortalCookie(ctx, PORTAL_IDENTITY_COOKIE, step.identityToken, IDENTITY_WINDOW_MS / 1000);
  if (step.accessToken && step.expiresAt) {
    setPortalAccess(ctx, { accessToken: step.accessToken, expiresAt: step.expiresAt });
    if (ctx.portalIdentity) setPortalCookie(ctx, PORTAL_IDENTITY_COOKIE, null, 0);
  }
  return { otpRequired: step.otpRequired, accessExpiresAt: step.expiresAt };
}

/** The SMS portal pages: link token → identification → (OTP) → access token → form. */
export const portalRouter = {
  open: publicProcedure
    .input(portalLinkInput)
    .query(({ ctx, input }) => openFormRequest(ctx.services, { ...input, accessToken: ctx.portalAccess })),
  verify: publicProcedure
    .input(portalVerifyInput)
    .mutation(async ({ ctx, input }) => grantAccess(ctx, await verifyIdentity(ctx.services, ctx.request, input))),
  resendOtp: publicProcedure
    .input(portalLinkInput)
    .mutation(({ ctx, input }) =>
      resendOtp(ctx.services, ctx.request, { ...input, identityToken: ctx.portalIdentity }),
    ),
  checkOtp: publicProcedure.input(portalOtpInput).mutation(async ({ ctx, input }) =>
    grantAccess(ctx, {
      otpRequired: false,
      ...(await checkOtp(ctx.services, ctx.request, { ...input, identityToken: ctx.portalIdentity })),
    }),
  ),
  template: publicProcedure
    .input(portalAccessInput)
    .query(({ ctx, input }) => portalTemplate(ctx.services, ctx.request, { ...input, accessToken: ctx.portalAccess })),
  loadDraft: publicProcedure
    .input(portalAccessInput)
    .query(({ ctx, input }) => portalLoadDraft(ctx.services, ctx.request, { ...input, accessToken: ctx.portalAccess })),
  saveDraft: publicProcedure
    .input(portalSaveDraftInput)
    .mutation(({ ctx, input }) =>
      portalSaveDraft(ctx.services, ctx.request, { ...input, accessToken: ctx.portalAccess }),
    ),
  submit: publicProcedure.input(portalSubmitInput).mutation(async ({ ctx, input }) => {
    const result = await portalSubmit(ctx.services, ctx.request, { ...input, accessToken: ctx.portalAccess });
    setPortalAccess(ctx, { accessToken: null });
    return result;
  }),
} satisfies TRPCRouterRecord;
