/**
 * Patient erasure (issue 17), in-process: one patient with 1,000 submissions, each with its audit
 * entry (chained) and webhook delivery, among 4,000 submissions of other patients of the same
 * organization. Timed: `erasePatient` (finding every kind of record, batches of 500 per
 * transaction, the audit entries' personal part removed under the chainer's lock, the receipt,
 * its audit entry) against the bare SQL a hand-written erasure of the same rows would run in one
 * transaction (delete the submissions and deliveries, blank the audit entries' metadata), in an
 * organization of the same size (its chain is not kept: that is what the bare SQL skips). Each
 * run seeds a fresh patient; the median of the runs is reported. PGlite, or PostgreSQL when
 * DATABASE_URL is set (a fresh database, dropped at the end).
 */
import { randomBytes } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import pino from "pino";
import { sql, type Db } from "@clinsign/db";
import { createTestDb } from "@clinsign/db/testing";
import { verifyOrganizationChain } from "../../src/core/audit/audit-log";
import { systemContext } from "../../src/core/context";
import { erasePatient } from "../../src/core/patients/erasure";
import { createOrganization } from "../../src/core/provisioning/organizations";
import { loadConfig } from "../../src/env";
import { createServices } from "../../src/services";

export interface ErasureRow {
  engine: "pglite" | "postgres";
  submissions: number;
  otherSubmissions: number;
  runs: number;
  /** Median ms of erasePatient. */
  erasureMs: number;
  /** Median ms of the bare SQL. */
  bareMs: number;
  ratio: number;
  auditEntries: number;
}

const PATIENT_SUBMISSIONS = 1_000;
const OTHER_SUBMISSIONS = 4_000;
const RUNS = 3;

/** `n` submissions of one patient with an audit entry and a webhook delivery each, in three statements. */
async function seed(db: Db, organizationId: string, rnummer: string, n: number): Promise<void> {
  await db.execute(sql`insert into submissions (id, organization_id, template_identifier, template_title, template_schema,
      values, rnummer, phone, actor_type)
    select gen_random_uuid(), ${organizationId}::uuid, 'bench-form', 'Bench form', '{"version":1,"fields":[]}'::jsonb,
      jsonb_build_object('note', 'answer ' || i), ${rnummer}, null, 'api_key'
    from generate_series(1, ${n}) as i`);
  await db.execute(sql`insert into audit_log (id, organization_id, action, template_identifier, actor_type, metadata, personal_salt, created_at)
    select gen_random_uuid(), ${organizationId}::uuid, 'form.submitted', 'bench-form', 'api_key',
      jsonb_build_object('rnummer', ${rnummer}::text, 'submissionId', s.id), md5(random()::text) || md5(random()::text),
      date_trunc('milliseconds', now())
    from submissions s where s.organization_id = ${organizationId}::uuid and s.rnummer = ${rnummer}`);
  await db.execute(sql`insert into webhook_deliveries (id, organization_id, event_type, template_identifier, url, body, status)
    select gen_random_uuid(), ${organizationId}::uuid, 'form.submitted', 'bench-form', 'https://his.example/hook',
      json_build_object('event', 'form.submitted', 'data', json_build_object('rnummer', ${rnummer}::text, 'submissionId', s.id))::text,
      'delivered'
    from submissions s where s.organization_id = ${organizationId}::uuid and s.rnummer = ${rnummer}`);
}

/** What a hand-written erasure of the same rows runs: three statements in one transaction. */
async function bareErasure(db: Db, organizationId: string, rnummer: string): Promise<void> {
  await db.transaction(async (tx) => {
    await tx.execute(
      sql`delete from webhook_deliveries where organization_id = ${organizationId}::uuid and strpos(body, ${rnummer}) > 0`,
    );
    await tx.execute(sql`update audit_log set metadata = '{}'::jsonb, ip = null, user_agent = null
      where organization_id = ${organizationId}::uuid and metadata->>'rnummer' = ${rnummer}`);
    await tx.execute(
      sql`delete from submissions where organization_id = ${organizationId}::uuid and rnummer = ${rnummer}`,
    );
  });
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;

export async function measureErasure(log: (message: string) => void): Promise<ErasureRow> {
  const dataDir = mkdtempSync(join(tmpdir(), "clinsign-bench-erasure-"));
  const database = await createTestDb();
  try {
    const config = loadConfig({
      NODE_ENV: "test",
      DATA_DIR: dataDir,
      LOG_LEVEL: "silent",
      ENCRYPTION_KEY: randomBytes(32).toString("hex"),
    });
    const services = await createServices(config, pino({ level: "silent" }), database);
    const org = await createOrganization(services, { name: "Bench erasure" });
    // The bare SQL breaks the hashes of the entries it blanks: its patients live in an organization of their own.
    const bareOrg = await createOrganization(services, { name: "Bench erasure, bare SQL" });
    const ctx = systemContext(services, org.id);
    for (let i = 0; i < OTHER_SUBMISSIONS / PATIENT_SUBMISSIONS; i++) {
      await seed(services.db, org.id, `bench-other-${i}`, PATIENT_SUBMISSIONS);
      await seed(services.db, bareOrg.id, `bench-other-${i}`, PATIENT_SUBMISSIONS);
    }
    const erasureMs: number[] = [];
    const bareMs: number[] = [];
    let auditEntries = 0;
    for (let run = 0; run < RUNS; run++) {
      const ours = `bench-erase-${run}`;
      const bare = `bench-bare-${run}`;
      await seed(services.db, org.id, ours, PATIENT_SUBMISSIONS);
      await seed(services.db, bareOrg.id, bare, PATIENT_SUBMISSIONS);
      // Chained first, as a patient's old entries are when an erasure comes.
      await verifyOrganizationChain(ctx);
      let started = performance.now();
      const receipt = await erasePatient(ctx, { selector: { rnummer: ours }, confirmation: ours, reason: "bench" });
      erasureMs.push(performance.now() - started);
      if (receipt.counts.submissions !== PATIENT_SUBMISSIONS)
        throw new Error(`erasure found ${receipt.counts.submissions} submissions, expected ${PATIENT_SUBMISSIONS}`);
      auditEntries = receipt.counts.auditEntries;
      started = performance.now();
      await bareErasure(services.db, bareOrg.id, bare);
      bareMs.push(performance.now() - started);
      log(
        `erasure run ${run + 1}/${RUNS}: ${erasureMs.at(-1)!.toFixed(0)} ms, bare SQL ${bareMs.at(-1)!.toFixed(0)} ms`,
      );
    }
    const verdict = await verifyOrganizationChain(ctx);
    if (!verdict.ok) throw new Error(`audit verify failed after the erasures: ${verdict.problem}`);
    const ours = median(erasureMs);
    const bare = median(bareMs);
    return {
      engine: process.env.DATABASE_URL ? "postgres" : "pglite",
      submissions: PATIENT_SUBMISSIONS,
      otherSubmissions: OTHER_SUBMISSIONS,
      runs: RUNS,
      erasureMs: ours,
      bareMs: bare,
      ratio: ours / bare,
      auditEntries,
    };
  } finally {
    await database.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

export function formatErasureTable(row: ErasureRow): string {
  const header = [
    "engine",
    "patient's submissions",
    "others",
    "audit entries",
    "runs",
    "erasure ms",
    "bare SQL ms",
    "vs bare",
  ];
  const cells = [
    row.engine,
    String(row.submissions),
    String(row.otherSubmissions),
    String(row.auditEntries),
    String(row.runs),
    row.erasureMs.toFixed(0),
    row.bareMs.toFixed(0),
    `${row.ratio.toFixed(2)}x slower`,
  ];
  const widths = header.map((h, i) => Math.max(h.length, cells[i]!.length));
  const line = (c: string[]) => c.map((cell, i) => cell.padStart(widths[i]!)).join("  ");
  return [line(header), widths.map((w) => "-".repeat(w)).join("  "), line(cells)].join("\n");
}
