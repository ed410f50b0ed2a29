import type { AuditLogEntry } from "@clinsign/contracts";
import { auditLog, desc, eq } from "@clinsign/db";
import type { OrgContext } from "../context";

/** F13: newest first, filtered by action and template (indexes: org + action and/or template + seq). */
export async function listAuditLog(ctx: OrgContext, input: { action?: string; templateIdentifier?: string; limit: number }): Promise<AuditLogEntry[]> {
  const rows = await ctx.scope
    .select(
      auditLog,
      input.action ? eq(auditLog.action, input.action) : undefined,
      input.templateIdentifier ? eq(auditLog.templateIdentifier, input.templateIdentifier) : undefined,
    )
    // seq is the chain order (gapless, increasing with time), and every filter has an index ending in it.
    .orderBy(desc(auditLog.seq))
    .limit(input.limit);
  return rows.map((r) => ({
    id: r.id,
    action: r.action,
    templateIdentifier: r.templateIdentifier,
    actorType: r.actorType,
    actorId: r.actorId,
    metadata: r.metadata,
    ip: r.ip,
    userAgent: r.userAgent,
    createdAt: r.createdAt.toISOString(),
  }));
}
