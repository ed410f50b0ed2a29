import type { Server } from "node:http";
import { join } from "node:path";
import type { Services } from "./core/context";
import { ConfigError, loadConfig, type Config } from "./env";
import { seedDemoIfEmpty } from "./core/provisioning/demo";
import { lockDataDir } from "./data-dir-lock";
import { createServer } from "./http/server";
import { createMetricsServer } from "./http/metrics";
import { watchForMetrics } from "./core/metrics/scraped-state";
import { startTracing } from "./core/tracing/sdk";
import { jobsRunningHere } from "./core/jobs/execute";
import { handBackJobs } from "./core/jobs/queue";
import { loadSigningIdentity } from "./core/pdf-seal/pades";
import { expireDueRequests } from "./core/jobs/signature-expiry";
import { queueDueReminders } from "./core/jobs/signature-reminders";
import { pruneRateLimits } from "./core/rate-limit";
import { pruneEndedStaffSessions, pruneSignInLeftovers } from "./core/identity/store/staff-sessions";
import { pruneSsoLeftovers } from "./core/identity/store/sso";
import { IdentityStore } from "./core/identity/store/identity-store";
import { AuditChainer } from "./jobs/audit-chainer";
import { jobHandlers } from "./jobs/handlers";
import { JobRunner } from "./jobs/runner";
import { sweepOrphanUploads } from "./core/jobs/upload-sweeper";
import { scheduleRetentionSweeps } from "./core/jobs/retention-sweeps";
import { scheduleStorageReconciliation } from "./core/jobs/storage-reconciliation";
import { createLogger, createServices } from "./services";

type Logger = Services["log"];

/** The validated configuration; a configuration error is printed and ends the process. */
function loadConfigOrExit(): Config {
  try {
    return loadConfig();
  } catch (error) {
    if (error instanceof ConfigError) {
      console.error(error.message);
      process.exit(1);
    }
    throw error;
  }
}

/** The start-up warnings and notes: plain HTTP allowed, and which certificate seals signed PDFs. */
function announceSecurity(config: Config, services: Services, log: Logger): void {
  if (config.allowInsecureHttp) {
    log.warn(
      "ALLOW_INSECURE_HTTP is on: area A accepts plain HTTP from loopback clients. Never use this in production.",
    );
  }
  // Loads SIGNING_P12_FILE, or generates the development certificate on first start.
  const identity = loadSigningIdentity(config);
  if (services.devCertificate) {
    log.warn(
      { dataDir: join(config.dataDir, "signing"), fingerprint: identity.fingerprint },
      "no SIGNING_P12_FILE: signed PDFs are sealed with a self-signed development certificate",
    );
  } else
    log.info(
      { subject: identity.subject, fingerprint: identity.fingerprint },
      "sealing signed PDFs with SIGNING_P12_FILE",
    );
}

/** The periodic sweeps and schedules of this process; answers the function that stops them. */
function startSweeps(services: Services, log: Logger): () => void {
  // Expiry is enforced on every read and write; this sweep also records it for untouched requests,
  // and drops rate-limit counters whose window has ended.
  const expirySweep = setInterval(() => {
    expireDueRequests(services).catch((error) => log.error({ err: error }, "expiry sweep failed"));
    // Queues the reminders that fell due; the signature.notice jobs send them, once across processes.
    queueDueReminders(services).catch((error) => log.error({ err: error }, "reminder sweep failed"));
    pruneRateLimits(services.db).catch((error) => log.error({ err: error }, "pruning rate limits failed"));
    const identity = IdentityStore.of(services);
    pruneSsoLeftovers(identity).catch((error) => log.error({ err: error }, "pruning single sign-on attempts failed"));
    pruneSignInLeftovers(identity).catch((error) => log.error({ err: error }, "pruning pending sign-ins failed"));
    pruneEndedStaffSessions(identity).catch((error) =>
      log.error({ err: error }, "pruning ended staff sessions failed"),
    );
  }, 60_000);
  expirySweep.unref();
  // Uploads no submission references are deleted UPLOAD_ORPHAN_HOURS after their upload.
  const uploadSweep = setInterval(() => {
    sweepOrphanUploads(services).catch((error) => log.error({ err: error }, "sweeping orphaned uploads failed"));
  }, 10 * 60_000);
  uploadSweep.unref();
  // Queues each organization's retention sweep once a day (core/retention; the job does the work).
  const retentionSchedule = setInterval(() => {
    scheduleRetentionSweeps(services).catch((error) => log.error({ err: error }, "scheduling retention sweeps failed"));
  }, 10 * 60_000);
  retentionSchedule.unref();
  // Queues the daily storage reconciliation (objects no row references; core/jobs/storage-reconciliation.ts).
  const storageSchedule = setInterval(() => {
    scheduleStorageReconciliation(services).catch((error) =>
      log.error({ err: error }, "scheduling the storage reconciliation failed"),
    );
  }, 10 * 60_000);
  storageSchedule.unref();
  return () => {
    clearInterval(expirySweep);
    clearInterval(uploadSweep);
    clearInterval(retentionSchedule);
    clearInterval(storageSchedule);
  };
}

/** `--seed-demo`: the demo organization on an empty database, its secrets printed once. */
async function seedDemoWhenAsked(config: Config, services: Services): Promise<void> {
  if (!process.argv.includes("--seed-demo")) return;
  const demo = await seedDemoIfEmpty(services);
  if (!demo) return;
  // Printed once, straight to the terminal, never through the logger.
  process.stdout.write(
    [
      "",
      "  ClinSign is set up with a demo organization. These secrets are shown only now:",
      `    Admin UI     ${config.publicWebUrl}/login`,
      `    Login        ${demo.adminEmail} / ${demo.adminPassword}`,
      `    API URL      ${config.publicApiUrl}   (reference: ${config.publicApiUrl}/docs)`,
      `    orgId        ${demo.organizationId}`,
      `    API token    ${demo.apiToken}`,
      "  Lost them? `pnpm cli token create --org <orgId>` and `pnpm cli user create …` make new ones.",
      "",
    ].join("\n") + "\n",
  );
}

/** What a running process holds, in the order a shutdown lets go of it. */
interface Running {
  services: Services;
  log: Logger;
  servers: Server[];
  stopSweeps: () => void;
  workers: { stop(): Promise<void> }[];
  unlock: () => void;
  /** Flushes the spans not yet exported and stops the tracing SDK (a no-op without tracing). */
  stopTracing: () => Promise<void>;
}

/** Resolves when `server` has closed (every connection ended), or at once when it never listened. */
const closed = (server: Server) =>
  new Promise<void>((resolve) => {
    server.close(() => resolve());
    // Keep-alive connections go as soon as their request is answered, not at their idle timeout.
    const idle = setInterval(() => server.closeIdleConnections(), 100);
    server.once("close", () => clearInterval(idle));
    server.closeIdleConnections();
  });

/**
 * SIGINT and SIGTERM: take no new work (connections, job claims, sweeps), let in-flight requests
 * and jobs finish for SHUTDOWN_DEADLINE_SECONDS, then cut the requests still open and hand the
 * jobs still running back to the queue (another instance takes them at once), close the database,
 * exit. A second signal skips the wait.
 */
function stopOnSignals({ services, log, servers, stopSweeps, workers, unlock, stopTracing }: Running): void {
  let stopping = false;
  let handBackNow: () => void = () => {};
  const stop = async (signal: string) => {
    if (stopping) return handBackNow();
    stopping = true;
    log.info({ signal, deadlineMs: services.config.shutdownDeadlineMs }, "shutting down");
    stopSweeps();
    const deadline = new Promise<"deadline">((resolve) => {
      handBackNow = () => resolve("deadline");
      setTimeout(handBackNow, services.config.shutdownDeadlineMs).unref();
    });
    const finished = Promise.all([...servers.map(closed), ...workers.map((worker) => worker.stop())]).then(
      () => "finished" as const,
    );
    if ((await Promise.race([finished, deadline])) === "deadline") {
      // Whatever still holds the database after this, the process ends.
      setTimeout(() => process.exit(1), 5000).unref();
      for (const server of servers) server.closeAllConnections();
      const ids = jobsRunningHere();
      const handedBack = await handBackJobs(services.db, ids).catch((error: unknown) => {
        log.error({ err: error }, "handing back the running jobs failed; they are taken again when their lease ends");
        return 0;
      });
      log.warn(
        { running: ids.length, handedBack },
        "shutdown deadline passed: open requests cut, running jobs handed back",
      );
    }
    await services.database.close().catch((error: unknown) => log.error({ err: error }, "closing the database failed"));
    await stopTracing().catch((error: unknown) => log.warn({ err: error }, "flushing the last spans failed"));
    unlock();
    process.exit(0);
  };
  process.on("SIGINT", () => void stop("SIGINT"));
  process.on("SIGTERM", () => void stop("SIGTERM"));
}

/** METRICS_PORT: `/metrics` on a listener of its own (http/metrics.ts); none when unset. */
function listenForMetrics(config: Config, log: Logger): Server[] {
  if (config.metrics.port === undefined) return [];
  const server = createMetricsServer();
  server.listen(config.metrics.port, config.metrics.host, () => {
    const address = server.address();
    log.info({ host: config.metrics.host, port: typeof address === "object" && address?.port }, "metrics listening");
  });
  return [server];
}

/** The API process. `--seed-demo` creates the demo organization on an empty database. */
async function main() {
  const config = loadConfigOrExit();
  const log = createLogger(config);
  const stopTracing = await startTracing(config);
  const unlock = config.databaseUrl ? () => {} : lockDataDir(config.dataDir);
  const services = await createServices(config, log);
  announceSecurity(config, services, log);
  const stopSweeps = startSweeps(services, log);
  await seedDemoWhenAsked(config, services);
  const runner = new JobRunner(services, jobHandlers);
  services.jobs = runner;
  runner.start();
  // Links audit entries into their organization's hash chain after the requests that wrote them.
  const auditChainer = new AuditChainer(services);
  auditChainer.start();
  watchForMetrics(services);
  const server = createServer(services);
  server.listen(config.apiPort, config.apiHost, () => {
    log.info({ url: config.publicApiUrl, database: services.database.kind }, "API listening");
  });
  const servers = [server, ...listenForMetrics(config, log)];
  stopOnSignals({ services, log, servers, stopSweeps, workers: [runner, auditChainer], unlock, stopTracing });
}

main().catch((error) => {
  console.error(error instanceof Error ? error.message : error);
  process.exit(1);
});
