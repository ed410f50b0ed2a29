import type { TRPCRouterRecord } from "@trpc/server";
import { loginInput, ssoLookupInput } from "@clinsign/contracts";
import { describeStaff, logIn, logOut, sessionCookieHeader, SESSION_TTL_SECONDS } from "../../core/staff/staff";
import { lookupSsoProvider } from "../../core/sso/sign-in";
import { publicProcedure, staffProcedure, type TrpcContext } from "../trpc";

const sessionCookie = (ctx: TrpcContext, value: string, maxAgeSeconds: number) => sessionCookieHeader(ctx.services.config, value, maxAgeSeconds);

export const authRouter = {
  login: publicProcedure.input(loginInput).mutation(async ({ ctx, input }) => {
    const session = await logIn(ctx.services, input, ctx.request);
    ctx.setCookie(sessionCookie(ctx, session.token, SESSION_TTL_SECONDS));
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
