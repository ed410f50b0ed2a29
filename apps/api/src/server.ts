import type { Server } from "node:http";
import { join } from "node:path";
import type { Services } from "./core/context";
import { ConfigError, loadConfig, type Config } from "./env";
import { seedDemoIfEmpty } from "./core/provisioning/demo";
import { lockDataDir } from "./data-dir-lock";
import { createServer } from "./http/server";
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
  server: Server;
  stopSweeps: () => void;
  workers: { stop(): Promise<void> }[];
  unlock: () => void;
}

/** SIGINT and SIGTERM: stop accepting, let the workers finish their pass, close the database, exit. */
function stopOnSignals({ services, log, server, stopSweeps, workers, unlock }: Running): void {
  let stopping = false;
  const stop = (signal: string) => {
    if (stopping) return;
    stopping = true;
    log.info({ signal }, "shutting down");
    server.close();
    server.closeIdleConnections();
    stopSweeps();
    setTimeout(() => server.closeAllConnections(), 5000).unref();
    // The job runner and the chainer finish their current pass before the database closes under them.
    Promise.all(workers.map((worker) => worker.stop()))
      .catch((error) => log.error({ err: error }, "stopping the background workers failed"))
      .then(() => services.database.close())
      .catch((error) => log.error({ err: error }, "closing the database failed"))
      .finally(() => {
        unlock();
        process.exit(0);
      });
  };
  process.on("SIGINT", () => stop("SIGINT"));
  process.on("SIGTERM", () => stop("SIGTERM"));
}

/** The API process. `--seed-demo` creates the demo organization on an empty database. */
async function main() {
  const config = loadConfigOrExit();
  const log = createLogger(config);
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
  const server = createServer(services);
  server.listen(config.apiPort, config.apiHost, () => {
    log.info({ url: config.publicApiUrl, database: services.database.kind }, "API listening");
  });
  stopOnSignals({ services, log, server, stopSweeps, workers: [runner, auditChainer], unlock });
}

main().catch((error) => {
  console.error(error instanceof Error ? error.message : error);
  process.exit(1);
});
