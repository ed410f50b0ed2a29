import type { TRPCRouterRecord } from "@trpc/server";
import {
  listWebhookAttemptsInput,
  listWebhookEventsInput,
  resendWebhookInput,
  webhookTestInput,
} from "@clinsign/contracts";
import { sendTestWebhook } from "../../core/forms/events";
import { getWebhookDelivery, getWebhookOverview, listWebhookAttemptPage } from "../../core/webhooks/delivery-log";
import { listWebhookLog, resendWebhook } from "../../core/webhooks/webhooks";
import { orgProcedure, staffProcedure } from "../trpc";

export const webhooksRouter = {
  /** F11. */
  test: orgProcedure.input(webhookTestInput).mutation(({ ctx, input }) => sendTestWebhook(ctx.org, input)),
  /** F12. */
  log: orgProcedure.input(listWebhookEventsInput).query(({ ctx, input }) => listWebhookLog(ctx.org, input)),
  resend: staffProcedure.input(resendWebhookInput).mutation(({ ctx, input }) => resendWebhook(ctx.org, input)),
  /** Staff: the delivery log with the list contract (F12's rows). */
  attempts: staffProcedure
    .input(listWebhookAttemptsInput)
    .query(({ ctx, input }) => listWebhookAttemptPage(ctx.org, input)),
  /** Staff: one delivery with the exact signed body and every attempt. */
  delivery: staffProcedure.input(resendWebhookInput).query(({ ctx, input }) => getWebhookDelivery(ctx.org, input)),
  /** Staff: default URLs and the signing secret's prefix. */
  overview: staffProcedure.query(({ ctx }) => getWebhookOverview(ctx.org)),
} satisfies TRPCRouterRecord;
