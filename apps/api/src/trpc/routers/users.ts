import type { TRPCRouterRecord } from "@trpc/server";
import {
  changeRoleInput,
  endSessionInput,
  inviteRef,
  inviteUserInput,
  listInvitesInput,
  listUsersInput,
  userRef,
} from "@clinsign/contracts";
import { endAllSessions, endOtherSessions, endOwnSession, listOwnSessions } from "../../core/identity/account-sessions";
import { staffSessionCookieHeader } from "../../core/identity/cookies";
import {
  changeRole,
  deactivateUser,
  inviteUser,
  listInvites,
  listUsers,
  reactivateUser,
  revokeInvite,
} from "../../core/members/users";
import { staffProcedure } from "../trpc";

/** The Users page: owners and admins (the permission table). */
export const usersRouter = {
  list: staffProcedure.input(listUsersInput).query(({ ctx, input }) => listUsers(ctx.org, input)),
  invites: staffProcedure.input(listInvitesInput).query(({ ctx, input }) => listInvites(ctx.org, input)),
  invite: staffProcedure.input(inviteUserInput).mutation(({ ctx, input }) => inviteUser(ctx.org, input)),
  revokeInvite: staffProcedure.input(inviteRef).mutation(({ ctx, input }) => revokeInvite(ctx.org, input)),
  changeRole: staffProcedure.input(changeRoleInput).mutation(({ ctx, input }) => changeRole(ctx.org, input)),
  deactivate: staffProcedure.input(userRef).mutation(({ ctx, input }) => deactivateUser(ctx.org, input)),
  reactivate: staffProcedure.input(userRef).mutation(({ ctx, input }) => reactivateUser(ctx.org, input)),
} satisfies TRPCRouterRecord;

/** The signed-in member's own account: their staff sessions (the current one is the request's). */
export const accountRouter = {
  sessions: staffProcedure.query(({ ctx }) => listOwnSessions(ctx.org, { currentSessionId: ctx.staff.sessionId })),
  endSession: staffProcedure
    .input(endSessionInput)
    .mutation(({ ctx, input }) => endOwnSession(ctx.org, { ...input, currentSessionId: ctx.staff.sessionId })),
  endOtherSessions: staffProcedure.mutation(({ ctx }) =>
    endOtherSessions(ctx.org, { currentSessionId: ctx.staff.sessionId }),
  ),
  /** Every staff session of the account, in every organization, this one too (its cookie is cleared). */
  endAllSessions: staffProcedure.mutation(async ({ ctx }) => {
    const result = await endAllSessions(ctx.org);
    ctx.setCookie(staffSessionCookieHeader(ctx.services.config, "", 0));
    return result;
  }),
} satisfies TRPCRouterRecord;
