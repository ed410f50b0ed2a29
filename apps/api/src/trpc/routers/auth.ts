import type { TRPCRouterRecord } from "@trpc/server";
import { loginInput } from "@clinsign/contracts";
import { describeStaff, logIn, logOut, SESSION_COOKIE, SESSION_TTL_SECONDS } from "../../core/staff/staff";
import { publicProcedure, staffProcedure, type TrpcContext } from "../trpc";

function sessionCookie(ctx: TrpcContext, value: string, maxAgeSeconds: number): string {
  const secure = ctx.services.config.publicWebUrl.startsWith("https:") ? "; Secure" : "";
  return `${SESSION_COOKIE}=${value}; Path=/; HttpOnly; SameSite=Lax; Max-Age=${maxAgeSeconds}${secure}`;
}

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
  me: staffProcedure.query(({ ctx }) => ({ ...describeStaff(ctx.staff, ctx.services.devCertificate), sealLevel: ctx.services.config.tsa ? ("B-LTA" as const) : ("B-B" as const) })),
} satisfies TRPCRouterRecord;
