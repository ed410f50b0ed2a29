/**
 * Scale data for A2 and F13, written with SQL straight into the bench database (never through
 * the API): `insert … select … from generate_series`, spread over the organization under test and
 * four filler organizations, then ANALYZE. PostgreSQL only.
 */
import type postgres from "postgres";

export const FILLER_ORGS = 4;

export interface BulkOrg {
  id: string;
  documentId: string;
  institutionId: string;
}

/** Four more organizations, each with one document and one institution for the rows' foreign keys. */
export async function createFillerOrgs(sql: postgres.Sql): Promise<BulkOrg[]> {
  const orgs: BulkOrg[] = [];
  for (let i = 1; i <= FILLER_ORGS; i++) {
    const [org] = await sql<
      { id: string }[]
    >`insert into organizations (id, name) values (gen_random_uuid(), ${`Bench filler ${i}`}) returning id`;
    const [doc] = await sql<{ id: string }[]>`
      insert into documents (id, organization_id, name, source_url) values (gen_random_uuid(), ${org!.id}, 'Bulk document', 'http://127.0.0.1/bulk.pdf') returning id`;
    const [inst] = await sql<{ id: string }[]>`
      insert into institutions (id, organization_id, external_id) values (gen_random_uuid(), ${org!.id}, 'bulk-inst') returning id`;
    orgs.push({ id: org!.id, documentId: doc!.id, institutionId: inst!.id });
  }
  return orgs;
}

const countRows = async (sql: postgres.Sql, table: "signature_requests" | "audit_log") =>
  Number((await sql<{ n: string }[]>`select count(*)::text as n from ${sql(table)}`)[0]!.n);

/**
 * Grows signature_requests to `total` rows: an even share per organization, ~8 requests per filler
 * patient (`bulk-<stage>-<n>`, never the patient under test), with a realistic status mix
 * (40% pending, 10% opened, 35% completed, 5% declined, 10% expired) and created_at over a year.
 * Filler rows carry a dummy token_enc: A2 never returns them.
 */
export async function growSignatureRequests(
  sql: postgres.Sql,
  orgs: BulkOrg[],
  total: number,
  stage: string,
): Promise<number> {
  const missing = total - (await countRows(sql, "signature_requests"));
  if (missing <= 0) return countRows(sql, "signature_requests");
  const perOrg = Math.ceil(missing / orgs.length);
  for (const [index, org] of orgs.entries()) {
    const tag = `${stage}-${index}`;
    await sql`
      insert into signature_requests (id, organization_id, document_id, patient_id, institution_id, institution_external_id,
        order_by, expires_at, status, token_hash, token_enc, created_at, updated_at)
      select gen_random_uuid(), ${org.id}, ${org.documentId}, ${`bulk-${tag}-`} || (g % ${Math.max(1, Math.floor(perOrg / 8))}),
        ${org.institutionId}, 'bulk-inst', 'Dr. Bulk',
        case when s.status = 'expired' then now() - interval '1 day' * (1 + g % 300) else now() + interval '1 day' * (1 + g % 90) end,
        s.status, encode(sha256(convert_to(${tag} || ':' || g, 'UTF8')), 'hex'), 'bulk', now() - interval '1 day' * (g % 365), now()
      from generate_series(1, ${perOrg}) g
      cross join lateral (select (array['pending','pending','pending','pending','pending','pending','pending','pending',
        'opened','opened','completed','completed','completed','completed','completed','completed','completed',
        'declined','expired','expired'])[1 + (g % 20)] as status) s`;
  }
  await sql`analyze signature_requests`;
  return countRows(sql, "signature_requests");
}

export const AUDIT_ACTIONS = [
  "form.submitted",
  "form.draft_saved",
  "form.draft_deleted",
  "signature.created",
  "signature.opened",
  "signature.signed",
  "signature.completed",
  "template.updated",
];
export const BULK_TEMPLATES = 20;
/** The template F13 filters by: one of the 20 the filler rows of the organization under test use. */
export const F13_TEMPLATE = "bulk-tpl-3";

/** Entries the API wrote itself are linked by its background chainer within a second or two. */
async function waitUntilChained(sql: postgres.Sql, orgId: string, timeoutMs = 30_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const [row] = await sql<
      { n: number }[]
    >`select count(*)::int as n from audit_log where organization_id = ${orgId} and chain_pos is null`;
    if (row!.n === 0) return;
    if (Date.now() > deadline)
      throw new Error(`${row!.n} audit entries of ${orgId} are still unchained after ${timeoutMs / 1000} s`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

/**
 * Grows audit_log to `total` rows: an even share per organization, action uniform over 8, template
 * uniform over 20 (`bulk-tpl-0…19`), created_at uniform over the past year (all older than the
 * rows the API wrote itself). seq comes from the global sequence, as the API's own entries get it
 * (migration 0010). The rows go in already linked after the organization's head (filler prev_hash
 * and hash, head moved to the last of them), so the API's chainer has nothing to hash during the
 * measurement; the chain does not verify past them — fine for read benchmarks.
 */
export async function growAuditLog(sql: postgres.Sql, orgIds: string[], total: number): Promise<number> {
  const missing = total - (await countRows(sql, "audit_log"));
  if (missing <= 0) return countRows(sql, "audit_log");
  const perOrg = Math.ceil(missing / orgIds.length);
  for (const orgId of orgIds) {
    await waitUntilChained(sql, orgId);
    const [head] = await sql<
      { pos: string }[]
    >`select coalesce(max(chain_pos), 0)::text as pos from audit_log where organization_id = ${orgId}`;
    const headPos = Number(head!.pos);
    await sql.begin(async (tx) => {
      // generate_series yields g in order, so nextval hands out seq in the order of chain_pos.
      await tx`
        insert into audit_log (id, organization_id, seq, chain_pos, action, template_identifier, actor_type, actor_id, metadata, ip, user_agent, created_at, prev_hash, hash)
        select gen_random_uuid(), ${orgId}, nextval('audit_log_seq'), ${headPos} + g,
          (${AUDIT_ACTIONS}::text[])[1 + floor(random() * ${AUDIT_ACTIONS.length})::int],
          'bulk-tpl-' || floor(random() * ${BULK_TEMPLATES})::int, 'token', 'bulk-token',
          jsonb_build_object('bulk', true, 'n', g), '127.0.0.1', 'bench', now() - interval '1 second' * (60 + random() * 365 * 86400),
          md5('p' || g), md5('h' || g)
        from generate_series(1, ${perOrg}) g`;
      await tx`
        insert into audit_chain_heads (organization_id, chain_pos, seq, hash)
        select organization_id, chain_pos, seq, hash from audit_log where organization_id = ${orgId} and chain_pos = ${headPos + perOrg}
        on conflict (organization_id) do update set chain_pos = excluded.chain_pos, seq = excluded.seq, hash = excluded.hash, chained_at = now()`;
    });
  }
  await sql`analyze audit_log`;
  return countRows(sql, "audit_log");
}
