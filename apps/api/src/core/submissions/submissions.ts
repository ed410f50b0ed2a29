import type { z } from "zod";
import {
  contentLanguage,
  normalizePhoneValues,
  visibleValues,
  withComputedScores,
  type FormField,
  type formPageSubmitInput,
  type submitInput,
  type SubmitResult,
  type TemplateSchema,
} from "@clinsign/contracts";
import { eq, isNull, sql, submissions } from "@clinsign/db";
import { recordAudit } from "../audit/audit";
import { afterCommit, inTransaction, type OrgContext } from "../context";
import { AppError } from "../errors";
import {
  resolveDraftKey,
  resolveFormTemplate,
  resolvePatientIdentifiers,
  type PatientIdentifiers,
} from "../forms/form-template";
import { deleteDraftIn } from "../drafts/drafts";
import { queueMessage } from "../messaging/messaging";
import { organizationProfile } from "../organizations/profile";
import { deliverAfterCommit, emitWebhookEvent, type FirstAttempt } from "../webhooks/webhooks";
import { queueFhirPush } from "../fhir-push/deliveries";
import { scoreText } from "./answers";
import { submissionToQuestionnaireResponse } from "../fhir/questionnaire-response";
import { validateSubmission } from "./validate";
import { toTemplate } from "../templates/templates";

/** What the submission of an SMS form request (F1) takes from the request rather than the input. */
export interface SmsFormSubmission {
  formRequestId: string;
  /** The request's own draft (a reserved key no caller may name, so it never passes `submitInput`). */
  draftKey: string;
  rnummer: string;
  phone: string;
  emailTo: string[];
  emailSubject: string | null;
  /** The language the request was sent in (its preset), when the patient did not name one. */
  language: string | null;
}

function renderValue(field: FormField | undefined, value: unknown): string {
  if (Array.isArray(value))
    return value
      .map((v) => (v && typeof v === "object" && "name" in v ? String((v as { name: unknown }).name) : String(v)))
      .join(", ");
  if (typeof value === "boolean") return value ? "yes" : "no";
  if (field?.type === "signature") return "(signature image)";
  if (field?.type === "score") return scoreText(value);
  return typeof value === "object" ? JSON.stringify(value) : String(value);
}

/** The plain-text e-mail of a submission: reference, time, then each answered field by label. */
export function submissionEmailBody(
  title: string,
  schema: TemplateSchema,
  values: Record<string, unknown>,
  rnummer: string | null,
  at: Date,
  rnummerPatientReported = false,
): string {
  const lines = [`Form: ${title}`, `Submitted: ${at.toISOString()}`];
  if (rnummer)
    lines.push(
      `Reference (rnummer): ${rnummer}${rnummerPatientReported ? " (given by the patient, not verified)" : ""}`,
    );
  lines.push("");
  for (const field of schema.fields) {
    if (field.key === undefined || !(field.key in values)) continue;
    lines.push(`${field.label || field.key}: ${renderValue(field, values[field.key])}`);
  }
  return lines.join("\n");
}

/**
 * The identifiers of the `form.submitted` body: `rnummer` and `phone` as the document names them
 * are only what the service vouches for (null otherwise); a value the patient's browser gave sits
 * under `untrustedClientData`, as in the browser's own events, so a receiver never files the
 * answers under a patient the browser chose.
 */
function webhookIdentifiers({ rnummer, phone, patientReported }: PatientIdentifiers) {
  const reported = { rnummer, phone };
  const untrusted = Object.fromEntries(patientReported.map((key) => [key, reported[key]]));
  return {
    rnummer: patientReported.includes("rnummer") ? null : rnummer,
    phone: patientReported.includes("phone") ? null : phone,
    ...(patientReported.length > 0 && { untrustedClientData: untrusted }),
  };
}

/**
 * F10, in the document's order, after the check of whose submission it is
 * (`resolvePatientIdentifiers`: 403 when an embed session's browser names another patient than
 * the session pins). Validation first (400 with fieldErrors; fields hidden by their conditions are
 * skipped and their values dropped). Then one transaction (the caller's, when it
 * has one, e.g. the SMS form's claim and submit): the submission, the draft's deletion, the
 * webhook deliveries, the `form.submitted` audit entry and the result e-mail. After the outermost
 * commit the webhook's first attempt runs (and, when this call opened the transaction, decides
 * `webhookDelivered`); a failed webhook is retried by the job runner and never touches the stored
 * submission. `input` was parsed by the door (`submitInput`).
 */
export async function submitForm(
  ctx: OrgContext,
  input: z.output<typeof formPageSubmitInput>,
  smsForm?: SmsFormSubmission,
): Promise<SubmitResult> {
  // The page's id of this submission (issue 35): a resend after a lost answer is answered with the
  // submission the first one made. An SMS link submits once anyway (its access ends with it).
  const actionId = smsForm ? null : (input.actionId ?? null);
  const prepared = await prepareSubmission(ctx, input, smsForm);
  const stored = await inTransaction(ctx, (tx) => storeSubmission(tx, prepared, actionId));
  if (!stored) {
    // The id is stored already (a resend, or two at once): the submission it made is the answer.
    // Another caller's id is not this caller's to use.
    const made = await submittedBefore(ctx, actionId!);
    if (made) return made;
    throw new AppError("conflict", "this submission id was used already", { field: "actionId" });
  }
  const { submissionId, firstAttempt } = stored;
  return {
    rnummer: prepared.identifiers.rnummer,
    // Set by the after-commit delivery; still false here when an enclosing transaction runs it later.
    webhookDelivered: firstAttempt.delivered,
    submissionId,
    redirectUrl: prepared.config.redirectUrl ?? null,
  };
}

/**
 * The submission a page's action made already, as the answer the page would have got: the same
 * organization and the same caller (embed session or visitor), so an action id alone opens nothing.
 * Whether its webhook's first attempt went through is not known here (the page does not use it).
 */
async function submittedBefore(ctx: OrgContext, actionId: string): Promise<SubmitResult | null> {
  const [row] = await ctx.scope.select(
    submissions,
    eq(submissions.clientActionId, actionId),
    ctx.actor.id === null ? isNull(submissions.actorId) : eq(submissions.actorId, ctx.actor.id),
  );
  if (!row) return null;
  return {
    rnummer: row.rnummer,
    webhookDelivered: false,
    submissionId: row.id,
    redirectUrl: ctx.formGrant?.config.redirectUrl ?? null,
  };
}

/** Everything a submission stores, checked and computed before the transaction opens. */
interface PreparedSubmission {
  template: Awaited<ReturnType<typeof resolveFormTemplate>>;
  schema: TemplateSchema;
  identifiers: PatientIdentifiers;
  config: NonNullable<OrgContext["formGrant"]>["config"];
  draftKey: string | null | undefined;
  smsForm: SmsFormSubmission | undefined;
  emailTo: string[];
  emailSubject: string | null;
  languages: ReturnType<typeof toTemplate>;
  language: string;
  values: Record<string, unknown>;
}

async function prepareSubmission(
  ctx: OrgContext,
  input: z.output<typeof submitInput>,
  smsForm: SmsFormSubmission | undefined,
): Promise<PreparedSubmission> {
  const template = await resolveFormTemplate(ctx, input.templateIdentifier);
  const schema = template.schema as TemplateSchema;
  // Phone fields take the organization's national numbers ("0170 …") as well as international ones.
  const { phoneCountry } = await organizationProfile(ctx);
  // Before anything else: a browser naming another patient than its session's is refused (403).
  const identifiers: PatientIdentifiers = smsForm
    ? { rnummer: smsForm.rnummer, phone: smsForm.phone, patientReported: [] }
    : resolvePatientIdentifiers(ctx, input, phoneCountry);
  const fieldErrors = await validateSubmission(ctx, template.identifier, schema, input.values, { phoneCountry });
  if (fieldErrors.length > 0) {
    throw new AppError("invalid_request", "validation failed", { field: fieldErrors[0]!.key }, fieldErrors);
  }
  const config = ctx.formGrant?.config ?? {};
  // The language the patient read the form in: theirs where the template has it, else its default.
  const languages = toTemplate(template);
  return {
    template,
    schema,
    identifiers,
    config,
    draftKey: smsForm?.draftKey ?? resolveDraftKey(ctx, input.draftKey),
    smsForm,
    emailTo: smsForm?.emailTo ?? config.emailTo ?? [],
    emailSubject: smsForm?.emailSubject ?? config.emailSubject ?? null,
    languages,
    language: contentLanguage(languages, input.language ?? smsForm?.language ?? config.language),
    // Fields hidden by their visibleWhen were neither required nor validated; they are not kept
    // either. Phone answers are kept in E.164, however they were typed. Score fields get the
    // score computed here from the answers: whatever the client sent under their keys is dropped.
    values: withComputedScores(
      schema,
      normalizePhoneValues(schema, visibleValues(schema, input.values), { phoneCountry }),
    ),
  };
}

/** The submission row, the draft's deletion, the webhook deliveries, the audit entry and the result e-mail. */
async function storeSubmission(
  tx: OrgContext,
  prepared: PreparedSubmission,
  actionId: string | null,
): Promise<{ submissionId: string; firstAttempt: FirstAttempt } | null> {
  const { template, identifiers, values, language, languages, smsForm } = prepared;
  const { rnummer, phone, patientReported } = identifiers;
  const [row] = await tx.scope
    .insert(submissions, {
      templateIdentifier: template.identifier,
      templateTitle: template.title,
      templateSchema: template.schema,
      values,
      rnummer,
      phone,
      rnummerPatientReported: patientReported.includes("rnummer"),
      phonePatientReported: patientReported.includes("phone"),
      actorType: tx.actor.type,
      actorId: tx.actor.id,
      formRequestId: smsForm?.formRequestId ?? null,
      language,
      templateLanguage: languages.defaultLanguage,
      templateTranslations: languages.translations,
      clientActionId: actionId,
    })
    .onConflictDoNothing({
      target: [submissions.organizationId, submissions.clientActionId],
      where: sql`${submissions.clientActionId} is not null`,
    })
    .returning();
  // The same action stored meanwhile by a parallel resend: nothing more to do here.
  if (!row) return null;
  if (prepared.draftKey) await deleteDraftIn(tx, template.identifier, prepared.draftKey, "submitted");
  const deliveries = await emitSubmitted(tx, prepared, row!);
  await queueFhirPush(tx, { kind: "submission", id: row!.id });
  await recordAudit(tx, {
    action: "form.submitted",
    templateIdentifier: template.identifier,
    metadata: {
      rnummer,
      phone,
      fieldCount: Object.keys(values).length,
      submissionId: row!.id,
      language,
      ...(patientReported.length > 0 && { patientReported }),
    },
  });
  if (prepared.emailTo.length > 0) {
    await queueMessage(tx, {
      channel: "email",
      recipients: prepared.emailTo,
      subject: prepared.emailSubject ?? `Form submitted: ${template.title}`,
      body: submissionEmailBody(
        template.title,
        prepared.schema,
        values,
        rnummer,
        row!.createdAt,
        patientReported.includes("rnummer"),
      ),
      purpose: "submission.email",
    });
  }
  const firstAttempt = await deliverAfterCommit(tx, deliveries);
  // Then a pass of the job runner, which takes up what the first attempt left (as before issue 22).
  await afterCommit(tx, "jobs.wake", () => tx.services.jobs?.wake());
  return { submissionId: row!.id, firstAttempt };
}

/** The `form.submitted` webhook, in the organization's format (Settings): native, the QuestionnaireResponse, or both. */
async function emitSubmitted(tx: OrgContext, prepared: PreparedSubmission, row: typeof submissions.$inferSelect) {
  const data = {
    ...webhookIdentifiers(prepared.identifiers),
    values: prepared.values,
    submissionId: row.id,
    language: prepared.language,
  };
  const { webhookFormat } = await tx.scope.organization();
  const questionnaireResponse =
    webhookFormat === "native" ? undefined : await submissionToQuestionnaireResponse(tx, row);
  return emitWebhookEvent(tx, {
    event: "form.submitted",
    templateIdentifier: prepared.template.identifier,
    data: webhookFormat === "both" ? { ...data, questionnaireResponse } : data,
    ...(webhookFormat === "fhir" && { body: JSON.stringify(questionnaireResponse) }),
    inline: true,
  });
}
