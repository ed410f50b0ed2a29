import nodemailer, { type Transporter } from "nodemailer";
import { z } from "zod";
import type { MessageProviders, MessageSummary, RevealedMessage } from "@clinsign/contracts";
import { desc, eq, jobs, messages, type MessageChannel } from "@clinsign/db";
import { recordAudit } from "../audit/audit";
import { afterCommit, inTransaction, systemContext, type OrgContext, type Services } from "../context";
import { AppError, notFound } from "../errors";
import { actsForOrganization } from "../permissions";
import type { JobHandler } from "../jobs/execute";
import { enqueueJob, type Job } from "../jobs/queue";

export const MESSAGE_JOB = "message.send";
/** Delay before attempt n+1: 10 s, 1 min, 5 min, 30 min, 2 h. */
const MESSAGE_SCHEDULE_MS = [0, 10_000, 60_000, 300_000, 1_800_000, 7_200_000];
export const MESSAGE_MAX_ATTEMPTS = MESSAGE_SCHEDULE_MS.length;
const PROVIDER_TIMEOUT_MS = 10_000;

export interface MessageInput {
  channel: MessageChannel;
  recipients: string[];
  body: string;
  subject?: string | null;
  /** SMS sender name (alphanumeric sender id); the provider's default when absent. */
  sender?: string | null;
  /** What the message is for, e.g. `form_request.link`, `portal.otp`, `submission.email`. */
  purpose: string;
  /**
   * The body as staff see it in the message list, when `body` carries a secret (an OTP code, a
   * portal link's token). The full body is then kept only in the delivery job's payload, sealed
   * with the service's SecretBox, and removed from there once the message is sent or given up.
   */
  redactedBody?: string;
}

/** How a secret looks in a stored message body. */
export const REDACTED = "••••••";

/** Which provider a channel uses on this install: `outbox` keeps messages here instead of sending them. */
export function channelProviders({ services }: Pick<OrgContext, "services">): MessageProviders {
  return { sms: services.config.sms.provider, email: services.config.smtpUrl ? "smtp" : "outbox" };
}

/** Whether the channel's messages stay in the outbox (no provider configured): nothing leaves the installation. */
export const usesOutbox = (ctx: Pick<OrgContext, "services">, channel: MessageChannel) =>
  channelProviders(ctx)[channel] === "outbox";

const messageJobPayload = z.object({
  messageId: z.string(),
  /** SecretBox-sealed full body of a message whose stored body is redacted. */
  sealedBody: z.string().optional(),
});
type MessageJobPayload = z.infer<typeof messageJobPayload>;

/**
 * Stores a message and its delivery job in the caller's transaction: the message exists exactly
 * when the change that sends it does, and a provider failure only delays it.
 */
export async function queueMessage(
  ctx: OrgContext,
  input: MessageInput,
): Promise<{ messageId: string; jobId: string }> {
  const [row] = await ctx.scope
    .insert(messages, {
      channel: input.channel,
      recipients: input.recipients,
      body: input.redactedBody ?? input.body,
      subject: input.subject ?? null,
      sender: input.sender ?? null,
      purpose: input.purpose,
      // Only the outbox keeps a revealable copy: with a real gateway the secret reaches its recipient
      // and nobody else.
      ...(input.redactedBody !== undefined &&
        usesOutbox(ctx, input.channel) && { revealableBody: ctx.services.secrets.seal(input.body) }),
    })
    .returning({ id: messages.id });
  const job = await enqueueJob(ctx.scope, {
    organizationId: ctx.scope.organizationId,
    kind: MESSAGE_JOB,
    payload: {
      messageId: row!.id,
      ...(input.redactedBody !== undefined && { sealedBody: ctx.services.secrets.seal(input.body) }),
    } satisfies MessageJobPayload,
    maxAttempts: MESSAGE_MAX_ATTEMPTS,
  });
  // Due now: the background runner sends it once the change is committed, without waiting for its next poll.
  await afterCommit(ctx, "jobs.wake", () => ctx.services.jobs?.wake());
  return { messageId: row!.id, jobId: job.id };
}

async function sendSms(
  services: Services,
  to: string,
  body: string,
  sender: string | null,
): Promise<{ provider: string; id: string | null }> {
  const sms = services.config.sms;
  if (sms.provider === "outbox") return { provider: "outbox", id: null };
  // Twilio's Messages API (TWILIO_API_URL is its origin, so a local stand-in works the same way).
  const url = `${sms.apiUrl}/2010-04-01/Accounts/${encodeURIComponent(sms.accountSid)}/Messages.json`;
  const response = await fetch(url, {
    method: "POST",
    headers: {
      authorization: `Basic ${Buffer.from(`${sms.accountSid}:${sms.authToken}`).toString("base64")}`,
      "content-type": "application/x-www-form-urlencoded",
    },
    body: new URLSearchParams({ To: to, From: sender ?? sms.from, Body: body }).toString(),
    redirect: "manual",
    signal: AbortSignal.timeout(PROVIDER_TIMEOUT_MS),
  });
  const text = await response.text();
  if (response.status < 200 || response.status >= 300) {
    let detail = text.slice(0, 300);
    try {
      const parsed = JSON.parse(text) as { message?: string; code?: number };
      if (parsed.message) detail = `${parsed.code ?? ""} ${parsed.message}`.trim();
    } catch {
      // not JSON; keep the text
    }
    throw new Error(`SMS provider answered HTTP ${response.status}: ${detail}`);
  }
  const sid = (JSON.parse(text) as { sid?: string }).sid ?? null;
  return { provider: "twilio", id: sid };
}

let transport: { url: string; transporter: Transporter } | undefined;

async function sendEmail(
  services: Services,
  to: string[],
  subject: string,
  body: string,
): Promise<{ provider: string; id: string | null }> {
  const { smtpUrl, mailFrom } = services.config;
  if (!smtpUrl) return { provider: "outbox", id: null };
  if (transport?.url !== smtpUrl) {
    transport = {
      url: smtpUrl,
      transporter: nodemailer.createTransport(smtpUrl, {
        connectionTimeout: PROVIDER_TIMEOUT_MS,
        greetingTimeout: PROVIDER_TIMEOUT_MS,
        socketTimeout: PROVIDER_TIMEOUT_MS,
      } as object),
    };
  }
  const info = (await transport.transporter.sendMail({ from: mailFrom, to, subject, text: body })) as {
    messageId?: string;
  };
  return { provider: "smtp", id: info.messageId ?? null };
}

/**
 * One attempt to hand a stored message to its provider; records the outcome on the row. `sealedBody`
 * is the full body of a message stored redacted (the provider gets it, the row never does).
 */
export async function deliverMessage(
  ctx: OrgContext,
  input: { messageId: string; attempt: number; maxAttempts: number; sealedBody?: string },
): Promise<void> {
  const { services, scope } = ctx;
  const { messageId, attempt, maxAttempts, sealedBody } = input;
  const [message] = await scope.select(messages, eq(messages.id, messageId)).limit(1);
  if (!message || message.status === "sent") return;
  try {
    const body = sealedBody ? services.secrets.open(sealedBody) : message.body;
    const sent =
      message.channel === "sms"
        ? await sendSms(services, message.recipients[0]!, body, message.sender)
        : await sendEmail(services, message.recipients, message.subject ?? "", body);
    await scope.update(
      messages,
      {
        status: "sent",
        provider: sent.provider,
        providerMessageId: sent.id,
        attempts: attempt,
        lastError: null,
        sentAt: new Date(),
        // A gateway configured since the message was queued sent it: no copy stays behind.
        ...(sent.provider !== "outbox" && { revealableBody: null }),
      },
      eq(messages.id, messageId),
    );
  } catch (error) {
    const text = error instanceof Error ? error.message : String(error);
    await scope.update(
      messages,
      { status: attempt >= maxAttempts ? "failed" : "queued", attempts: attempt, lastError: text.slice(0, 1000) },
      eq(messages.id, messageId),
    );
    throw error;
  }
}

export const messageJobHandler: JobHandler = {
  async run(job: Job, services: Services) {
    // Jobs keep their payload as JSON; queueMessage is the only writer of this kind's.
    const payload = messageJobPayload.parse(job.payload);
    const ctx = systemContext(services, job.organizationId!, `job:${job.id}`);
    let finished = false;
    try {
      await deliverMessage(ctx, {
        messageId: payload.messageId,
        attempt: job.attempts,
        maxAttempts: job.maxAttempts,
        sealedBody: payload.sealedBody,
      });
      finished = true;
    } finally {
      // The secret is needed only until the message is sent, or given up.
      if (payload.sealedBody && (finished || job.attempts >= job.maxAttempts)) {
        await ctx.scope.update(jobs, { payload: { messageId: payload.messageId } }, eq(jobs.id, job.id));
      }
    }
  },
  retryDelayMs: (attempt) =>
    Math.round((MESSAGE_SCHEDULE_MS[attempt] ?? MESSAGE_SCHEDULE_MS.at(-1)!) * (0.8 + Math.random() * 0.4)),
  leaseSeconds: 60,
};

export function toSummary(row: typeof messages.$inferSelect): MessageSummary {
  return {
    id: row.id,
    channel: row.channel,
    recipients: row.recipients,
    subject: row.subject,
    body: row.body,
    purpose: row.purpose,
    status: row.status,
    provider: row.provider,
    revealable: row.revealableBody !== null,
    revealedAt: row.revealedAt?.toISOString() ?? null,
    attempts: row.attempts,
    lastError: row.lastError,
    createdAt: row.createdAt.toISOString(),
    sentAt: row.sentAt?.toISOString() ?? null,
  };
}

/** Staff: the organization's messages, newest first (with the outbox providers, the outbox). */
export async function listMessages(
  ctx: OrgContext,
  input: { channel?: MessageChannel; limit: number },
): Promise<MessageSummary[]> {
  const rows = await ctx.scope
    .select(messages, input.channel ? eq(messages.channel, input.channel) : undefined)
    .orderBy(desc(messages.createdAt))
    .limit(input.limit);
  return rows.map(toSummary);
}

/**
 * Owners and admins, outbox only: the full body of a message stored redacted (its portal link or
 * one-time code), so the SMS flow can be tried on an install without a gateway. Once per message:
 * the sealed copy is deleted as it is read, and the reveal is audited (without the secret). With a
 * gateway configured now, nothing is revealed, even of messages kept before.
 */
export async function revealOutboxMessage(ctx: OrgContext, input: { id: string }): Promise<RevealedMessage> {
  if (ctx.actor.type !== "user" || !actsForOrganization(ctx.actor))
    throw new AppError("forbidden", "revealing a message needs the admin or owner role");
  return inTransaction(ctx, async (tx) => {
    const [message] = await tx.scope.select(messages, eq(messages.id, input.id)).for("update").limit(1);
    if (!message) throw notFound("message", { field: "id" });
    if (!usesOutbox(tx, message.channel)) {
      throw new AppError("conflict", "a gateway sends these messages: their links and codes are never revealed", {
        reason: "gateway_configured",
      });
    }
    if (message.revealedAt)
      throw new AppError("conflict", "this message was revealed already", { reason: "already_revealed" });
    if (!message.revealableBody)
      throw new AppError("conflict", "this message has nothing hidden to reveal", { reason: "not_revealable" });
    const body = tx.services.secrets.open(message.revealableBody);
    const revealedAt = new Date();
    await tx.scope.update(messages, { revealableBody: null, revealedAt }, eq(messages.id, message.id));
    await recordAudit(tx, {
      action: "message.revealed",
      metadata: {
        messageId: message.id,
        channel: message.channel,
        purpose: message.purpose,
        formRequestId: message.formRequestId,
      },
    });
    return { id: message.id, body, revealedAt: revealedAt.toISOString() };
  });
}
