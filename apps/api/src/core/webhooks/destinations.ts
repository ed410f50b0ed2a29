import type { Config } from "../../env";
import { AppError } from "../errors";
import { checkOutboundUrl, OutboundError, type OutboundPolicy } from "../outbound/guarded-fetch";

/**
 * Where webhooks may go, one rule for saving a URL and for delivering to it: https to a public
 * address; plain http and private or loopback addresses only to a host the deployment lists in
 * OUTBOUND_ALLOW_HOSTS (a receiver inside the clinic's network, a local test receiver).
 */
export const webhookPolicy = (config: Pick<Config, "outboundAllowHosts">): OutboundPolicy => ({
  allowHosts: config.outboundAllowHosts,
});

/** The field message of each refusal; the console translates them by these beginnings. */
const REFUSALS = {
  https:
    "must be an https URL: webhooks are delivered only over https (plain http only to a host the deployment allows in OUTBOUND_ALLOW_HOSTS)",
  address:
    "points at a private or loopback address, to which webhooks are not delivered (unless the deployment allows the host in OUTBOUND_ALLOW_HOSTS)",
  credentials: "must not contain a user name or password",
} as const;

/**
 * Refuses at save what delivery would refuse later (issue 31: an http:// URL was accepted in
 * Settings and failed only at delivery): 400 `invalid_request` naming the URL's field,
 * e.g. `webhookUrls.1`. Only the literal address is checked here; what a name resolves to is
 * checked at each delivery, since it can change.
 */
export function assertDeliverableWebhookUrls(
  config: Pick<Config, "outboundAllowHosts">,
  urls: readonly string[],
  field = "webhookUrls",
): void {
  urls.forEach((url, index) => assertDeliverableWebhookUrl(config, url, `${field}.${index}`));
}

/** The same rule for one URL under its own field name, e.g. an embed session's `config.webhookUrl`. */
export function assertDeliverableWebhookUrl(
  config: Pick<Config, "outboundAllowHosts">,
  url: string,
  key: string,
): void {
  try {
    checkOutboundUrl(url, webhookPolicy(config));
  } catch (error) {
    if (!(error instanceof OutboundError)) throw error;
    const message =
      error.reason === "blocked_address"
        ? REFUSALS.address
        : /credentials/.test(error.message)
          ? REFUSALS.credentials
          : REFUSALS.https;
    throw new AppError("invalid_request", `${key}: ${message}`, { field: key }, [{ key, message }]);
  }
}
