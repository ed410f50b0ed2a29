import type { TRPCRouterRecord } from "@trpc/server";
import {
  acceptInviteInput,
  describeInviteInput,
  loginInput,
  passkeyAuthenticationInput,
  passkeyOptionsInput,
  passkeyRegistrationInput,
  passkeySignInInput,
  secondFactorCodeInput,
  ssoLinkPasswordInput,
  ssoLookupInput,
  totpCodeInput,
  type LoginResult,
} from "@clinsign/contracts";
import type { Admission } from "../../core/identity/admission";
import {
  httpOnlyCookie,
  openedStaffSessionCookie,
  PENDING_SIGN_IN_COOKIE,
  SSO_LINK_COOKIE,
  staffSessionCookieHeader,
} from "../../core/identity/cookies";
import { acceptInvite, describeInvite } from "../../core/identity/invitations";
import { describeStaff, logIn, logOut } from "../../core/identity/password";
import { loadOutputFormat } from "../../core/organizations/output-format";
import {
  confirmTotpEnrollment,
  passkeyEnrollmentOptions,
  passkeySignInOptions,
  registerPasskeyEnrollment,
  signInWithPasskey,
  startTotpEnrollment,
  verifySecondFactorCode,
  verifySecondFactorPasskey,
  type SecondStepResult,
} from "../../core/identity/second-factor";
import { cancelSsoLink, confirmSsoLink, describeSsoLink, proveSsoLinkWithPassword } from "../../core/identity/sso/link";
import { lookupSsoProvider } from "../../core/identity/sso/sign-in";
import { publicStepProcedure, staffProcedure, type TrpcContext } from "../trpc";

/**
 * Turns a sign-in step's outcome into cookies and the answer: the staff session's cookie once
 * admitted (the pending sign-in's and a provider link's cleared), else the pending sign-in's
 * cookie for the next step.
 */
function answerStep(ctx: TrpcContext, result: Admission | SecondStepResult): LoginResult {
  const clear = (name: string) => ctx.setCookie(httpOnlyCookie(ctx.services.config, name, "", 0));
  if (result.step === "done") {
    ctx.setCookie(openedStaffSessionCookie(ctx.services.config, result.staffSession));
    if (ctx.pendingSignIn) clear(PENDING_SIGN_IN_COOKIE);
    if (ctx.ssoLink) clear(SSO_LINK_COOKIE);
    return { ok: true, step: "done", organization: result.staffSession.organization };
  }
  if (result.step === "confirm_link") {
    if (ctx.pendingSignIn) clear(PENDING_SIGN_IN_COOKIE);
    return { ok: true, step: "confirm_link" };
  }
  const seconds = Math.round((result.pending.expiresAt.getTime() - Date.now()) / 1000);
  ctx.setCookie(httpOnlyCookie(ctx.services.config, PENDING_SIGN_IN_COOKIE, result.pending.token, seconds));
  return { ok: true, step: result.step, ...(result.methods && { methods: result.methods }) };
}

/**
 * Signing in: every door ends in admission (core/identity/admission.ts), which applies the chosen
 * organization's rules and answers the staff session, the second step on the pending sign-in
 * cookie, or first-factor set-up. Connecting a provider to an existing account (`ssoLink*`) runs
 * on the link cookie the single sign-on callback set.
 */
export const authRouter = {
  login: publicStepProcedure
    .input(loginInput)
    .mutation(async ({ ctx, input }) => answerStep(ctx, await logIn(ctx.pub, input))),
  verifyCode: publicStepProcedure
    .input(secondFactorCodeInput)
    .mutation(async ({ ctx, input }) =>
      answerStep(ctx, await verifySecondFactorCode(ctx.pub, { ...input, pendingSignIn: ctx.pendingSignIn })),
    ),
  passkeyOptions: publicStepProcedure
    .input(passkeyOptionsInput)
    .mutation(({ ctx, input }) => passkeySignInOptions(ctx.pub, { ...input, pendingSignIn: ctx.pendingSignIn })),
  verifyPasskey: publicStepProcedure
    .input(passkeyAuthenticationInput)
    .mutation(async ({ ctx, input }) =>
      answerStep(ctx, await verifySecondFactorPasskey(ctx.pub, { ...input, pendingSignIn: ctx.pendingSignIn })),
    ),
  passkeySignIn: publicStepProcedure
    .input(passkeySignInInput)
    .mutation(async ({ ctx, input }) => answerStep(ctx, await signInWithPasskey(ctx.pub, input))),
  /** Setting up a first factor where the organization requires one (pending `enroll` sign-in). */
  enrollTotpStart: publicStepProcedure.mutation(({ ctx }) =>
    startTotpEnrollment(ctx.pub, { pendingSignIn: ctx.pendingSignIn }),
  ),
  enrollTotpConfirm: publicStepProcedure.input(totpCodeInput).mutation(async ({ ctx, input }) => {
    const { admission, recoveryCodes } = await confirmTotpEnrollment(ctx.pub, {
      ...input,
      pendingSignIn: ctx.pendingSignIn,
    });
    return { ...answerStep(ctx, admission), recoveryCodes };
  }),
  enrollPasskeyOptions: publicStepProcedure.mutation(({ ctx }) =>
    passkeyEnrollmentOptions(ctx.pub, { pendingSignIn: ctx.pendingSignIn }),
  ),
  enrollPasskeyVerify: publicStepProcedure.input(passkeyRegistrationInput).mutation(async ({ ctx, input }) => {
    const { admission, recoveryCodes } = await registerPasskeyEnrollment(ctx.pub, {
      ...input,
      pendingSignIn: ctx.pendingSignIn,
    });
    return { ...answerStep(ctx, admission), recoveryCodes };
  }),
  logout: publicStepProcedure.mutation(async ({ ctx }) => {
    await logOut(ctx.pub, ctx.sessionCookie);
    ctx.setCookie(staffSessionCookieHeader(ctx.services.config, "", 0));
    return { ok: true as const };
  }),
  /** The single sign-on provider for a typed e-mail address's domain, or an organization's login URL. */
  ssoProvider: publicStepProcedure.input(ssoLookupInput).query(({ ctx, input }) => lookupSsoProvider(ctx.pub, input)),
  /** Connecting a provider's login to an existing account: what is asked, the password, the confirmation. */
  ssoLinkDescribe: publicStepProcedure.query(({ ctx }) => describeSsoLink(ctx.pub, { linkToken: ctx.ssoLink })),
  ssoLinkPassword: publicStepProcedure
    .input(ssoLinkPasswordInput)
    .mutation(async ({ ctx, input }) =>
      answerStep(ctx, await proveSsoLinkWithPassword(ctx.pub, { ...input, linkToken: ctx.ssoLink })),
    ),
  ssoLinkConfirm: publicStepProcedure.mutation(async ({ ctx }) =>
    answerStep(ctx, await confirmSsoLink(ctx.pub, { linkToken: ctx.ssoLink })),
  ),
  ssoLinkCancel: publicStepProcedure.mutation(async ({ ctx }) => {
    await cancelSsoLink(ctx.pub, { linkToken: ctx.ssoLink });
    ctx.setCookie(httpOnlyCookie(ctx.services.config, SSO_LINK_COOKIE, "", 0));
    return { ok: true as const };
  }),
  me: staffProcedure.query(async ({ ctx }) => ({
    ...describeStaff(ctx.staff, ctx.services.devCertificate, (await loadOutputFormat(ctx.org)).timeZone),
    sealLevel: ctx.services.config.tsa ? ("B-LTA" as const) : ("B-B" as const),
  })),
} satisfies TRPCRouterRecord;

/** The invite link's page: public, the link's secret is the credential; accepting it is a sign-in like any other. */
export const invitationsRouter = {
  describe: publicStepProcedure.input(describeInviteInput).query(({ ctx, input }) => describeInvite(ctx.pub, input)),
  accept: publicStepProcedure
    .input(acceptInviteInput)
    .mutation(async ({ ctx, input }) => answerStep(ctx, await acceptInvite(ctx.pub, input))),
} satisfies TRPCRouterRecord;
