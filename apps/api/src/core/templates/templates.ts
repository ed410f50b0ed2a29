import { randomBytes } from "node:crypto";
import type { z } from "zod";
import type {
  createTemplateInput,
  ListPage,
  ListSort,
  Template,
  TemplateListItem,
  TemplateOverviewItem,
  TemplateSchema,
  TemplateTranslations,
  updateTemplateInput,
} from "@clinsign/contracts";
import { flagProblems, isPatientLanguage, pruneTranslations, translationProblems } from "@clinsign/contracts";
import {
  count,
  desc,
  eq,
  getTableColumns,
  ilike,
  inArray,
  scopedQuery,
  sql,
  submissions,
  templates,
} from "@clinsign/db";
import { page } from "../lists/keyset";
import { deletePublicEmbedOf } from "../embed-sessions/public-embeds";
import { recordAudit } from "../audit/audit";
import { inTransaction, type OrgContext } from "../context";
import { AppError, notFound } from "../errors";
import { organizationProfile } from "../organizations/profile";

type TemplateRow = typeof templates.$inferSelect;

export function toTemplate(row: TemplateRow): Template {
  return {
    id: row.id,
    identifier: row.identifier,
    title: row.title,
    description: row.description,
    status: row.status,
    schema: row.schema as TemplateSchema,
    defaultLanguage: isPatientLanguage(row.defaultLanguage) ? row.defaultLanguage : "de",
    translations: row.translations as TemplateTranslations,
    createdAt: row.createdAt.toISOString(),
    updatedAt: row.updatedAt.toISOString(),
  };
}

/** URL-safe, stable identifier: a slug of the title and a random suffix. */
export function newTemplateIdentifier(title: string): string {
  const slug = title
    .normalize("NFKD")
    .replace(/[\u0300-\u036f]/g, "")
    .toLowerCase()
    .replace(/ß/g, "ss")
    .replace(/[^a-z0-9]+/g, "-")
    .replace(/^-+|-+$/g, "")
    .slice(0, 48)
    .replace(/-+$/g, "");
  const suffix = randomBytes(5).toString("hex").slice(0, 8);
  return slug ? `${slug}-${suffix}` : `form-${suffix}`;
}

/** Input parsed at the door (`createTemplateInput`): defaults applied, title trimmed. */
export type NewTemplate = z.output<typeof createTemplateInput>;
export type TemplateChanges = z.output<typeof updateTemplateInput>;

/**
 * The translations as stored: an unknown field key, option value or problem code (or an entry for
 * the default language) is a 400 naming each one, so a typo never silently drops a text.
 */
function checkedTranslations(
  schema: TemplateSchema,
  translations: TemplateTranslations,
  defaultLanguage: Template["defaultLanguage"],
): TemplateTranslations {
  refuseProblems("translations", translationProblems(schema, translations, defaultLanguage));
  return translations;
}

/** A flag rule naming no choice field, or one no option can raise, is a 400 naming each (form-flags.ts). */
function checkFlags(schema: TemplateSchema): void {
  refuseProblems("schema", flagProblems(schema));
}

/** Problems found beside the input's own schema, as one 400 naming each under `root`. */
function refuseProblems(root: string, problems: { path: (string | number)[]; message: string }[]): void {
  if (problems.length === 0) return;
  const fieldErrors = problems.map((problem) => ({
    key: [root, ...problem.path].join("."),
    message: problem.message,
  }));
  throw new AppError(
    "invalid_request",
    `${fieldErrors[0]!.key}: ${fieldErrors[0]!.message}`,
    { field: fieldErrors[0]!.key },
    fieldErrors,
  );
}

export async function createTemplate(ctx: OrgContext, input: NewTemplate): Promise<Template> {
  checkFlags(input.schema);
  // Without a language named, a template is written in the language of the clinic's outputs.
  const defaultLanguage = input.defaultLanguage ?? (await organizationProfile(ctx)).locale;
  const translations = checkedTranslations(input.schema, input.translations ?? {}, defaultLanguage);
  return inTransaction(ctx, async (tx) => {
    const [row] = await tx.scope
      .insert(templates, {
        identifier: newTemplateIdentifier(input.title),
        title: input.title,
        description: input.description ?? null,
        status: input.status,
        schema: input.schema,
        defaultLanguage,
        translations,
      })
      .returning();
    await recordAudit(tx, {
      action: "template.created",
      templateIdentifier: row!.identifier,
      metadata: { title: row!.title, status: row!.status },
    });
    return toTemplate(row!);
  });
}

async function findTemplate(ctx: OrgContext, identifier: string): Promise<TemplateRow | undefined> {
  const [row] = await ctx.scope.select(templates, eq(templates.identifier, identifier)).limit(1);
  return row;
}

/** F3: only `active` templates unless staff ask for any status; another organization's is not found. */
export async function getTemplate(
  ctx: OrgContext,
  input: { identifier: string; activeOnly: boolean },
): Promise<Template> {
  const row = await findTemplate(ctx, input.identifier);
  if (!row || (input.activeOnly && row.status !== "active")) {
    throw notFound(input.activeOnly ? "active template" : "template", { field: "templateIdentifier" });
  }
  return toTemplate(row);
}

/** F4's select, built once: integrations poll it. */
const latestTemplates = scopedQuery("latest_templates", (db, organizationId) =>
  db
    .select()
    .from(templates)
    .where(eq(templates.organizationId, organizationId))
    .orderBy(desc(templates.updatedAt), desc(templates.id))
    .limit(sql.placeholder("limit")),
);

export async function listTemplates(ctx: OrgContext, input: { limit: number }): Promise<TemplateListItem[]> {
  const rows = await ctx.scope.run(latestTemplates, { limit: input.limit });
  return rows.map((row) => ({
    identifier: row.identifier,
    title: row.title,
    status: row.status,
    updatedAt: row.updatedAt.toISOString(),
  }));
}

/**
 * The staff console's list (the list contract): title search and status filter, newest change
 * first, each template with its number of questions and of submissions (one grouped count over
 * the submissions index for the templates on the page).
 */
export async function templateOverview(
  ctx: OrgContext,
  input: { q?: string; status?: Template["status"]; cursor?: string; limit: number; sort: ListSort },
): Promise<ListPage<TemplateOverviewItem>> {
  const query = ctx.scope
    .query(getTableColumns(templates))
    .from(templates)
    .where(
      input.status ? eq(templates.status, input.status) : undefined,
      input.q ? ilike(templates.title, `%${input.q.replace(/[\\%_]/g, (c) => `\\${c}`)}%`) : undefined,
    );
  const found = await page(query, [templates.updatedAt, templates.id], input, (row) => row);
  const counts = found.items.length
    ? await ctx.scope
        .query({ identifier: submissions.templateIdentifier, count: count() })
        .from(submissions)
        .where(
          inArray(
            submissions.templateIdentifier,
            found.items.map((row) => row.identifier),
          ),
        )
        .groupBy(submissions.templateIdentifier)
    : [];
  const byIdentifier = new Map(counts.map((row) => [row.identifier, Number(row.count)]));
  return {
    ...found,
    items: found.items.map((row) => ({
      identifier: row.identifier,
      title: row.title,
      status: row.status,
      updatedAt: row.updatedAt.toISOString(),
      fieldCount: (row.schema as TemplateSchema).fields.filter(
        (field) => field.type !== "heading" && field.type !== "paragraph",
      ).length,
      submissionCount: byIdentifier.get(row.identifier) ?? 0,
    })),
  };
}

export async function updateTemplate(ctx: OrgContext, input: TemplateChanges): Promise<Template> {
  const { identifier, ...changes } = input;
  const set: Record<string, unknown> = Object.fromEntries(
    Object.entries(changes).filter(([, value]) => value !== undefined),
  );
  if (changes.schema) checkFlags(changes.schema);
  return inTransaction(ctx, async (tx) => {
    if (changes.schema || changes.translations || changes.defaultLanguage) {
      // Translations are checked against the schema they will stand beside; a schema changed
      // alone drops the texts of fields and options it no longer has.
      const [current] = await tx.scope.select(templates, eq(templates.identifier, identifier)).limit(1);
      if (!current) throw notFound("template", { field: "identifier" });
      const schema = changes.schema ?? (current.schema as TemplateSchema);
      const defaultLanguage = changes.defaultLanguage ?? toTemplate(current).defaultLanguage;
      // A new default language that the stored translations have is refused like an explicit one.
      set.translations = checkedTranslations(
        schema,
        changes.translations ?? pruneTranslations(schema, current.translations as TemplateTranslations),
        defaultLanguage,
      );
    }
    const [row] = await tx.scope
      .update(templates, { ...set, updatedAt: new Date() }, eq(templates.identifier, identifier))
      .returning();
    if (!row) throw notFound("template", { field: "identifier" });
    await recordAudit(tx, {
      action: "template.updated",
      templateIdentifier: identifier,
      metadata: { changed: Object.keys(set).sort() },
    });
    return toTemplate(row);
  });
}

/** Deletes the template; submissions made with it are kept (they hold their own copy). */
export async function deleteTemplate(ctx: OrgContext, input: { identifier: string }): Promise<void> {
  await inTransaction(ctx, async (tx) => {
    const [row] = await tx.scope.delete(templates, eq(templates.identifier, input.identifier)).returning();
    if (!row) throw notFound("template", { field: "identifier" });
    await deletePublicEmbedOf(tx, input.identifier);
    await recordAudit(tx, {
      action: "template.deleted",
      templateIdentifier: input.identifier,
      metadata: { title: row.title },
    });
  });
}
