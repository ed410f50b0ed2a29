import type { TRPCRouterRecord } from "@trpc/server";
import { passkeyIdInput, passkeyRegistrationInput, renamePasskeyInput, totpCodeInput } from "@clinsign/contracts";
import { passkeyRegistrationOptions } from "../../core/identity/passkeys";
import {
  addPasskeyFactor,
  addTotpFactor,
  getAccountSecurity,
  regenerateRecoveryCodes,
  removePasskeyFactor,
  removeTotpFactor,
  renamePasskey,
} from "../../core/identity/account-security";
import { totpSetupFor } from "../../core/identity/totp";
import { staffProcedure } from "../trpc";

/** The signed-in member's own second factors (the console's "Account security" page). */
export const accountSecurityRouter = {
  overview: staffProcedure.query(({ ctx }) => getAccountSecurity(ctx.org)),
  totpStart: staffProcedure.mutation(({ ctx }) => totpSetupFor(ctx.org)),
  totpConfirm: staffProcedure.input(totpCodeInput).mutation(({ ctx, input }) => addTotpFactor(ctx.org, input)),
  totpRemove: staffProcedure.mutation(({ ctx }) => removeTotpFactor(ctx.org)),
  passkeyOptions: staffProcedure.mutation(({ ctx }) => passkeyRegistrationOptions(ctx.org)),
  passkeyRegister: staffProcedure
    .input(passkeyRegistrationInput)
    .mutation(({ ctx, input }) => addPasskeyFactor(ctx.org, input)),
  passkeyRename: staffProcedure.input(renamePasskeyInput).mutation(({ ctx, input }) => renamePasskey(ctx.org, input)),
  passkeyRemove: staffProcedure.input(passkeyIdInput).mutation(({ ctx, input }) => removePasskeyFactor(ctx.org, input)),
  regenerateRecoveryCodes: staffProcedure.mutation(({ ctx }) => regenerateRecoveryCodes(ctx.org)),
} satisfies TRPCRouterRecord;
