import { testWebhookEvents } from "@clinsign/contracts";

/** The events the service sends (docs/forms-api.md, signatures), offered as filter suggestions. */
export const KNOWN_EVENTS = [
  "form.submitted",
  "form.opened",
  "form.closed",
  "form.draft_saved",
  "signature.opened",
  "signature.completed",
  "signature.declined",
  "signature.expired",
] as const;

export const TEST_EVENTS = testWebhookEvents;

/** How a receiver checks X-Service-Signature; shown as it is on the page. */
export const VERIFY_SAMPLE = `import { createHmac, timingSafeEqual } from "node:crypto";

// rawBody: the request body exactly as received (a Buffer), before JSON.parse.
function isSignedByClinSign(rawBody, signatureHeader, secret) {
  const expected = createHmac("sha256", secret).update(rawBody).digest("hex");
  const given = String(signatureHeader ?? "");
  return given.length === expected.length && timingSafeEqual(Buffer.from(given), Buffer.from(expected));
}

// Standard Webhooks: new Webhook(secret).verify(rawBody, headers) from the "standardwebhooks" package.`;
