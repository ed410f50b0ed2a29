import type { TRPCRouterRecord } from "@trpc/server";
import { passkeyIdInput, passkeyRegistrationInput, renamePasskeyInput, totpCodeInput } from "@clinsign/contracts";
import { passkeyRegistrationOptions } from "../../core/staff/passkeys";
import {
  addPasskeyFactor,
  addTotpFactor,
  getAccountSecurity,
  regenerateRecoveryCodes,
  removePasskeyFactor,
  removeTotpFactor,
  renamePasskey,
} from "../../core/staff/second-factor";
import { totpSetupFor } from "../../core/staff/totp";
import { staffProcedure } from "../trpc";

/** The signed-in member's own second factors (the console's "Account security" page). */
export const accountSecurityRouter = {
  overview: staffProcedure.query(({ ctx }) => getAccountSecurity(ctx.services, ctx.staff)),
  totpStart: staffProcedure.mutation(({ ctx }) => totpSetupFor(ctx.services, ctx.staff.userId)),
  totpConfirm: staffProcedure
    .input(totpCodeInput)
    .mutation(({ ctx, input }) => addTotpFactor(ctx.services, ctx.staff.userId, input.code, ctx.request)),
  totpRemove: staffProcedure.mutation(async ({ ctx }) => {
    await removeTotpFactor(ctx.services, ctx.staff, ctx.request);
    return { ok: true as const };
  }),
  passkeyOptions: staffProcedure.mutation(({ ctx }) => passkeyRegistrationOptions(ctx.services, ctx.staff.userId)),
  passkeyRegister: staffProcedure
    .input(passkeyRegistrationInput)
    .mutation(({ ctx, input }) => addPasskeyFactor(ctx.services, ctx.staff.userId, input, ctx.request)),
  passkeyRename: staffProcedure.input(renamePasskeyInput).mutation(async ({ ctx, input }) => {
    await renamePasskey(ctx.services, ctx.staff.userId, input);
    return { ok: true as const };
  }),
  passkeyRemove: staffProcedure.input(passkeyIdInput).mutation(async ({ ctx, input }) => {
    await removePasskeyFactor(ctx.services, ctx.staff, input.id, ctx.request);
    return { ok: true as const };
  }),
  regenerateRecoveryCodes: staffProcedure.mutation(({ ctx }) =>
    regenerateRecoveryCodes(ctx.services, ctx.staff.userId, ctx.request),
  ),
} satisfies TRPCRouterRecord;
