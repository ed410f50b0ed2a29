import type { TRPCRouterRecord } from "@trpc/server";
import { acceptInviteInput, describeInviteInput, loginInput } from "@clinsign/contracts";
import { acceptInvite, describeInvite } from "../../core/staff/invites";
import { describeStaff, logIn, logOut, SESSION_COOKIE } from "../../core/staff/staff";
import { publicProcedure, staffProcedure, type TrpcContext } from "../trpc";

/**
 * The staff session cookie: HTTP-only, SameSite=Lax (sent on top-level navigation to the console,
 * never on cross-site subrequests), Secure when the console is served over HTTPS, and ending with
 * the session's absolute end (the idle end is the server's to check).
 */
function sessionCookie(ctx: TrpcContext, value: string, maxAgeSeconds: number): string {
  const secure = ctx.services.config.publicWebUrl.startsWith("https:") ? "; Secure" : "";
  return `${SESSION_COOKIE}=${value}; Path=/; HttpOnly; SameSite=Lax; Max-Age=${maxAgeSeconds}${secure}`;
}

/** Sets the cookie of a session `openStaffSession` opened. */
export function setStaffSessionCookie(ctx: TrpcContext, session: { token: string; expiresAt: Date }): void {
  ctx.setCookie(sessionCookie(ctx, session.token, Math.max(0, Math.floor((session.expiresAt.getTime() - Date.now()) / 1000))));
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
  me: staffProcedure.query(({ ctx }) => describeStaff(ctx.staff, ctx.services.devCertificate)),
} satisfies TRPCRouterRecord;

/** The invite link's page: public, the link's secret is the credential. */
export const invitationsRouter = {
  describe: publicProcedure.input(describeInviteInput).query(({ ctx, input }) => describeInvite(ctx.services, input, ctx.request)),
  accept: publicProcedure.input(acceptInviteInput).mutation(async ({ ctx, input }) => {
    setStaffSessionCookie(ctx, await acceptInvite(ctx.services, input, ctx.request));
    return { ok: true as const };
  }),
} satisfies TRPCRouterRecord;
