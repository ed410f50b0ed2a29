import type { TRPCRouterRecord } from "@trpc/server";
import { acceptInviteInput, describeInviteInput, loginInput, ssoLookupInput } from "@clinsign/contracts";
import { acceptInvite, describeInvite } from "../../core/staff/invites";
import { describeStaff, logIn, logOut, openedSessionCookie, sessionCookieHeader } from "../../core/staff/staff";
import { lookupSsoProvider } from "../../core/sso/sign-in";
import { publicProcedure, staffProcedure, type TrpcContext } from "../trpc";

const sessionCookie = (ctx: TrpcContext, value: string, maxAgeSeconds: number) => sessionCookieHeader(ctx.services.config, value, maxAgeSeconds);

/** Sets the cookie of a session `openStaffSession` opened. */
export function setStaffSessionCookie(ctx: TrpcContext, session: { token: string; expiresAt: Date }): void {
  ctx.setCookie(openedSessionCookie(ctx.services.config, session));
}

export const authRouter = {
  login: publicProcedure.input(loginInput).mutation(async ({ ctx, input }) => {
    setStaffSessionCookie(ctx, await logIn(ctx.services, input, ctx.request));
    return { ok: true as const };
  }),
  logout: publicProcedure.mutation(async ({ ctx }) => {
    await logOut(ctx.services.db, ctx.sessionCookie);
    ctx.setCookie(sessionCookie(ctx, "", 0));
    return { ok: true as const };
  }),
  /** The single sign-on provider for a typed e-mail address's domain, or an organization's login URL. */
  ssoProvider: publicProcedure.input(ssoLookupInput).query(({ ctx, input }) => lookupSsoProvider(ctx.services, input, ctx.request)),
  me: staffProcedure.query(({ ctx }) => ({ ...describeStaff(ctx.staff, ctx.services.devCertificate), sealLevel: ctx.services.config.tsa ? ("B-LTA" as const) : ("B-B" as const) })),
} satisfies TRPCRouterRecord;

/** The invite link's page: public, the link's secret is the credential. */
export const invitationsRouter = {
  describe: publicProcedure.input(describeInviteInput).query(({ ctx, input }) => describeInvite(ctx.services, input, ctx.request)),
  accept: publicProcedure.input(acceptInviteInput).mutation(async ({ ctx, input }) => {
    setStaffSessionCookie(ctx, await acceptInvite(ctx.services, input, ctx.request));
    return { ok: true as const };
  }),
} satisfies TRPCRouterRecord;
