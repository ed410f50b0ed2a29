import type { Draft, DraftRefInput, SaveDraftInput } from "@clinsign/contracts";
import { and, drafts, eq, sql } from "@clinsign/db";
import { recordAudit } from "../audit/audit";
import { inTransaction, type OrgContext } from "../context";
import { AppError } from "../errors";
import { namedDraftKey, resolveDraftKey, resolveFormTemplate } from "../forms/form-template";
import { emitWebhookEvent, webhookUrlsFor } from "../webhooks/webhooks";

const MAX_DRAFT_BYTES = 512 * 1024;

const isEmptyValue = (v: unknown) => v === null || v === undefined || v === "" || (Array.isArray(v) && v.length === 0);

/** `draftKey` is the name the caller used, not the session-namespaced key it is stored under. */
function toDraft(row: typeof drafts.$inferSelect, draftKey: string): Draft {
  return { id: row.id, draftKey, templateIdentifier: row.templateIdentifier, values: row.values, updatedAt: row.updatedAt.toISOString() };
}

/**
 * F7: merges `values` into the draft in one statement (`values || new`), so concurrent saves of
 * different keys all survive. Empty saves are refused and store nothing.
 *
 * The hottest write there is (every 1.5 s per patient filling a form), so it does no more than it
 * must: `input` is already validated by the door it came through (the REST route, the tRPC
 * procedure, the SMS portal's procedure), the two reads run side by side before the transaction,
 * and the transaction holds no lock beyond the draft's row (the audit entry is a plain insert).
 */
export async function saveDraft(ctx: OrgContext, input: SaveDraftInput): Promise<{ draftKey: string; savedAt: string }> {
  const entries = Object.entries(input.values);
  if (entries.length === 0 || entries.every(([, v]) => isEmptyValue(v))) {
    throw new AppError("invalid_request", "values: an empty form is not saved", { field: "values" }, [{ key: "values", message: "must contain at least one value" }]);
  }
  if (Buffer.byteLength(JSON.stringify(input.values)) > MAX_DRAFT_BYTES) {
    throw new AppError("payload_too_large", `values exceed ${MAX_DRAFT_BYTES} bytes`, { field: "values" });
  }
  const storedKey = resolveDraftKey(ctx, input.draftKey)!;
  const [template, webhookUrls] = await Promise.all([resolveFormTemplate(ctx, input.templateIdentifier), webhookUrlsFor(ctx)]);
  return inTransaction(ctx, async (tx) => {
    const [row] = await tx.scope
      .insert(drafts, { templateIdentifier: template.identifier, draftKey: storedKey, values: input.values })
      .onConflictDoUpdate({
        target: [drafts.organizationId, drafts.templateIdentifier, drafts.draftKey],
        set: { values: sql`${drafts.values} || excluded.values`, updatedAt: sql`now()` },
        // The cap holds for the merged draft too, checked in the same statement as the merge.
        setWhere: sql`octet_length((${drafts.values} || excluded.values)::text) <= ${MAX_DRAFT_BYTES}`,
      })
      .returning({ id: drafts.id, updatedAt: drafts.updatedAt });
    if (!row) throw new AppError("payload_too_large", `the draft would exceed ${MAX_DRAFT_BYTES} bytes`, { field: "values" });
    const keys = Object.keys(input.values).sort();
    await recordAudit(tx, { action: "form.draft_saved", templateIdentifier: template.identifier, metadata: { draftKey: storedKey, keys } });
    await emitWebhookEvent(tx, {
      event: "form.draft_saved",
      templateIdentifier: template.identifier,
      urls: webhookUrls,
      data: { draftKey: input.draftKey, draftId: row.id, keys },
    });
    return { draftKey: input.draftKey, savedAt: row.updatedAt.toISOString() };
  });
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
export async function deleteDraftIn(tx: OrgContext, templateIdentifier: string, draftKey: string, reason: "deleted" | "submitted"): Promise<boolean> {
  const rows = await tx.scope
    .delete(drafts, and(eq(drafts.templateIdentifier, templateIdentifier), eq(drafts.draftKey, draftKey)))
    .returning({ id: drafts.id });
  if (rows.length === 0) return false;
  await recordAudit(tx, { action: "form.draft_deleted", templateIdentifier, metadata: { draftKey, reason } });
  return true;
}
