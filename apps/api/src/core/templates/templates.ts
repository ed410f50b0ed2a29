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
  updateTemplateInput,
} from "@clinsign/contracts";
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
import { notFound } from "../errors";

type TemplateRow = typeof templates.$inferSelect;

export function toTemplate(row: TemplateRow): Template {
  return {
    id: row.id,
    identifier: row.identifier,
    title: row.title,
    description: row.description,
    status: row.status,
    schema: row.schema as TemplateSchema,
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

export async function createTemplate(ctx: OrgContext, input: NewTemplate): Promise<Template> {
  return inTransaction(ctx, async (tx) => {
    const [row] = await tx.scope
      .insert(templates, {
        identifier: newTemplateIdentifier(input.title),
        title: input.title,
        description: input.description ?? null,
        status: input.status,
        schema: input.schema,
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
  const set = Object.fromEntries(Object.entries(changes).filter(([, value]) => value !== undefined));
  return inTransaction(ctx, async (tx) => {
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
