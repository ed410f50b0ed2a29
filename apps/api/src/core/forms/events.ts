import type { z } from "zod";
import type { formEventInput, webhookTestInput } from "@clinsign/contracts";
import { recordAudit } from "../audit/audit";
import { inTransaction, type OrgContext } from "../context";
import { getTemplate } from "../templates/templates";
import { deliverNow, emitWebhookEvent } from "../webhooks/webhooks";
import { resolveFormTemplate } from "./form-template";

/** `form.opened` / `form.closed` reported by the embedded form: audit entry and webhook. */
export async function recordFormEvent(
  ctx: OrgContext,
  input: z.output<typeof formEventInput> & { templateIdentifier?: string },
): Promise<{ recorded: true }> {
  const template = await resolveFormTemplate(ctx, input.templateIdentifier);
  const data = { ...(input.data ?? {}), ...(ctx.session?.config.rnummer && { rnummer: ctx.session.config.rnummer }) };
  await inTransaction(ctx, async (tx) => {
    await recordAudit(tx, { action: input.event, templateIdentifier: template.identifier, metadata: { source: ctx.actor.type } });
    await emitWebhookEvent(tx, { event: input.event, templateIdentifier: template.identifier, data });
  });
  return { recorded: true };
}

/**
 * F11: sends a test event to the organization's webhook URLs now and reports whether every
 * URL took it. Any status of the template is fine, but it must be the organization's.
 */
export async function sendTestWebhook(ctx: OrgContext, input: z.output<typeof webhookTestInput>): Promise<{ delivered: boolean }> {
  await getTemplate(ctx, { identifier: input.templateIdentifier, activeOnly: false });
  const queued = await emitWebhookEvent(ctx, {
    event: input.event,
    templateIdentifier: input.templateIdentifier,
    data: { ...(input.data ?? {}), test: true },
    inline: true,
  });
  return { delivered: await deliverNow(ctx.services, queued) };
}
