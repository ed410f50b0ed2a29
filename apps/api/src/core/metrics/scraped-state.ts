import { rowsOf, sql } from "@clinsign/db";
import type { Services } from "../context";
import { pdfLaneCounts } from "../pdf-worker/run";
import { gaugeOnScrape } from "./metrics";

/**
 * The metrics read when Prometheus scrapes, from where the state lives: the jobs table (shared by
 * every instance), the audit log's unchained entries, the database's connections and this
 * process's PDF lanes. A scrape costs three small indexed queries.
 */
let watched: Services | undefined;

interface QueueRow {
  kind: string;
  pending: number;
  due: number;
  running: number;
  oldest_due_seconds: number | null;
}

/** One read of the queue per scrape, shared by the gauges that show it (their reads start together). */
let queueRead: Promise<QueueRow[]> | undefined;
function queueRows(services: Services): Promise<QueueRow[]> {
  queueRead ??= services.db
    .execute(
      sql`select kind,
          count(*) filter (where status = 'pending')::int as pending,
          count(*) filter (where status = 'pending' and run_at <= now())::int as due,
          count(*) filter (where status = 'running')::int as running,
          extract(epoch from now() - min(run_at) filter (where status = 'pending' and run_at <= now()))::float8
            as oldest_due_seconds
        from jobs where status in ('pending', 'running') group by kind`,
    )
    .then((result) => rowsOf<QueueRow>(result))
    .finally(() => (queueRead = undefined));
  return queueRead;
}

function registerGauges(): void {
  gaugeOnScrape(
    "clinsign_job_queue_depth",
    "Background jobs by kind and state: pending (due now or later), due (of those, due now), running.",
    ["kind", "state"],
    async (gauge) => {
      if (!watched) return;
      for (const row of await queueRows(watched)) {
        gauge.set({ kind: row.kind, state: "pending" }, Number(row.pending));
        gauge.set({ kind: row.kind, state: "due" }, Number(row.due));
        gauge.set({ kind: row.kind, state: "running" }, Number(row.running));
      }
    },
  );
  gaugeOnScrape(
    "clinsign_job_oldest_due_age_seconds",
    "How long the oldest due job has waited past its run time, by kind (absent or 0: none waits).",
    ["kind"],
    async (gauge) => {
      if (!watched) return;
      for (const row of await queueRows(watched))
        gauge.set({ kind: row.kind }, Math.max(0, Number(row.oldest_due_seconds ?? 0)));
    },
  );
  gaugeOnScrape(
    "clinsign_audit_chain_lag",
    "Audit entries not yet linked into their organization's hash chain (count), and the oldest one's age (seconds).",
    ["measure"],
    async (gauge) => {
      if (!watched) return;
      const [row] = rowsOf<{ entries: number; oldest_seconds: number | null }>(
        await watched.db.execute(
          sql`select count(*)::int as entries, extract(epoch from now() - min(created_at))::float8 as oldest_seconds
            from audit_log where chain_pos is null`,
        ),
      );
      gauge.set({ measure: "entries" }, Number(row?.entries ?? 0));
      gauge.set({ measure: "oldest_seconds" }, Math.max(0, Number(row?.oldest_seconds ?? 0)));
    },
  );
  gaugeOnScrape(
    "clinsign_db_connections",
    "Connections to this database by state, as the database reports them (every instance), and this process's pool size.",
    ["state"],
    async (gauge) => {
      if (!watched) return;
      const rows = rowsOf<{ state: string | null; connections: number }>(
        await watched.db.execute(
          sql`select coalesce(state, 'unknown') as state, count(*)::int as connections from pg_stat_activity
            where datname = current_database() and backend_type = 'client backend' group by 1`,
        ),
      );
      for (const row of rows) gauge.set({ state: row.state ?? "unknown" }, Number(row.connections));
      gauge.set({ state: "pool_size" }, watched.database.poolSize);
    },
  );
  gaugeOnScrape(
    "clinsign_pdf_worker_tasks",
    "PDF tasks of this process running and waiting, by lane.",
    ["lane", "state"],
    (gauge) => {
      for (const [lane, counts] of Object.entries(pdfLaneCounts())) {
        gauge.set({ lane, state: "running" }, counts.running);
        gauge.set({ lane, state: "waiting" }, counts.waiting);
      }
    },
  );
}

/** Reads the scraped gauges from these services (the process's own; a second call moves them). */
export function watchForMetrics(services: Services): void {
  if (!watched) registerGauges();
  watched = services;
}
