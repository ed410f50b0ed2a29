/**
 * The typed ClinSign API client: `openapi-fetch` over the types generated from the service's
 * OpenAPI document (src/schema.ts), so every path, parameter, body and answer is checked by
 * TypeScript. See README.md.
 */
import createClient, { type Client, type ClientOptions } from "openapi-fetch";
import type { paths } from "./schema";

export type { components, operations, paths, webhooks } from "./schema";
export {
  verifyServiceSignature,
  verifyWebhook,
  WebhookVerificationError,
  type VerifyWebhookInput,
  type WebhookEvent,
} from "./webhooks";

export type ClinSignClient = Client<paths>;

export interface ClinSignClientOptions extends ClientOptions {
  /** The service's address, e.g. `https://sign.klinik.example`. */
  baseUrl: string;
  /**
   * The organization's API token (`cs_…`), sent as `Authorization: Bearer` on every call: area A
   * requires it, and area B takes it instead of `token` + `orgId`.
   */
  token?: string;
}

export function createClinSignClient({ token, ...options }: ClinSignClientOptions): ClinSignClient {
  const client = createClient<paths>(options);
  if (token)
    client.use({
      onRequest({ request }) {
        request.headers.set("authorization", `Bearer ${token}`);
        return request;
      },
    });
  return client;
}
