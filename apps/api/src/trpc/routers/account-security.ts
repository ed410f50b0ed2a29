import type { TRPCRouterRecord } from "@trpc/server";
import {
  addPasskeyInput,
  addTotpInput,
  removePasskeyInput,
  renamePasskeyInput,
  stepUpOnlyInput,
} from "@clinsign/contracts";
import {
  addPasskeyFactor,
  addTotpFactor,
  getAccountSecurity,
  regenerateRecoveryCodes,
  removePasskeyFactor,
  removeTotpFactor,
  renamePasskey,
  startPasskeyRegistration,
  startTotpSetup,
  stepUpOptions,
} from "../../core/identity/account-security";
import { staffProcedure } from "../trpc";

/**
 * The signed-in member's own second factors (the console's "Account security" page). Every change
 * carries its step-up, checked against the staff session the request came with.
 */
export const accountSecurityRouter = {
  overview: staffProcedure.query(({ ctx }) => getAccountSecurity(ctx.org)),
  stepUpOptions: staffProcedure.mutation(({ ctx }) => stepUpOptions(ctx.org)),
  totpStart: staffProcedure.mutation(({ ctx }) => startTotpSetup(ctx.org)),
  totpConfirm: staffProcedure
    .input(addTotpInput)
    .mutation(({ ctx, input }) => addTotpFactor(ctx.org, { ...input, staffSession: ctx.staff })),
  totpRemove: staffProcedure
    .input(stepUpOnlyInput)
    .mutation(({ ctx, input }) => removeTotpFactor(ctx.org, { ...input, staffSession: ctx.staff })),
  passkeyOptions: staffProcedure.mutation(({ ctx }) => startPasskeyRegistration(ctx.org)),
  passkeyRegister: staffProcedure
    .input(addPasskeyInput)
    .mutation(({ ctx, input }) => addPasskeyFactor(ctx.org, { ...input, staffSession: ctx.staff })),
  passkeyRename: staffProcedure.input(renamePasskeyInput).mutation(({ ctx, input }) => renamePasskey(ctx.org, input)),
  passkeyRemove: staffProcedure
    .input(removePasskeyInput)
    .mutation(({ ctx, input }) => removePasskeyFactor(ctx.org, { ...input, staffSession: ctx.staff })),
  regenerateRecoveryCodes: staffProcedure
    .input(stepUpOnlyInput)
    .mutation(({ ctx, input }) => regenerateRecoveryCodes(ctx.org, { ...input, staffSession: ctx.staff })),
} satisfies TRPCRouterRecord;
