import type { OrgContext } from "../context";
import { AppError } from "../errors";
import { addressKey, consumeRateLimit, countSoFar } from "../rate-limit";

/**
 * What anonymous visitors of public embeds may store per hour. A visitor starts as many sessions
 * as it likes (within VISITOR_STARTS_PER_WINDOW), each with its own UPLOAD_MAX_MB_PER_FORM, so the
 * per-session cap alone lets one address fill the disk. These caps count what was stored, per
 * embed and address (an IPv6 /64), and per organization, in hourly windows of the shared
 * rate-limit counters (counted in KiB, which the counters' integer column holds for any setting).
 */
const WINDOW_SECONDS = 3600;
const KIB = 1024;

/** One hourly cap an upload is held to: what is left of it, and the 429 once it is spent. */
export interface HourlyUploadCap {
  key: string;
  limitBytes: number;
  leftBytes: number;
  /** The cap's 429; `retryAfterSeconds` when the counter just told, else as read before the upload. */
  refusal(retryAfterSeconds?: number): AppError;
}

const mb = (bytes: number) => Math.round((bytes / 1024 / 1024) * 100) / 100;
const minutes = (seconds: number) => `${Math.max(1, Math.ceil(seconds / 60))} minutes`;

/**
 * The hourly caps of the caller's uploads, read before the first file byte: none unless the
 * caller is a public embed's visitor. Each tells how much it has left in its current window.
 */
export async function publicUploadCaps(ctx: OrgContext): Promise<HourlyUploadCap[]> {
  const embedId = ctx.formGrant?.publicEmbedId;
  if (ctx.actor.type !== "embed_session" || !embedId) return [];
  const { publicBytesPerAddressHour, publicBytesPerOrgHour } = ctx.services.config.uploads;
  const caps = [
    {
      key: `upload-kib:public-embed:${embedId}:${addressKey(ctx.request.ip)}`,
      limitBytes: publicBytesPerAddressHour,
      reason: "upload_hourly_address_cap",
      message: `uploads to this form from your network may total at most ${mb(publicBytesPerAddressHour)} MB an hour`,
    },
    {
      key: `upload-kib:public-embeds:${ctx.scope.organizationId}`,
      limitBytes: publicBytesPerOrgHour,
      reason: "upload_hourly_organization_cap",
      message: `uploads to this organization's public forms may total at most ${mb(publicBytesPerOrgHour)} MB an hour`,
    },
  ];
  return Promise.all(
    caps.map(async ({ key, limitBytes, reason, message }) => {
      const counted = await countSoFar(ctx.scope, key);
      const refuse = (retryAfterSeconds: number) =>
        new AppError("rate_limited", `${message}; try again in ${minutes(retryAfterSeconds)}`, {
          reason,
          limitBytes,
          retryAfterSeconds,
        });
      return {
        key,
        limitBytes,
        leftBytes: limitBytes - counted.count * KIB,
        // Nothing counted yet: a file larger than the whole cap waits for no window to end.
        refusal: (retryAfterSeconds?: number) =>
          refuse(retryAfterSeconds ?? (counted.count > 0 ? counted.retryAfterSeconds : WINDOW_SECONDS)),
      };
    }),
  );
}

/**
 * Counts stored bytes against the caps, in the transaction that writes the upload's rows: parallel
 * uploads wait for each other on the counter rows and cannot each spend the same remainder; past
 * a cap is the cap's 429, and the rollback takes the count back.
 */
export async function countPublicUpload(tx: OrgContext, caps: HourlyUploadCap[], bytes: number): Promise<void> {
  // Always in the same order (address, then organization), so two uploads never wait on each other crosswise.
  for (const cap of caps) {
    await consumeRateLimit(tx.scope, {
      key: cap.key,
      limit: Math.floor(cap.limitBytes / KIB),
      windowSeconds: WINDOW_SECONDS,
      amount: Math.ceil(bytes / KIB),
      refusal: (retryAfterSeconds) => cap.refusal(retryAfterSeconds),
    });
  }
}
