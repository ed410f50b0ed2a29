import type { TRPCRouterRecord } from "@trpc/server";
import {
  acceptInviteInput,
  describeInviteInput,
  loginInput,
  passkeyAuthenticationInput,
  passkeyOptionsInput,
  passkeyRegistrationInput,
  secondFactorCodeInput,
  ssoLookupInput,
  totpCodeInput,
  type LoginResult,
} from "@clinsign/contracts";
import { acceptInvite, describeInvite } from "../../core/identity/invitations";
import {
  confirmTotpEnrollment,
  PENDING_SIGN_IN_COOKIE,
  passkeyEnrollmentOptions,
  passkeySignInOptions,
  registerPasskeyEnrollment,
  signInWithPasskey,
  startTotpEnrollment,
  verifySecondFactorCode,
  verifySecondFactorPasskey,
  type PasswordStepResult,
} from "../../core/identity/second-factor";
import {
  describeStaff,
  httpOnlyCookie,
  logIn,
  logOut,
  openedStaffSessionCookie,
  staffSessionCookieHeader,
} from "../../core/identity/password";
import { lookupSsoProvider } from "../../core/identity/sso/sign-in";
import { publicProcedure, staffProcedure, type TrpcContext } from "../trpc";

/** Sets the cookie of a staff session `openStaffSession` opened. */
export function setStaffSessionCookie(ctx: TrpcContext, session: { token: string; expiresAt: Date }): void {
  ctx.setCookie(openedStaffSessionCookie(ctx.services.config, session));
}

/** Sets the staff session cookie and ends the pending sign-in's. */
function signedIn(ctx: TrpcContext, staffSession: { token: string; expiresAt: Date }): LoginResult {
  setStaffSessionCookie(ctx, staffSession);
  if (ctx.pendingSignIn) ctx.setCookie(httpOnlyCookie(ctx.services.config, PENDING_SIGN_IN_COOKIE, "", 0));
  return { ok: true, step: "done" };
}

function afterPasswordStep(ctx: TrpcContext, result: PasswordStepResult): LoginResult {
  if (result.step === "done") return signedIn(ctx, result.staffSession);
  const seconds = Math.round((result.pending.expiresAt.getTime() - Date.now()) / 1000);
  ctx.setCookie(httpOnlyCookie(ctx.services.config, PENDING_SIGN_IN_COOKIE, result.pending.token, seconds));
  return { ok: true, step: result.step, ...(result.methods && { methods: result.methods }) };
}

/**
 * Signing in: the password step, then (with a factor) the second step on the pending sign-in
 * cookie, or (where one is required and none exists) setting up a first factor. Passwordless
 * passkey sign-in is its own door.
 */
export const authRouter = {
  login: publicProcedure
    .input(loginInput)
    .mutation(async ({ ctx, input }) => afterPasswordStep(ctx, await logIn(ctx.services, ctx.request, input))),
  verifyCode: publicProcedure
    .input(secondFactorCodeInput)
    .mutation(async ({ ctx, input }) =>
      signedIn(
        ctx,
        await verifySecondFactorCode(ctx.services, ctx.request, { ...input, pendingSignIn: ctx.pendingSignIn }),
      ),
    ),
  passkeyOptions: publicProcedure
    .input(passkeyOptionsInput)
    .mutation(({ ctx, input }) =>
      passkeySignInOptions(ctx.services, ctx.request, { ...input, pendingSignIn: ctx.pendingSignIn }),
    ),
  verifyPasskey: publicProcedure
    .input(passkeyAuthenticationInput)
    .mutation(async ({ ctx, input }) =>
      signedIn(
        ctx,
        await verifySecondFactorPasskey(ctx.services, ctx.request, { ...input, pendingSignIn: ctx.pendingSignIn }),
      ),
    ),
  passkeySignIn: publicProcedure
    .input(passkeyAuthenticationInput)
    .mutation(async ({ ctx, input }) => signedIn(ctx, await signInWithPasskey(ctx.services, ctx.request, input))),
  /** Setting up a first factor where the organization requires one (pending `enroll` sign-in). */
  enrollTotpStart: publicProcedure.mutation(({ ctx }) =>
    startTotpEnrollment(ctx.services, ctx.request, { pendingSignIn: ctx.pendingSignIn }),
  ),
  enrollTotpConfirm: publicProcedure.input(totpCodeInput).mutation(async ({ ctx, input }) => {
    const { staffSession, recoveryCodes } = await confirmTotpEnrollment(ctx.services, ctx.request, {
      ...input,
      pendingSignIn: ctx.pendingSignIn,
    });
    return { ...signedIn(ctx, staffSession), recoveryCodes };
  }),
  enrollPasskeyOptions: publicProcedure.mutation(({ ctx }) =>
    passkeyEnrollmentOptions(ctx.services, ctx.request, { pendingSignIn: ctx.pendingSignIn }),
  ),
  enrollPasskeyVerify: publicProcedure.input(passkeyRegistrationInput).mutation(async ({ ctx, input }) => {
    const { staffSession, recoveryCodes } = await registerPasskeyEnrollment(ctx.services, ctx.request, {
      ...input,
      pendingSignIn: ctx.pendingSignIn,
    });
    return { ...signedIn(ctx, staffSession), recoveryCodes };
  }),
  logout: publicProcedure.mutation(async ({ ctx }) => {
    await logOut(ctx.services, ctx.sessionCookie);
    ctx.setCookie(staffSessionCookieHeader(ctx.services.config, "", 0));
    return { ok: true as const };
  }),
  /** The single sign-on provider for a typed e-mail address's domain, or an organization's login URL. */
  ssoProvider: publicProcedure
    .input(ssoLookupInput)
    .query(({ ctx, input }) => lookupSsoProvider(ctx.services, ctx.request, input)),
  me: staffProcedure.query(({ ctx }) => ({
    ...describeStaff(ctx.staff, ctx.services.devCertificate),
    sealLevel: ctx.services.config.tsa ? ("B-LTA" as const) : ("B-B" as const),
  })),
} satisfies TRPCRouterRecord;

/** The invite link's page: public, the link's secret is the credential. */
export const invitationsRouter = {
  describe: publicProcedure
    .input(describeInviteInput)
    .query(({ ctx, input }) => describeInvite(ctx.services, ctx.request, input)),
  accept: publicProcedure.input(acceptInviteInput).mutation(async ({ ctx, input }) => {
    setStaffSessionCookie(ctx, await acceptInvite(ctx.services, ctx.request, input));
    return { ok: true as const };
  }),
} satisfies TRPCRouterRecord;
