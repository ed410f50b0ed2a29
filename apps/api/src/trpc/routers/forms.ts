import type { TRPCRouterRecord } from "@trpc/server";
import { z } from "zod";
import {
  createSessionInput,
  draftRefInput,
  formEventInput,
  listAuditEntriesInput,
  listAuditLogsInput,
  listMessagesInput,
  revealMessageInput,
  listSessionsInput,
  publicEmbedCode,
  publicEmbedRef,
  listSubmissionsInput,
  revokeSessionInput,
  saveDraftInput,
  savePublicEmbedInput,
  formPageSubmitInput,
  templateIdentifier,
} from "@clinsign/contracts";
import { listAuditEntries, listAuditLog, verifyOrganizationChain } from "../../core/audit/audit-log";
import { deleteDraft, getDraft, saveDraft } from "../../core/drafts/drafts";
import { recordFormEvent } from "../../core/forms/events";
import { formHoldKey } from "../../core/forms/hold-key";
import { resolveFormTemplate } from "../../core/forms/form-template";
import { channelProviders, listMessages, revealOutboxMessage } from "../../core/messaging/messaging";
import { getPublicEmbed, savePublicEmbed } from "../../core/embed-sessions/public-embeds";
import { describePublicEmbed, startVisitorSession } from "../../core/public/embeds";
import {
  createEmbedSession,
  describeEmbedSession,
  listPersonalLinks,
  revokeEmbedSession,
} from "../../core/embed-sessions/embed-sessions";
import { getSubmissionDetail, listSubmissionPage } from "../../core/submissions/submission-reads";
import { submitForm } from "../../core/submissions/submissions";
import { toTemplate } from "../../core/templates/templates";
import { uploadFiles, type IncomingFilePart } from "../../core/uploads/uploads";
import { formProcedure, orgProcedure, publicStepProcedure, staffProcedure } from "../trpc";

export const sessionsRouter = {
  /** POST /api/embed/sessions. */
  create: orgProcedure.input(createSessionInput).mutation(({ ctx, input }) => createEmbedSession(ctx.org, input)),
  /** Staff: the valid personal links (sessions made for one patient), and ending one now. */
  list: staffProcedure.input(listSessionsInput).query(({ ctx, input }) => listPersonalLinks(ctx.org, input)),
  revoke: staffProcedure.input(revokeSessionInput).mutation(({ ctx, input }) => revokeEmbedSession(ctx.org, input)),
  /** The embedded form asks what its session allows (draftKey, redirect, prefill). */
  current: formProcedure.query(({ ctx }) => describeEmbedSession(ctx.org)),
} satisfies TRPCRouterRecord;

/** A template's public embed (the website snippet) and the sessions visitors start from it. */
export const publicEmbedsRouter = {
  get: staffProcedure.input(publicEmbedRef).query(({ ctx, input }) => getPublicEmbed(ctx.org, input)),
  save: staffProcedure.input(savePublicEmbedInput).mutation(({ ctx, input }) => savePublicEmbed(ctx.org, input)),
  /** The form page and the web server's CSP: is it on, which origins may frame it. */
  describe: publicStepProcedure
    .input(z.object({ code: publicEmbedCode }))
    .query(({ ctx, input }) => describePublicEmbed(ctx.pub, input)),
  /** A visitor's browser starts its own session; the sessionId stays in that browser. */
  start: publicStepProcedure
    .input(z.object({ code: publicEmbedCode }))
    .mutation(({ ctx, input }) => startVisitorSession(ctx.pub, input)),
} satisfies TRPCRouterRecord;

export const formsRouter = {
  /** F3: the active template of the session, or the one named (token callers). */
  template: formProcedure
    .input(z.object({ templateIdentifier: templateIdentifier.optional() }))
    .query(async ({ ctx, input }) => toTemplate(await resolveFormTemplate(ctx.org, input.templateIdentifier))),
  /** POST /api/embed/events: form.opened / form.closed from the embedded form. */
  event: formProcedure
    .input(formEventInput.extend({ templateIdentifier: templateIdentifier.optional() }))
    .mutation(({ ctx, input }) => recordFormEvent(ctx.org, input)),
  /** The key the form page holds what it keeps offline with (issue 35). */
  holdKey: formProcedure.query(({ ctx }) => formHoldKey(ctx.org)),
} satisfies TRPCRouterRecord;

export const draftsRouter = {
  save: formProcedure.input(saveDraftInput).mutation(({ ctx, input }) => saveDraft(ctx.org, input)),
  get: formProcedure.input(draftRefInput).query(({ ctx, input }) => getDraft(ctx.org, input)),
  delete: formProcedure.input(draftRefInput).mutation(({ ctx, input }) => deleteDraft(ctx.org, input)),
} satisfies TRPCRouterRecord;

export const submissionsRouter = {
  submit: formProcedure.input(formPageSubmitInput).mutation(({ ctx, input }) => submitForm(ctx.org, input)),
  /** Staff: the list contract (packages/contracts/src/lists.ts); exports and the PDF are GET routes (rest/console-routes.ts). */
  list: staffProcedure.input(listSubmissionsInput).query(({ ctx, input }) => listSubmissionPage(ctx.org, input)),
  get: staffProcedure.input(z.object({ id: z.uuid() })).query(({ ctx, input }) => getSubmissionDetail(ctx.org, input)),
} satisfies TRPCRouterRecord;

export const auditRouter = {
  /** F13. */
  list: orgProcedure.input(listAuditLogsInput).query(({ ctx, input }) => listAuditLog(ctx.org, input)),
  /** Staff: the list contract with actor type and time filters; the CSV export is a GET route for owners and admins. */
  entries: staffProcedure.input(listAuditEntriesInput).query(({ ctx, input }) => listAuditEntries(ctx.org, input)),
  /** Staff: walks the organization's hash chain and names the first entry that breaks it. */
  verify: staffProcedure.mutation(({ ctx }) => verifyOrganizationChain(ctx.org)),
} satisfies TRPCRouterRecord;

export const messagesRouter = {
  /** Staff: sent and queued SMS and e-mail (the outbox in development). */
  list: staffProcedure.input(listMessagesInput).query(({ ctx, input }) => listMessages(ctx.org, input)),
  /** Staff: which providers send SMS and e-mail here (outbox: nothing leaves the service). */
  providers: staffProcedure.query(({ ctx }) => channelProviders(ctx)),
  /** Owners and admins, outbox only: a kept message's hidden link or code, once, audited. */
  reveal: staffProcedure.input(revealMessageInput).mutation(({ ctx, input }) => revealOutboxMessage(ctx.org, input)),
} satisfies TRPCRouterRecord;

/**
 * Files arrive as a stream of parts, so this input only exists in-process: the REST door reads the
 * multipart body and calls the procedure through `createCaller`, handing it the parts one by one.
 */
export const uploadFilesInput = z.object({
  templateIdentifier: templateIdentifier.optional(),
  fieldKey: z.string().max(100).optional(),
  files: z.custom<AsyncIterable<IncomingFilePart>>(
    (value) => typeof (value as AsyncIterable<unknown> | null)?.[Symbol.asyncIterator] === "function",
    {
      message: "send the files as multipart/form-data",
    },
  ),
});

export const uploadsRouter = {
  create: formProcedure.input(uploadFilesInput).mutation(({ ctx, input }) => uploadFiles(ctx.org, input)),
} satisfies TRPCRouterRecord;
