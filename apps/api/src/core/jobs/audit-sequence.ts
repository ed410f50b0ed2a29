import { OrgScope, rowsOf, sql, type Executor } from "@clinsign/db";

/**
 * The audit sequence's current value: the largest seq handed out so far, in any organization (the
 * sequence is the cluster's, see audit_log_next_seq). Verify checks an organization's entries
 * against it; the chainer's watermark starts from it.
 */
export async function sequenceHighWater(db: OrgScope | Executor): Promise<number> {
  const handle = db instanceof OrgScope ? OrgScope.unscoped(db) : db;
  const [row] = rowsOf<{ last_value: string | number; is_called: boolean }>(
    await handle.execute(sql`select last_value, is_called from audit_log_seq`),
  );
  return row!.is_called ? Number(row!.last_value) : Number(row!.last_value) - 1;
}
