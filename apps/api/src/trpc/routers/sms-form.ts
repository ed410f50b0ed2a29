import type { TRPCRouterRecord } from "@trpc/server";
import { smsOtpInput, smsSaveDraftInput, smsSubmitInput, smsVerifyInput } from "@clinsign/contracts";
import { SMS_FORM_ACCESS_COOKIE, SMS_FORM_IDENTITY_COOKIE } from "../../core/credentials/sms-links";
import {
  loadSmsFormDraft,
  openSmsForm,
  saveSmsFormDraft,
  smsFormTemplate,
  submitSmsForm,
  verifyIdentity,
} from "../../core/form-requests/sms-form";
import { formHoldKey } from "../../core/forms/hold-key";
import { IDENTITY_WINDOW_MS } from "../../core/form-requests/sms-form-access";
import { checkOtp, resendOtp } from "../../core/form-requests/sms-otp";
import { smsIdentificationProcedure, smsLinkProcedure, smsRecipientProcedure, type TrpcContext } from "../trpc";

/** The SMS form's pages and their tRPC door live under /f/ (the web app's /f/trpc proxy). */
const SMS_FORM_COOKIE_PATH = "/f/";

function setSmsFormCookie(ctx: TrpcContext, name: string, value: string | null, maxAgeSeconds: number) {
  const secure = ctx.services.config.publicWebUrl.startsWith("https:") ? "; Secure" : "";
  const maxAge = value ? Math.max(0, Math.floor(maxAgeSeconds)) : 0;
  ctx.setCookie(
    `${name}=${value ?? ""}; Path=${SMS_FORM_COOKIE_PATH}; HttpOnly; SameSite=Strict; Max-Age=${maxAge}${secure}`,
  );
}

function setAccessCookie(ctx: TrpcContext, access: { accessToken: string; expiresAt: string } | { accessToken: null }) {
  setSmsFormCookie(
    ctx,
    SMS_FORM_ACCESS_COOKIE,
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
  if (step.identityToken)
    setSmsFormCookie(ctx, SMS_FORM_IDENTITY_COOKIE, step.identityToken, IDENTITY_WINDOW_MS / 1000);
  if (step.accessToken && step.expiresAt) {
    setAccessCookie(ctx, { accessToken: step.accessToken, expiresAt: step.expiresAt });
    if (ctx.smsFormIdentity) setSmsFormCookie(ctx, SMS_FORM_IDENTITY_COOKIE, null, 0);
  }
  return { otpRequired: step.otpRequired, accessExpiresAt: step.expiresAt };
}

/**
 * The SMS form's pages: link → identification → (OTP) → access cookie → form. The steps before
 * access hold the link only (`smsLinkProcedure`); the form's calls are the SMS recipient's
 * (`smsRecipientProcedure`).
 */
export const smsFormRouter = {
  open: smsLinkProcedure.query(({ ctx }) => openSmsForm(ctx.org, { link: ctx.link, accessToken: ctx.smsFormAccess })),
  verify: smsIdentificationProcedure
    .input(smsVerifyInput)
    .mutation(async ({ ctx, input }) => grantAccess(ctx, await verifyIdentity(ctx.org, { ...input, link: ctx.link }))),
  resendOtp: smsLinkProcedure.mutation(({ ctx }) =>
    resendOtp(ctx.org, { link: ctx.link, identityToken: ctx.smsFormIdentity }),
  ),
  checkOtp: smsLinkProcedure.input(smsOtpInput).mutation(async ({ ctx, input }) =>
    grantAccess(ctx, {
      otpRequired: false,
      ...(await checkOtp(ctx.org, { link: ctx.link, code: input.code, identityToken: ctx.smsFormIdentity })),
    }),
  ),
  template: smsRecipientProcedure.query(({ ctx }) => smsFormTemplate(ctx.org)),
  /** The key the page holds what it keeps offline with (issue 35). */
  holdKey: smsRecipientProcedure.query(({ ctx }) => formHoldKey(ctx.org)),
  loadDraft: smsRecipientProcedure.query(({ ctx }) => loadSmsFormDraft(ctx.org)),
  saveDraft: smsRecipientProcedure
    .input(smsSaveDraftInput)
    .mutation(({ ctx, input }) => saveSmsFormDraft(ctx.org, { values: input.values, language: input.language })),
  submit: smsRecipientProcedure.input(smsSubmitInput).mutation(async ({ ctx, input }) => {
    const result = await submitSmsForm(ctx.org, { values: input.values, language: input.language });
    setAccessCookie(ctx, { accessToken: null });
    return result;
  }),
} satisfies TRPCRouterRecord;
