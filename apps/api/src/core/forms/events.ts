import type { z } from "zod";
import type { formEventInput, webhookTestInput } from "@clinsign/contracts";
import { recordAudit } from "../audit/audit";
import { inTransaction, type OrgContext } from "../context";
import { consumeRateLimit } from "../rate-limit";
import { getTemplate } from "../templates/templates";
import { deliverAfterCommit, emitWebhookEvent } from "../webhooks/webhooks";
import { resolveFormTemplate } from "./form-template";

/** Browser events one embed session (or SMS-portal access) may report per window. */
export const FORM_EVENTS_PER_WINDOW = 20;
export const FORM_EVENTS_WINDOW_SECONDS = 600;

/**
 * `form.opened` / `form.closed` reported by the embedded form: audit entry and webhook. The body is
 * signed with the organization's secret, so only what the service itself knows goes into its
 * trusted fields (the session's rnummer); what the browser sent is passed on under
 * `untrustedClientData` (at most 2 KiB, checked by the contract), never merged with them. A browser
 * credential may report FORM_EVENTS_PER_WINDOW events per 10 minutes (each writes an audit entry
 * and queues webhooks); organization credentials are held only to their other limits.
 */
export async function recordFormEvent(
  ctx: OrgContext,
  input: z.output<typeof formEventInput> & { templateIdentifier?: string },
): Promise<{ recorded: true }> {
  const template = await resolveFormTemplate(ctx, input.templateIdentifier);
  if (ctx.formGrant) {
    await consumeRateLimit(ctx.scope, {
      key: `form-events:${ctx.actor.type}:${ctx.actor.id}`,
      limit: FORM_EVENTS_PER_WINDOW,
      windowSeconds: FORM_EVENTS_WINDOW_SECONDS,
    });
  }
  const rnummer = ctx.formGrant?.config.rnummer;
  const data = { ...(rnummer && { rnummer }), ...(input.data && { untrustedClientData: input.data }) };
  await inTransaction(ctx, async (tx) => {
    await recordAudit(tx, {
      action: input.event,
      templateIdentifier: template.identifier,
      metadata: { source: ctx.actor.type },
    });
    await emitWebhookEvent(tx, { event: input.event, templateIdentifier: template.identifier, data });
  });
  return { recorded: true };
}

/**
 * F11: sends a test event to the organization's webhook URLs now and reports whether every
 * URL took it. Any status of the template is fine, but it must be the organization's.
 */
export async function sendTestWebhook(
  ctx: OrgContext,
  input: z.output<typeof webhookTestInput>,
): Promise<{ delivered: boolean }> {
  await getTemplate(ctx, { identifier: input.templateIdentifier, activeOnly: false });
  const first = await inTransaction(ctx, async (tx) => {
    const queued = await emitWebhookEvent(tx, {
      event: input.event,
      templateIdentifier: input.templateIdentifier,
      data: { ...(input.data ?? {}), test: true },
      inline: true,
    });
    return deliverAfterCommit(tx, queued);
  });
  return { delivered: first.delivered };
}
