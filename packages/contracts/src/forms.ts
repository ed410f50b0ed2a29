import { z } from "zod";
import { httpUrl, isoDateTime, listLimit } from "./common";
import { listInput } from "./lists";
import { patientLanguage } from "./languages";
import { branding } from "./signatures";
import { templateIdentifier } from "./templates";

// Area B beyond templates: sessions, drafts, submissions, uploads, events, webhooks, audit,
// form requests by SMS and the SMS portal.

const text = (min: number, max: number, what = "characters") =>
  z
    .string({ message: "must be a string" })
    .min(min, { message: min === max ? `must be ${min} ${what}` : `must be ${min} to ${max} ${what}` })
    .max(max, { message: `must be ${min} to ${max} ${what}` });

/**
 * Prefixes of the keys the service stores drafts under for its own credentials: an embed
 * session's namespace (`session:<id>:…`) and an SMS form request's draft (`form-request:<id>`).
 * No caller may name them, or a token call or a pinned session key could reach a patient's draft.
 */
export const RESERVED_DRAFT_KEY_PREFIXES = ["session:", "form-request:"] as const;

export const draftKey = z
  .string({ message: "is required" })
  .min(1, { message: "is required" })
  .max(200, { message: "must be at most 200 characters" })
  .refine((key) => !RESERVED_DRAFT_KEY_PREFIXES.some((prefix) => key.toLowerCase().startsWith(prefix)), {
    message: `must not start with ${RESERVED_DRAFT_KEY_PREFIXES.join(" or ")} (reserved)`,
  });

/** Field values keyed by field key. */
export const formValues = z.record(
  z.string().min(1).max(100, { message: "field keys are at most 100 characters" }),
  z.unknown(),
  { message: "must be an object of field values" },
);
export type FormValues = z.infer<typeof formValues>;

const email = z.email({ message: "must be a valid e-mail address" }).max(320);
/** One address or an array of 1 to 20; normalised to an array. */
export const emailRecipients = z
  .union(
    [
      email,
      z.array(email).min(1, { message: "must name at least one address" }).max(20, { message: "at most 20 addresses" }),
    ],
    {
      message: "must be an e-mail address or an array of them",
    },
  )
  .transform((v) => (Array.isArray(v) ? v : [v]));

export const emailSubject = z
  .string({ message: "must be a string" })
  .max(200, { message: "must be at most 200 characters" });

// ---- sessions ---------------------------------------------------------------------------------

/**
 * An origin that may frame an embedded form: scheme, host and port only, as a browser writes it
 * (`https://clinic.example`, `http://localhost:8080`), so it can go into a CSP header as it is.
 */
export const webOrigin = z
  .string({ message: "must be an origin such as https://clinic.example" })
  .max(300, { message: "must be at most 300 characters" })
  .refine(
    (value) => {
      try {
        const url = new URL(value);
        return (url.protocol === "https:" || url.protocol === "http:") && url.origin === value;
      } catch {
        return false;
      }
    },
    { message: "must be an origin such as https://clinic.example (scheme, host and port; no path, no trailing slash)" },
  );

/**
 * The caller's own institution id (as A1's `institution_id` and `/design` name it): the form page
 * shows that institution's branding. It must be one the organization already knows.
 */
const institutionRef = text(1, 200);

export const sessionConfig = z.strictObject({
  webhookUrl: httpUrl.optional(),
  draftKey: draftKey.optional(),
  redirectUrl: httpUrl.optional(),
  emailTo: emailRecipients.optional(),
  emailSubject: emailSubject.optional(),
  rnummer: text(1, 64).optional(),
  phone: z.string().max(40).optional(),
  prefill: formValues.optional(),
  /** Pages on these origins may frame the form and receive its events; none: it may not be framed. */
  allowedOrigins: z.array(webOrigin).max(10, { message: "at most 10 origins" }).optional(),
  institutionId: institutionRef.optional(),
  /** The language the form opens in (de, en, tr, ar, ru, uk, pl); the patient may still switch. */
  language: patientLanguage.optional(),
  expiresInMinutes: z
    .number({ message: "must be a number of minutes" })
    .int({ message: "must be a whole number" })
    .min(1, { message: "must be at least 1" })
    .max(60 * 24 * 30, { message: "must be at most 43200 (30 days)" })
    .optional(),
});
export type SessionConfigInput = z.input<typeof sessionConfig>;

export const createSessionInput = z.object({
  templateIdentifier,
  config: sessionConfig.default({}),
});
export type CreateSessionInput = z.input<typeof createSessionInput>;

export const createdSession = z.object({ sessionId: z.string(), expiresAt: isoDateTime, embedUrl: z.string() });
export type CreatedSession = z.infer<typeof createdSession>;

/**
 * How a public embed treats the visitor's browser: `fresh` (default) starts every visit empty and
 * keeps nothing in the browser; `resume` offers an unfinished form again (the visitor's choice);
 * `shared_device` (a waiting-room tablet) starts empty and also empties after `idleMinutes`
 * without activity.
 */
export const visitorModes = ["fresh", "resume", "shared_device"] as const;
export const visitorPolicy = z.object({
  mode: z.enum(visitorModes),
  idleMinutes: z.number().int().min(1, { message: "at least 1 minute" }).max(60, { message: "at most 60 minutes" }),
});
export type VisitorPolicyOutput = z.infer<typeof visitorPolicy>;

/** What the embedded form may learn about its own session (no webhook URL, no e-mail list). */
export const sessionInfo = z.object({
  templateIdentifier: z.string(),
  expiresAt: isoDateTime,
  draftKey: z.string().nullable(),
  redirectUrl: z.string().nullable(),
  prefill: formValues,
  allowedOrigins: z.array(z.string()),
  /** The branding of the session's institution, else the organization's default. */
  branding: branding.nullable(),
  /** Who is asking: the page names the organization whatever the branding. */
  organizationName: z.string(),
  /** ISO country whose national phone numbers ("0170 …") phone fields accept. */
  phoneCountry: z.string(),
  /** The language the session was made for (config.language); absent: the page's own. */
  language: patientLanguage.optional(),
  /** A public embed's visitor session: how the browser may keep and offer the form (as set now). */
  visitor: visitorPolicy.optional(),
});
export type SessionInfo = z.infer<typeof sessionInfo>;

/**
 * Staff: the personal links of a template (sessions made for one patient, by staff or a hospital
 * system) that are still valid, newest first, on the staff list contract. Visitors' sessions of
 * a public embed are not listed: they belong to anonymous browsers.
 */
export const listSessionsInput = listInput({ templateIdentifier: templateIdentifier.optional() });
export const personalLink = z.object({
  id: z.uuid(),
  templateIdentifier: z.string(),
  /** The patient's case number, when the link was made with one. */
  rnummer: z.string().nullable(),
  draftKey: z.string().nullable(),
  createdAt: isoDateTime,
  expiresAt: isoDateTime,
});
export type PersonalLink = z.infer<typeof personalLink>;
/** Staff: ends an embed session now (by its record id; the sessionId itself is never stored). */
export const revokeSessionInput = z.object({ id: z.uuid() });

/**
 * A template's public embed: the permanent snippet for a clinic's website. Each visitor's
 * browser starts a session of its own from the code; only pages on `allowedOrigins` may frame it.
 */
export const publicEmbed = z.object({
  templateIdentifier: z.string(),
  code: z.string(),
  allowedOrigins: z.array(z.string()),
  enabled: z.boolean(),
  visitor: visitorPolicy,
  /** The form page the snippet frames: `${PUBLIC_WEB_URL}/embed/<identifier>?embed=<code>`. */
  embedUrl: z.string(),
  updatedAt: isoDateTime,
});
export type PublicEmbed = z.infer<typeof publicEmbed>;

export const publicEmbedRef = z.object({ templateIdentifier });

export const savePublicEmbedInput = z.object({
  templateIdentifier,
  allowedOrigins: z.array(webOrigin).max(10, { message: "at most 10 origins" }),
  enabled: z.boolean(),
  /** Absent: as before (a new embed starts `fresh`, 5 minutes). */
  visitor: visitorPolicy.optional(),
});
export type SavePublicEmbedInput = z.input<typeof savePublicEmbedInput>;

/** A public embed code as the form page carries it (`?embed=`). */
export const publicEmbedCode = z.string().regex(/^pe_[A-Za-z0-9_-]{16,64}$/, { message: "is not an embed code" });

/** What the form page (and the web server's CSP) may learn about a public embed. */
export const publicEmbedInfo = z.object({ enabled: z.boolean(), allowedOrigins: z.array(z.string()) });
export type PublicEmbedInfo = z.infer<typeof publicEmbedInfo>;

/**
 * A visitor's own session, started from a public embed. The browser keeps it in its storage only
 * when the embed offers to resume (`visitor.mode` `resume`); otherwise only in the open page.
 */
export const startedVisitorSession = z.object({
  sessionId: z.string(),
  expiresAt: isoDateTime,
  visitor: visitorPolicy,
});
export type StartedVisitorSession = z.infer<typeof startedVisitorSession>;

// ---- drafts -----------------------------------------------------------------------------------

/** templateIdentifier comes from the session when one is used. */
export const saveDraftInput = z.object({
  templateIdentifier: templateIdentifier.optional(),
  draftKey,
  values: formValues,
  /** The language the patient chose for this draft; remembered for the next visit. */
  language: patientLanguage.optional(),
});
export type SaveDraftInput = z.input<typeof saveDraftInput>;

export const draftRefInput = z.object({
  templateIdentifier: templateIdentifier.optional(),
  draftKey: draftKey.optional(),
});
export type DraftRefInput = z.input<typeof draftRefInput>;

export const draft = z.object({
  id: z.uuid(),
  draftKey: z.string(),
  templateIdentifier: z.string(),
  values: formValues,
  /** The language the patient last chose for this draft; absent: none chosen. */
  language: z.string().optional(),
  updatedAt: isoDateTime,
});
export type Draft = z.infer<typeof draft>;

export const savedDraft = z.object({ draftKey: z.string(), savedAt: isoDateTime });

// ---- submissions ------------------------------------------------------------------------------

export const attachment = z.strictObject({
  name: z.string().min(1).max(255),
  path: z.string().min(1).max(300),
  url: z.string().max(4096).optional(),
  size: z.number().int().min(0),
  type: z.string().max(255),
});
export type Attachment = z.infer<typeof attachment>;

export const submitInput = z.object({
  templateIdentifier: templateIdentifier.optional(),
  values: formValues,
  rnummer: text(1, 64).optional(),
  phone: z.string().max(40).optional(),
  draftKey: draftKey.optional(),
  /** The language the patient answered in; the session's preset or the template's default when left out. */
  language: patientLanguage.optional(),
});
export type SubmitInput = z.input<typeof submitInput>;

/**
 * The form pages' submission (tRPC `submissions.submit`): F10's body and the page's id of this
 * submission (issue 35), made once per submission on the device: a resend after a lost answer is
 * answered with the submission it made, never a second one. F10's own body stays as documented.
 */
export const formPageSubmitInput = submitInput.extend({ actionId: z.uuid().optional() });

export const submitResult = z.object({
  rnummer: z.string().nullable(),
  webhookDelivered: z.boolean(),
  submissionId: z.uuid(),
  redirectUrl: z.string().nullable(),
});
export type SubmitResult = z.infer<typeof submitResult>;

/** The identifiers of a submission that can come from the patient's browser rather than from the service. */
export const patientIdentifiers = ["rnummer", "phone"] as const;
export type PatientIdentifier = (typeof patientIdentifiers)[number];

export const submission = z.object({
  id: z.uuid(),
  templateIdentifier: z.string(),
  templateTitle: z.string(),
  values: formValues,
  rnummer: z.string().nullable(),
  phone: z.string().nullable(),
  /**
   * Which of `rnummer` and `phone` the patient's browser gave and nobody verified (an embed session
   * that did not pin it, a public embed's visitor): kept as given, never the service's word.
   */
  patientReported: z.array(z.enum(patientIdentifiers)),
  actorType: z.string(),
  /** The language the patient answered in (values are the same in every language). */
  language: z.string().nullable(),
  createdAt: isoDateTime,
});
export type Submission = z.infer<typeof submission>;

// ---- uploads ----------------------------------------------------------------------------------

export const uploadedFile = z.object({
  name: z.string(),
  path: z.string(),
  url: z.string(),
  size: z.number(),
  type: z.string(),
});
export type UploadedFile = z.infer<typeof uploadedFile>;

// ---- events and webhooks ----------------------------------------------------------------------

export const formBrowserEvents = ["form.opened", "form.closed"] as const;
/** Cap of a browser event's `data` as JSON text: a note about the page, not a store. */
export const MAX_FORM_EVENT_DATA_BYTES = 2048;
export const formEventInput = z.object({
  event: z.enum(formBrowserEvents, { message: "must be form.opened or form.closed" }),
  /** Whatever the browser says; webhooks carry it only under `untrustedClientData`. */
  data: z
    .record(z.string(), z.unknown(), { message: "must be an object" })
    .refine((data) => new TextEncoder().encode(JSON.stringify(data)).length <= MAX_FORM_EVENT_DATA_BYTES, {
      message: `must be at most ${MAX_FORM_EVENT_DATA_BYTES} bytes as JSON`,
    })
    .optional(),
});

export const testWebhookEvents = ["form.opened", "form.closed", "form.draft_saved"] as const;
export const webhookTestInput = z.object({
  templateIdentifier,
  event: z.enum(testWebhookEvents, { message: "must be form.opened, form.closed or form.draft_saved" }),
  data: z.record(z.string(), z.unknown(), { message: "must be an object" }).optional(),
});

export const webhookLogEntry = z.object({
  id: z.uuid(),
  deliveryId: z.uuid(),
  eventType: z.string(),
  templateIdentifier: z.string().nullable(),
  webhookUrl: z.string(),
  delivered: z.boolean(),
  statusCode: z.number().nullable(),
  errorMessage: z.string().nullable(),
  attempt: z.number(),
  durationMs: z.number(),
  createdAt: isoDateTime,
});
export type WebhookLogEntry = z.infer<typeof webhookLogEntry>;

export const listWebhookEventsInput = z.object({
  eventType: z.string().max(100).optional(),
  templateIdentifier: templateIdentifier.optional(),
  limit: listLimit(50, 200),
});

export const resendWebhookInput = z.object({ deliveryId: z.uuid({ message: "must be a UUID" }) });

// ---- audit ------------------------------------------------------------------------------------

export const auditLogEntry = z.object({
  id: z.uuid(),
  action: z.string(),
  templateIdentifier: z.string().nullable(),
  actorType: z.string(),
  actorId: z.string().nullable(),
  metadata: z.record(z.string(), z.unknown()),
  ip: z.string().nullable(),
  userAgent: z.string().nullable(),
  createdAt: isoDateTime,
});
export type AuditLogEntry = z.infer<typeof auditLogEntry>;

export const listAuditLogsInput = z.object({
  action: z.string().max(100).optional(),
  templateIdentifier: templateIdentifier.optional(),
  limit: listLimit(100, 500),
});

// ---- form requests (F1) and the SMS portal ----------------------------------------------------

export const createFormRequestInput = z.object({
  phone: z
    .string({ message: "is required" })
    .min(1, { message: "is required" })
    .max(40, { message: "is not a valid mobile number" }),
  rnummer: text(2, 64),
  templateIdentifier: templateIdentifier.optional(),
  from: text(1, 32).optional(),
  emailTo: emailRecipients.optional(),
  emailSubject: emailSubject.optional(),
  /** The institution whose branding the portal shows (one the organization knows). */
  institutionId: institutionRef.optional(),
  /**
   * The patient's language: the form opens in it (where the template has it), and the SMS texts
   * (link, OTP code) are in it where they exist (de, en; otherwise the organization's `locale`).
   * The organization's `locale` by default.
   */
  locale: patientLanguage.optional(),
});
export type CreateFormRequestInput = z.input<typeof createFormRequestInput>;

export const smsLinkInput = z.object({ linkToken: z.string().min(16).max(200) });
export const smsVerifyInput = smsLinkInput.extend({
  rnummer: z.string().min(1).max(64),
  phone: z.string().min(1).max(40),
});
export const smsOtpInput = smsLinkInput.extend({
  code: z.string().regex(/^\d{6}$/, { message: "must be 6 digits" }),
});
/** After identification the access lives in an HTTP-only cookie; the page names its link. */
export const smsAccessInput = smsLinkInput;
export const smsSaveDraftInput = smsLinkInput.extend({
  values: formValues,
  language: patientLanguage.optional(),
});
export const smsSubmitInput = smsLinkInput.extend({ values: formValues, language: patientLanguage.optional() });

export const messageSummary = z.object({
  id: z.uuid(),
  channel: z.enum(["sms", "email"]),
  recipients: z.array(z.string()),
  subject: z.string().nullable(),
  body: z.string(),
  purpose: z.string(),
  status: z.string(),
  provider: z.string().nullable(),
  /** The outbox keeps the hidden link or code of this message: an admin may reveal it once. */
  revealable: z.boolean(),
  revealedAt: isoDateTime.nullable(),
  attempts: z.number(),
  lastError: z.string().nullable(),
  createdAt: isoDateTime,
  sentAt: isoDateTime.nullable(),
});
export type MessageSummary = z.infer<typeof messageSummary>;

/** The providers of this install: `outbox` keeps messages in the admin UI instead of sending them. */
export const messageProviders = z.object({ sms: z.enum(["outbox", "twilio"]), email: z.enum(["outbox", "smtp"]) });
export type MessageProviders = z.infer<typeof messageProviders>;

export const revealMessageInput = z.object({ id: z.uuid() });
export const revealedMessage = z.object({ id: z.uuid(), body: z.string(), revealedAt: isoDateTime });
export type RevealedMessage = z.infer<typeof revealedMessage>;

export const listMessagesInput = z.object({ channel: z.enum(["sms", "email"]).optional(), limit: listLimit(50, 200) });
