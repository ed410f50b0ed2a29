/**
 * The OpenAPI 3.1 `webhooks` section: the events core/webhooks sends (one POST per event and
 * URL, retried on failure), their body and the signature headers (`attemptDelivery`).
 */

const SIGNATURE_SCHEME = [
  "Each delivery is a POST of the JSON body below to every webhook URL of the organization (or of the embed session).",
  "With a webhook secret configured, it carries two signatures of the exact raw body:",
  "",
  "- `webhook-signature`: [Standard Webhooks](https://www.standardwebhooks.com/) `v1,<base64 HMAC-SHA256>` over",
  "  `<webhook-id>.<webhook-timestamp>.<body>`; a `whsec_<base64>` secret is base64-decoded to the key, any other secret",
  "  is used as its UTF-8 bytes.",
  "- `X-Service-Signature`: hex HMAC-SHA256 of the body with the secret's UTF-8 bytes.",
  "",
  "Compare in constant time and reject timestamps more than 5 minutes off (`verifyWebhook` in `@clinsign/client` does both).",
  "`webhook-id` is the delivery id, the same on every retry: use it to drop duplicates. Answer 2xx within 5 s;",
  "anything else (3xx included) is retried: 5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 10 h (8 attempts).",
].join("\n");

const EXAMPLE_HEADERS: Record<string, string> = {
  "webhook-id": "0b9d6f5e-2c1a-4e3b-8d7f-6a5b4c3d2e1f",
  "webhook-timestamp": "1772443800",
  "webhook-signature": "v1,K5oZfzN95Z9UVu1EsfQmfVNQhnkZ2pj9o9NDN/H/pI4=",
  "x-service-signature": "2b9a197f337de59f5452ed44b1f4267d535086791bda98fda3d20d37f1ffa48e",
};

const headers = [
  {
    name: "webhook-id",
    required: true,
    schema: { type: "string", format: "uuid" },
    description: "delivery id, stable across retries",
  },
  {
    name: "webhook-timestamp",
    required: true,
    schema: { type: "string", pattern: "^[0-9]+$" },
    description: "seconds since 1970 when this attempt was signed",
  },
  {
    name: "webhook-signature",
    required: false,
    schema: { type: "string", pattern: "^v1,[A-Za-z0-9+/]+={0,2}$" },
    description: "Standard Webhooks signature; absent without a webhook secret",
  },
  {
    name: "x-service-signature",
    required: false,
    schema: { type: "string", pattern: "^[0-9a-f]{64}$" },
    description: "hex HMAC-SHA256 of the raw body; absent without a webhook secret",
  },
].map((h) => ({ ...h, in: "header", example: EXAMPLE_HEADERS[h.name] }));

const envelope = (event: string[], templateIdentifier: unknown, data: Record<string, unknown>) => ({
  type: "object",
  required: ["event", "createdAt", "organizationId", "templateIdentifier", "data"],
  properties: {
    event: { type: "string", enum: event },
    createdAt: { type: "string", format: "date-time" },
    organizationId: { type: "string", format: "uuid" },
    templateIdentifier,
    data,
  },
});

const template = { type: "string", description: "the form template's identifier" };

interface WebhookEvent {
  name: string;
  summary: string;
  events: string[];
  templateIdentifier: unknown;
  data: Record<string, unknown>;
  example: Record<string, unknown>;
}

const EVENTS: WebhookEvent[] = [
  {
    name: "form.submitted",
    summary: "A form was submitted (F10, SMS form, embedded form)",
    events: ["form.submitted"],
    templateIdentifier: template,
    data: {
      type: "object",
      required: ["values", "submissionId"],
      properties: {
        rnummer: {
          type: ["string", "null"],
          description:
            "case number, as the service vouches for it (the API token's or SMS form request's, or the embed session's config); null when only the patient's browser named one (then under untrustedClientData)",
        },
        phone: {
          type: ["string", "null"],
          description: "E.164; null when only the patient's browser named one (then under untrustedClientData)",
        },
        untrustedClientData: {
          type: "object",
          description:
            "only when the patient's browser named an rnummer or phone its embed session did not pin (a public embed's visitor always): what it named, stored and shown to staff as patient-reported; not vouched for, never a patient identifier",
          properties: { rnummer: { type: "string" }, phone: { type: "string" } },
          additionalProperties: false,
        },
        values: { type: "object", additionalProperties: true, description: "the answers by field key" },
        submissionId: { type: "string", format: "uuid" },
        language: {
          type: "string",
          description:
            "the language the patient answered in (de, en, tr, ar, ru, uk, pl); values are option values, the same in every language",
        },
      },
    },
    example: {
      rnummer: "R-2026-0042",
      phone: "+491701234567",
      values: { name: "Erika Muster" },
      submissionId: EXAMPLE_HEADERS["webhook-id"],
      language: "de",
    },
  },
  {
    name: "form.draft_saved",
    summary: "A draft was saved (F7)",
    events: ["form.draft_saved"],
    templateIdentifier: template,
    data: {
      type: "object",
      required: ["draftKey", "draftId", "keys"],
      properties: {
        draftKey: { type: "string" },
        draftId: { type: "string", format: "uuid" },
        keys: { type: "array", items: { type: "string" }, description: "the field keys this save changed" },
      },
    },
    example: { draftKey: "case-100231", draftId: EXAMPLE_HEADERS["webhook-id"], keys: ["name"] },
  },
  {
    name: "form.opened",
    summary: "The embedded form was opened or closed (B-events)",
    events: ["form.opened", "form.closed"],
    templateIdentifier: template,
    data: {
      type: "object",
      properties: {
        rnummer: { type: "string", description: "the embed session's case number" },
        untrustedClientData: {
          type: "object",
          additionalProperties: true,
          description: "what the browser said; not vouched for",
        },
      },
      additionalProperties: true,
    },
    example: { rnummer: "R-2026-0042" },
  },
  {
    name: "test",
    summary: "A test event sent with F11 (POST /api/embed/webhook-event)",
    events: ["form.opened", "form.closed", "form.draft_saved"],
    templateIdentifier: template,
    data: {
      type: "object",
      required: ["test"],
      properties: { test: { type: "boolean", const: true, description: "marks the test event" } },
      additionalProperties: true,
      description: "the `data` the F11 caller sent, plus `test: true`",
    },
    example: { test: true },
  },
  {
    name: "signature.completed",
    summary: "A signature request was opened, completed (signed and sealed), declined or expired",
    events: ["signature.opened", "signature.completed", "signature.declined", "signature.expired"],
    templateIdentifier: { type: "null" },
    data: {
      type: "object",
      required: ["signature_id", "document_id"],
      properties: {
        signature_id: { type: "string", format: "uuid" },
        document_id: { type: "string" },
        patient_id: { type: "string" },
        timestamp: { type: "string", format: "date-time" },
        signed_pdf_url: { type: "string", format: "uri" },
      },
      additionalProperties: true,
    },
    example: { signature_id: EXAMPLE_HEADERS["webhook-id"], document_id: "aufklaerung-op", patient_id: "P-100231" },
  },
];

export function webhookSection() {
  return Object.fromEntries(
    EVENTS.map((event) => {
      const schema = envelope(event.events, event.templateIdentifier, event.data);
      const example = {
        event: event.events[0],
        createdAt: "2026-03-02T09:30:00.000Z",
        organizationId: "3f2b8c1e-5d4a-4b6f-9c7e-1a2b3c4d5e6f",
        templateIdentifier: event.name.startsWith("signature") ? null : "anamnese-2026",
        data: event.example,
      };
      return [
        event.name,
        {
          post: {
            operationId: `webhook_${event.name.replace(/\W/g, "_")}`,
            summary: event.summary,
            description: `Events: ${event.events.map((e) => `\`${e}\``).join(", ")}.\n\n${SIGNATURE_SCHEME}`,
            tags: ["Webhooks"],
            security: [],
            parameters: headers,
            requestBody: { required: true, content: { "application/json": { schema, example } } },
            responses: {
              "200": { description: "taken (any 2xx); anything else is retried" },
              "400": { description: "refused by the receiver (e.g. a bad signature); retried as any non-2xx" },
            },
          },
        },
      ];
    }),
  );
}
