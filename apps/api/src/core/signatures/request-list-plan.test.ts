import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { rowsOf, sql } from "@clinsign/db";
import { ensureInstitution } from "../branding/branding";
import { startTestApi, type TestApi, type TestOrg } from "../../testing/harness";
import { encodeCursor, pageQuery } from "../lists/keyset";
import { SIGNATURE_LIST_KEY, signatureRequestQuery, type SignatureRequestFilter } from "./request-list";

/**
 * The organization-wide request list must stay one index range scan without a sort under every
 * filter, on the first page and on later ones: checked on the planner's own answer with 10⁵
 * requests, on PostgreSQL (where the plan matters; PGlite's planner is the same code, but
 * seeding this many rows there only slows the suite). `documents` is left without statistics,
 * as a small table that rarely changes often is in production.
 */

const ROWS = 100_000;
let api: TestApi;
let org: TestOrg;
let other: TestOrg;
let documentIds: string[];

interface PlanNode {
  "Node Type": string;
  "Relation Name"?: string;
  "Index Name"?: string;
  Plans?: PlanNode[];
}
const nodesOf = (node: PlanNode): PlanNode[] => [node, ...(node.Plans ?? []).flatMap(nodesOf)];

async function seed(o: TestOrg, rows: number): Promise<string[]> {
  const docs: string[] = [];
  for (let d = 0; d < 5; d++) {
    const result = await api.services.db.execute(sql`
      insert into documents (id, organization_id, name, source_url, availability, current_version)
      values (gen_random_uuid(), ${o.orgId}, ${`Doc ${d}`}, 'https://x.test/d.pdf', 'active', 1) returning id`);
    docs.push(rowsOf<{ id: string }>(result)[0]!.id);
  }
  const institutions: string[] = [];
  for (let i = 0; i < 20; i++) institutions.push(await ensureInstitution(o.ctx, `station-${i}`));
  const docArray = `{${docs.join(",")}}`;
  const institutionArray = `{${institutions.join(",")}}`;
  await api.services.db.execute(sql`
    insert into signature_requests (id, organization_id, document_id, patient_id, institution_id, institution_external_id, order_by,
      expires_at, visibility, status, seal_failed_at, token_hash, token_enc, created_at)
    select gen_random_uuid(), ${o.orgId}, (${docArray}::uuid[])[1 + i % 5], case when i % 50 = 0 then 'P-many' else 'P-' || (i % 20000) end, (${institutionArray}::uuid[])[1 + i % 20], 'station-' || (i % 20), 'dr.plan',
      now() + interval '30 days', case when i % 10 = 0 then 'draft' else 'active' end,
      (array['pending','opened','sealing','completed','declined','expired'])[1 + i % 6],
      case when i % 6 = 2 and i % 12 = 2 then now() else null end,
      md5(${o.orgId}::text || i::text), 'x', now() - (i || ' minutes')::interval
    from generate_series(1, ${rows}) as i`);
  return docs;
}

const filters: [string, SignatureRequestFilter][] = [
  ["none", {}],
  ["status pending", { status: "pending" }],
  ["status failed", { status: "failed" }],
  ["status sealing", { status: "sealing" }],
  ["visibility draft", { visibility: "draft" }],
  // A patient with 2,000 requests. For one with a handful the planner rightly reads them all
  // through the same index and sorts those few rows instead.
  ["patient", { patientId: "P-many" }],
  ["document", { documentId: "" }],
  ["institution", { institutionId: "station-7" }],
  [
    "date range",
    {
      createdFrom: new Date(Date.now() - 30 * 86_400_000).toISOString(),
      createdTo: new Date(Date.now() - 86_400_000).toISOString(),
    },
  ],
  ["document and status", { documentId: "", status: "completed" }],
];

describe.skipIf(!process.env.DATABASE_URL)("signatures.list query plans with 10⁵ requests", () => {
  beforeAll(async () => {
    api = await startTestApi();
    org = await api.createOrg("Plan Nord");
    other = await api.createOrg("Plan Süd");
    documentIds = await seed(org, ROWS);
    await seed(other, ROWS / 10);
    await api.services.db.execute(sql`analyze signature_requests`);
  }, 300_000);
  afterAll(() => api?.close());

  it.each(filters)(
    "%s: an index scan of signature_requests in key order, no sort, first and later pages",
    async (_name, raw) => {
      const filter = { ...raw, ...(raw.documentId !== undefined && { documentId: documentIds[2]! }) };
      // A later page: after a row deep in the list.
      const after = encodeCursor([
        new Date(Date.now() - 40_000 * 60_000).toISOString().replace("Z", "000Z"),
        "ffffffff-ffff-4fff-bfff-ffffffffffff",
      ]);
      for (const sort of ["newest", "oldest"] as const) {
        for (const cursor of [undefined, after]) {
          // The statement `page` runs for the list (signatures.list).
          const query = pageQuery(signatureRequestQuery(org.ctx, filter), SIGNATURE_LIST_KEY, {
            cursor,
            limit: 50,
            sort,
          });
          const result = await api.services.db.execute(sql`explain (format json) ${query}`);
          const [first] = rowsOf<{ "QUERY PLAN": [{ Plan: PlanNode }] | string }>(result);
          const planJson = first!["QUERY PLAN"];
          const plan = (typeof planJson === "string" ? JSON.parse(planJson) : planJson)[0].Plan as PlanNode;
          const nodes = nodesOf(plan);
          const where = `${sort}${cursor ? " after a cursor" : ""}: ${JSON.stringify(nodes.map((n) => [n["Node Type"], n["Relation Name"], n["Index Name"]]))}`;
          expect(
            nodes.some((n) => n["Node Type"].includes("Sort")),
            where,
          ).toBe(false);
          const requestScans = nodes.filter((n) => n["Relation Name"] === "signature_requests");
          expect(requestScans.length, where).toBe(1);
          expect(requestScans[0]!["Node Type"], where).toMatch(/^Index( Only)? Scan$/);
          expect(requestScans[0]!["Index Name"], where).toMatch(/^signature_requests_org_/);
        }
      }
    },
  );
});
