import type { Draft, DraftRefInput, SaveDraftInput } from "@clinsign/contracts";
import { and, drafts, eq, scopedStatement, sql } from "@clinsign/db";
import { auditInsertFrom, auditInsertValues, recordAudit } from "../audit/audit";
import { inTransaction, type OrgContext } from "../context";
import { AppError, notFound } from "../errors";
import { formTemplateIdentifier, namedDraftKey, resolveDraftKey, resolveFormTemplate } from "../forms/form-template";
import { emitWebhookEvent } from "../webhooks/webhooks";

const MAX_DRAFT_BYTES = 512 * 1024;

const isEmptyValue = (v: unknown) => v === null || v === undefined || v === "" || (Array.isArray(v) && v.length === 0);

/** `draftKey` is the name the caller used, not the session-namespaced key it is stored under. */
function toDraft(row: typeof drafts.$inferSelect, draftKey: string): Draft {
  return {
    id: row.id,
    draftKey,
    templateIdentifier: row.templateIdentifier,
    values: row.values,
    ...(row.language && { language: row.language }),
    updatedAt: row.updatedAt.toISOString(),
  };
}

/** What the draft statement found: saved, or why not. */
type DraftStatementOutcome = "saved" | "no_template" | "too_large" | "webhooks";

interface DraftStatementResult {
  outcome: DraftStatementOutcome;
  draftId: string | null;
  /** ISO 8601 with milliseconds, as the draft's `updated_at` reads in JavaScript. */
  savedAt: string | null;
  /** The organization's default webhook URLs, read by the same statement. */
  webhookUrls: string[];
}

type DraftStatementRow = { webhook_urls: string; draft_id: string | null; saved_at: string | null };

/**
 * The template check, the merge and the audit entry of one save in one statement. With
 * `unlessWebhooks` it changes nothing when the organization has default webhook URLs (outcome
 * `webhooks`, with the URLs), so the caller can queue the event in one transaction with the save.
 *
 * Every table is reached by the scope's organization: the template, the organization's URLs,
 * the draft row and the audit entry. Its two texts (with and without `unlessWebhooks`) are built
 * once and kept prepared per connection, so PostgreSQL parses and plans them once and a save is
 * one round trip. The statement is kept plain on purpose all the same: with prepared statements
 * off (a pooler), each further CTE or sub-select costs PostgreSQL more planning on every call than
 * the merge itself.
 */
function draftStatement(unlessWebhooks: boolean) {
  const value = (name: "templateIdentifier" | "storedKey" | "valuesJson" | "language") => sql.placeholder(name);
  // No row in `target` (no active template) or none passing this filter (webhooks to queue)
  // means the insert selects nothing; the audit entry is one per row `saved` returns, so a save
  // that did not happen is never audited.
  const onlyWithoutWebhooks = unlessWebhooks ? sql`where jsonb_array_length(target.urls) = 0` : sql``;
  return scopedStatement<DraftStatementRow>(
    unlessWebhooks ? "save_draft_unless_webhooks" : "save_draft",
    (organizationId) => sql`
    with target as (
      select t.identifier, o.webhook_urls as urls
      from templates t join organizations o on o.id = t.organization_id
      where t.organization_id = ${organizationId} and t.identifier = ${value("templateIdentifier")} and t.status = 'active'
    ),
    saved as (
      insert into ${drafts} as d (id, organization_id, template_identifier, draft_key, values, language)
      select gen_random_uuid(), ${organizationId}, target.identifier, ${value("storedKey")}, ${value("valuesJson")}::jsonb,
        ${value("language")}::text
      from target ${onlyWithoutWebhooks}
      on conflict (organization_id, template_identifier, draft_key) do update
        set values = d.values || excluded.values, language = coalesce(excluded.language, d.language), updated_at = now()
        -- The cap holds for the merged draft too, checked in the same statement as the merge.
        where octet_length((d.values || excluded.values)::text) <= ${MAX_DRAFT_BYTES}
      returning d.id, d.updated_at
    ),
    audited as (${auditInsertFrom(organizationId, sql`saved`)})
    select target.urls::text as webhook_urls, saved.id::text as draft_id,
      to_char(saved.updated_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') as saved_at
    from target left join saved on true`,
  );
}
const SAVE_DRAFT = draftStatement(false);
const SAVE_DRAFT_UNLESS_WEBHOOKS = draftStatement(true);

async function saveDraftStatement(
  ctx: OrgContext,
  save: {
    templateIdentifier: string;
    storedKey: string;
    keys: string[];
    valuesJson: string;
    language: string | null;
    unlessWebhooks: boolean;
  },
): Promise<DraftStatementResult> {
  const [row] = await ctx.scope.run(save.unlessWebhooks ? SAVE_DRAFT_UNLESS_WEBHOOKS : SAVE_DRAFT, {
    templateIdentifier: save.templateIdentifier,
    storedKey: save.storedKey,
    valuesJson: save.valuesJson,
    language: save.language,
    ...auditInsertValues(ctx, {
      action: "form.draft_saved",
      templateIdentifier: save.templateIdentifier,
      metadata: { draftKey: save.storedKey, keys: save.keys },
    }),
  });
  if (!row) return { outcome: "no_template", draftId: null, savedAt: null, webhookUrls: [] };
  const webhookUrls = row.webhook_urls === "[]" ? [] : (JSON.parse(row.webhook_urls) as string[]);
  const outcome: DraftStatementOutcome = row.draft_id
    ? "saved"
    : save.unlessWebhooks && webhookUrls.length > 0
      ? "webhooks"
      : "too_large";
  return { outcome, draftId: row.draft_id, savedAt: row.saved_at, webhookUrls };
}

/**
 * F7: merges `values` into the draft in one statement (`values || new`), so concurrent saves of
 * different keys all survive. Empty saves are refused and store nothing, unless they name the
 * patient's language (a switch of language before any answer is remembered too).
 *
 * The hottest write there is (every 1.5 s per patient filling a form), so it does no more than it
 * must: `input` is already validated by the door it came through (the REST route, the tRPC
 * procedure, the SMS form's procedure), and when no webhook is to be queued (the usual case)
 * the template check, the merge and the audit entry are one statement, atomic on its own: no
 * BEGIN/COMMIT round trips, no query building beyond one `sql` template. With a webhook, the
 * save, its audit entry and the queued deliveries commit together in one transaction.
 */
export async function saveDraft(
  ctx: OrgContext,
  input: SaveDraftInput,
): Promise<{ draftKey: string; savedAt: string }> {
  const entries = Object.entries(input.values);
  if (!input.language && (entries.length === 0 || entries.every(([, v]) => isEmptyValue(v)))) {
    throw new AppError("invalid_request", "values: an empty form is not saved", { field: "values" }, [
      { key: "values", message: "must contain at least one value" },
    ]);
  }
  // Serialized once: for the size check and as the statement's parameter.
  const valuesJson = JSON.stringify(input.values);
  if (Buffer.byteLength(valuesJson) > MAX_DRAFT_BYTES) {
    throw new AppError("payload_too_large", `values exceed ${MAX_DRAFT_BYTES} bytes`, { field: "values" });
  }
  const storedKey = resolveDraftKey(ctx, input.draftKey)!;
  const templateIdentifier = formTemplateIdentifier(ctx, input.templateIdentifier);
  const keys = Object.keys(input.values).sort();
  const save = { templateIdentifier, storedKey, keys, valuesJson, language: input.language ?? null };

  // A session's own webhookUrl replaces the organization's: the save always queues an event.
  const sessionWebhookUrl = ctx.formGrant?.config.webhookUrl;
  let webhookUrls = sessionWebhookUrl ? [sessionWebhookUrl] : undefined;
  if (!webhookUrls) {
    const attempt = await saveDraftStatement(ctx, { ...save, unlessWebhooks: true });
    if (attempt.outcome !== "webhooks") return answer(input.draftKey, attempt);
    webhookUrls = attempt.webhookUrls;
  }
  const urls = webhookUrls;
  return inTransaction(ctx, async (tx) => {
    const saved = await saveDraftStatement(tx, { ...save, unlessWebhooks: false });
    const result = answer(input.draftKey, saved);
    await emitWebhookEvent(tx, {
      event: "form.draft_saved",
      templateIdentifier,
      urls,
      data: { draftKey: input.draftKey, draftId: saved.draftId, keys },
    });
    return result;
  });
}

/** F7's answer for a statement that saved, or the error for one that did not. */
function answer(draftKey: string, result: DraftStatementResult): { draftKey: string; savedAt: string } {
  if (result.outcome === "no_template") throw notFound("active template", { field: "templateIdentifier" });
  if (result.outcome !== "saved")
    throw new AppError("payload_too_large", `the draft would exceed ${MAX_DRAFT_BYTES} bytes`, { field: "values" });
  return { draftKey, savedAt: result.savedAt! };
}

/** The stored key of the draft a call reaches, and the name to answer with. */
function requireDraftKey(ctx: OrgContext, input: DraftRefInput): { stored: string; named: string } {
  const stored = resolveDraftKey(ctx, input.draftKey);
  const named = namedDraftKey(ctx, input.draftKey);
  if (!stored || !named) throw new AppError("invalid_request", "draftKey: is required", { field: "draftKey" });
  return { stored, named };
}

/** F8: the draft, or null when none exists. */
export async function getDraft(ctx: OrgContext, input: DraftRefInput): Promise<Draft | null> {
  const draftKey = requireDraftKey(ctx, input);
  const template = await resolveFormTemplate(ctx, input.templateIdentifier);
  const [row] = await ctx.scope
    .select(drafts, and(eq(drafts.templateIdentifier, template.identifier), eq(drafts.draftKey, draftKey.stored)))
    .limit(1);
  return row ? toDraft(row, draftKey.named) : null;
}

/** F9: deletes the draft; deleting one that does not exist is still ok (idempotent). */
export async function deleteDraft(ctx: OrgContext, input: DraftRefInput): Promise<{ deleted: boolean }> {
  const draftKey = requireDraftKey(ctx, input);
  const template = await resolveFormTemplate(ctx, input.templateIdentifier);
  return inTransaction(ctx, async (tx) => {
    const removed = await deleteDraftIn(tx, template.identifier, draftKey.stored, "deleted");
    return { deleted: removed };
  });
}

/** Deletes a draft inside the caller's transaction and audits it; used by F9 and after submit. */
export async function deleteDraftIn(
  tx: OrgContext,
  templateIdentifier: string,
  draftKey: string,
  reason: "deleted" | "submitted",
): Promise<boolean> {
  const rows = await tx.scope
    .delete(drafts, and(eq(drafts.templateIdentifier, templateIdentifier), eq(drafts.draftKey, draftKey)))
    .returning({ id: drafts.id });
  if (rows.length === 0) return false;
  await recordAudit(tx, { action: "form.draft_deleted", templateIdentifier, metadata: { draftKey, reason } });
  return true;
}
