import type { TRPCRouterRecord } from "@trpc/server";
import { loginInput, passkeyAuthenticationInput, passkeyOptionsInput, passkeyRegistrationInput, secondFactorCodeInput, totpCodeInput, type LoginResult } from "@clinsign/contracts";
import type { RequestMeta } from "../../core/context";
import { passkeyAuthenticationOptions, passkeyRegistrationOptions } from "../../core/staff/passkeys";
import {
  addPasskeyFactor,
  addTotpFactor,
  enrollAndSignIn,
  PENDING_SIGN_IN_COOKIE,
  readPendingSignIn,
  signInWithPasskey,
  verifySecondFactorCode,
  verifySecondFactorPasskey,
  type PasswordStepResult,
} from "../../core/staff/second-factor";
import { describeStaff, logIn, logOut, SESSION_COOKIE, SESSION_TTL_SECONDS } from "../../core/staff/staff";
import { totpSetupFor } from "../../core/staff/totp";
import { publicProcedure, staffProcedure, type TrpcContext } from "../trpc";

function cookie(ctx: TrpcContext, name: string, value: string, maxAgeSeconds: number): string {
  const secure = ctx.services.config.publicWebUrl.startsWith("https:") ? "; Secure" : "";
  return `${name}=${value}; Path=/; HttpOnly; SameSite=Lax; Max-Age=${maxAgeSeconds}${secure}`;
}

/** Sets the session cookie and ends the pending sign-in's. */
function signedIn(ctx: TrpcContext, session: { token: string }): LoginResult {
  ctx.setCookie(cookie(ctx, SESSION_COOKIE, session.token, SESSION_TTL_SECONDS));
  if (ctx.pendingSignIn) ctx.setCookie(cookie(ctx, PENDING_SIGN_IN_COOKIE, "", 0));
  return { ok: true, step: "done" };
}

function afterPasswordStep(ctx: TrpcContext, result: PasswordStepResult): LoginResult {
  if (result.step === "done") return signedIn(ctx, result.session);
  const seconds = Math.round((result.pending.expiresAt.getTime() - Date.now()) / 1000);
  ctx.setCookie(cookie(ctx, PENDING_SIGN_IN_COOKIE, result.pending.token, seconds));
  return { ok: true, step: result.step, ...(result.methods && { methods: result.methods }) };
}

const pendingEnrollment = (ctx: TrpcContext) => readPendingSignIn(ctx.services.db, ctx.pendingSignIn, "enroll");
const meta = (ctx: TrpcContext): RequestMeta => ctx.request;

/**
 * Signing in: the password step, then (with a factor) the second step on the pending sign-in
 * cookie, or (where one is required and none exists) setting up a first factor. Passwordless
 * passkey sign-in is its own door.
 */
export const authRouter = {
  login: publicProcedure.input(loginInput).mutation(async ({ ctx, input }) => afterPasswordStep(ctx, await logIn(ctx.services, input, ctx.request))),
  verifyCode: publicProcedure
    .input(secondFactorCodeInput)
    .mutation(async ({ ctx, input }) => signedIn(ctx, await verifySecondFactorCode(ctx.services, ctx.pendingSignIn, input, meta(ctx)))),
  /**
   * Passkey options: for the second step, the pending sign-in's account's passkeys; passwordless,
   * any discoverable passkey (a leftover pending cookie does not matter then).
   */
  passkeyOptions: publicProcedure.input(passkeyOptionsInput).mutation(async ({ ctx, input }) => {
    const pending = input.secondStep ? await readPendingSignIn(ctx.services.db, ctx.pendingSignIn, "second_factor") : null;
    return passkeyAuthenticationOptions(ctx.services, pending?.userId ?? null);
  }),
  verifyPasskey: publicProcedure
    .input(passkeyAuthenticationInput)
    .mutation(async ({ ctx, input }) => signedIn(ctx, await verifySecondFactorPasskey(ctx.services, ctx.pendingSignIn, input.response, meta(ctx)))),
  passkeySignIn: publicProcedure
    .input(passkeyAuthenticationInput)
    .mutation(async ({ ctx, input }) => signedIn(ctx, await signInWithPasskey(ctx.services, input.response, meta(ctx)))),
  /** Setting up a first factor where the organization requires one (pending `enroll` sign-in). */
  enrollTotpStart: publicProcedure.mutation(async ({ ctx }) => totpSetupFor(ctx.services, (await pendingEnrollment(ctx)).userId)),
  enrollTotpConfirm: publicProcedure.input(totpCodeInput).mutation(async ({ ctx, input }) => {
    const pending = await pendingEnrollment(ctx);
    const { session, recoveryCodes } = await enrollAndSignIn(ctx.services, pending, meta(ctx), () => addTotpFactor(ctx.services, pending.userId, input.code, meta(ctx)));
    return { ...signedIn(ctx, session), recoveryCodes };
  }),
  enrollPasskeyOptions: publicProcedure.mutation(async ({ ctx }) => passkeyRegistrationOptions(ctx.services, (await pendingEnrollment(ctx)).userId)),
  enrollPasskeyVerify: publicProcedure.input(passkeyRegistrationInput).mutation(async ({ ctx, input }) => {
    const pending = await pendingEnrollment(ctx);
    const { session, recoveryCodes } = await enrollAndSignIn(ctx.services, pending, meta(ctx), () => addPasskeyFactor(ctx.services, pending.userId, input, meta(ctx)));
    return { ...signedIn(ctx, session), recoveryCodes };
  }),
  logout: publicProcedure.mutation(async ({ ctx }) => {
    await logOut(ctx.services.db, ctx.sessionCookie);
    ctx.setCookie(cookie(ctx, SESSION_COOKIE, "", 0));
    return { ok: true as const };
  }),
  me: staffProcedure.query(({ ctx }) => describeStaff(ctx.staff, ctx.services.devCertificate)),
} satisfies TRPCRouterRecord;
