import { createHmac, timingSafeEqual } from "node:crypto";
import type { webhooks } from "./schema";

type WebhookPost<K extends keyof webhooks> = NonNullable<webhooks[K]["post"]>;

/** The body of any webhook the service sends (`event` tells which). */
export type WebhookEvent = {
  [K in keyof webhooks]: NonNullable<WebhookPost<K>["requestBody"]>["content"]["application/json"];
}[keyof webhooks];

/** A delivery whose signature, timestamp or body does not check out: answer it with 4xx and ignore it. */
export class WebhookVerificationError extends Error {
  override name = "WebhookVerificationError";
}

export interface VerifyWebhookInput {
  /** The organization's webhook secret (`whsec_…` as the console shows it, or the one you chose). */
  secret: string;
  /** The raw body exactly as received, before any JSON parsing. */
  body: string | Uint8Array;
  /** The request's headers: a fetch `Headers`, or Node's `req.headers`. */
  headers: Headers | Record<string, string | string[] | undefined>;
  /** How far `webhook-timestamp` may be from now (default 300 s): older deliveries are replays. */
  toleranceSeconds?: number;
  now?: Date;
}

const header = (headers: VerifyWebhookInput["headers"], name: string): string | undefined => {
  if (typeof (headers as Headers).get === "function") return (headers as Headers).get(name) ?? undefined;
  const value = (headers as Record<string, string | string[] | undefined>)[name];
  return Array.isArray(value) ? value[0] : value;
};

/** The key as the service uses it: a `whsec_<base64>` secret decoded, any other secret as its UTF-8 bytes. */
function signingKey(secret: string): Buffer {
  const encoded = /^whsec_([A-Za-z0-9+/]+={0,2})$/.exec(secret)?.[1];
  return encoded ? Buffer.from(encoded, "base64") : Buffer.from(secret, "utf8");
}

/** Equal strings, compared in constant time (a length difference is no secret). */
function sameSecret(a: string, b: string): boolean {
  const left = Buffer.from(a);
  const right = Buffer.from(b);
  return left.length === right.length && timingSafeEqual(left, right);
}

/**
 * Checks a webhook delivery as the service signs it (Standard Webhooks): the `webhook-signature`
 * (`v1,<base64 HMAC-SHA256 of "<webhook-id>.<webhook-timestamp>.<body>">`, several separated by
 * spaces while a secret rotates) against the secret, in constant time, and the timestamp against
 * replays. Returns the parsed event; throws `WebhookVerificationError` otherwise.
 */
export function verifyWebhook(input: VerifyWebhookInput): WebhookEvent {
  const { secret, headers, toleranceSeconds = 300, now = new Date() } = input;
  const id = header(headers, "webhook-id");
  const timestamp = header(headers, "webhook-timestamp");
  const signatures = header(headers, "webhook-signature");
  if (!id || !timestamp || !signatures) throw new WebhookVerificationError("missing webhook headers");
  if (!/^\d+$/.test(timestamp)) throw new WebhookVerificationError("invalid webhook-timestamp");
  if (Math.abs(now.getTime() / 1000 - Number(timestamp)) > toleranceSeconds)
    throw new WebhookVerificationError("webhook-timestamp is too far from now");
  const body = typeof input.body === "string" ? Buffer.from(input.body, "utf8") : Buffer.from(input.body);
  const expected = createHmac("sha256", signingKey(secret)).update(`${id}.${timestamp}.`).update(body).digest("base64");
  const matches = signatures
    .split(" ")
    .map((entry) => entry.split(","))
    .some(([version, signature]) => version === "v1" && signature !== undefined && sameSecret(signature, expected));
  if (!matches) throw new WebhookVerificationError("no matching signature");
  try {
    return JSON.parse(body.toString("utf8")) as WebhookEvent;
  } catch {
    throw new WebhookVerificationError("the body is not JSON");
  }
}

/**
 * The older `X-Service-Signature` (hex HMAC-SHA256 of the raw body, the secret's UTF-8 bytes as
 * key), for receivers built on it. It carries no timestamp: prefer `verifyWebhook`.
 */
export function verifyServiceSignature(secret: string, body: string | Uint8Array, signature: string): boolean {
  const expected = createHmac("sha256", secret)
    .update(typeof body === "string" ? Buffer.from(body, "utf8") : body)
    .digest("hex");
  return sameSecret(signature.toLowerCase(), expected);
}
