import { and, eq, ne, templates } from "@clinsign/db";
import type { Services } from "../context";

/**
 * Whether another organization holds a template of this identifier. F1 answers 403 (not 404) for
 * a template a caller's organization does not have but another one does (identifiers are unique
 * per organization only). The read spans organizations, so it lives here with the other lookups
 * that do; it answers a yes or no, never the other organization's row.
 */
export async function templateHeldElsewhere(
  services: Services,
  organizationId: string,
  identifier: string,
): Promise<boolean> {
  const [row] = await services.db
    .select({ id: templates.id })
    .from(templates)
    .where(and(eq(templates.identifier, identifier), ne(templates.organizationId, organizationId)))
    .limit(1);
  return row !== undefined;
}
