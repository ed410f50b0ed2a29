import { parseArgs, type ParseArgsConfig } from "node:util";
import type { Services } from "../core/context";
import { AppError } from "../core/errors";
import { serverHoldingDataDir } from "../data-dir-lock";
import { loadConfig } from "../env";
import { createLogger, createServices } from "../services";
import { offlineCommandNamed } from "./backup-commands";
import { commandArgs, commandNamed, retentionFlags, UsageError, type CommandValues } from "./commands";

const USAGE = `Usage: pnpm cli <command> [options] [--json]

  org create --name N                         → {orgId, token}
  org configure --org ID [--webhook-url U]... [--webhook-secret S] [--otp on|off]
      [--session-jwt-secret S] [--session-jwks-url U] [--session-introspection-url U]
      [--require-session-verification on|off]
      [--session-audience A] [--session-issuer I] [--require-jti on|off] [--accept-missing-aud-iss on|off]   → {ok:true}
      (an empty --session-audience / --session-issuer clears the check)
  token create --org ID [--name N]            → {id, token}
  token revoke --org ID --id TOKEN_ID         → {ok:true}
  user create --org ID --email E --password P [--role owner|admin|staff] → {userId}
  audit verify --org ID                       → {ok, entries, brokenAt, problem, lateEntries,
      unchained: {count, oldestAgeSeconds, maxAgeSeconds}, warnings}; exits 1 when not ok
  patients erase --org ID [--patient-id P] [--rnummer R] [--phone +49…] (--dry-run | --confirm ID --reason TEXT)
      → the erasure receipt {erasureId, status, counts, digests, objects, retention, reason, …}; at least
      one of --patient-id, --rnummer, --phone; --dry-run reports and changes nothing; to erase, --confirm
      repeats the patient identifier (--patient-id, else --rnummer, else --phone) and --reason says why
      (3-500 characters, kept on the receipt); exits 1 on a legal hold
  patients export --org ID [--patient-id P] [--rnummer R] [--phone +49…] [--language de|en|tr|ar|ru|uk|pl]
      --out FILE.zip → {ok, out, bytes}; the patient access export (GDPR Art. 15/20), as a ZIP written to
      FILE (the selector's identifiers: at least one; a record matching any of them is the patient's);
      --language: the overview page's (default: the patient's own where known, else the organization's)
  migrate                                     → {ok:true}
  storage migrate --from fs|db|s3 --to fs|db|s3   → {ok, total, copied, skipped, bytes}
      copies every stored file to the other backend under the same key; resumable (files the
      target already holds with the same size and hash are skipped); progress on stderr
  backup DIR                                  → {ok, dir, database, storage, files, bytes, manifestSha256}
      the database (pg_dump with DATABASE_URL, else a copy of the PGlite data directory: stop the
      server first), every stored file, DATA_DIR's own keys and manifest.json (size and SHA-256 of
      each file) into the new or empty folder DIR, readable by its owner only; progress on stderr
  restore DIR                                 → {ok, database, schema, storage, files, bytes, createdAt}
      into an empty database (DATABASE_URL's, or a new DATA_DIR) and empty storage; refuses a
      backup whose files do not match the manifest, naming the file (docs/operations.md)
  storage orphans                             → {graceHours, lastRun, orphans: [{key, firstSeenAt, lastSeenAt,
      deletesAfter}], deleted: [{key, firstSeenAt, deletedAt}]}; stored objects no row references, as the
      daily reconciliation found them (deletesAfter null: not a kind the service writes, never deleted)
  storage reconcile                           → {ok, listed, referenced, orphans, newOrphans, deleted, notDeletable}
      runs the reconciliation now: reports new orphans, deletes those unreferenced for
      STORAGE_ORPHAN_GRACE_HOURS (checked again just before)
  retention show --org ID                     → {policy, defaults, status}
  retention set --org ID [--drafts P] [--submissions P] [--signature-requests P] [--outbox P]
      [--webhook-deliveries P] [--sessions P]  → {policy, defaults, status}
      P is a period in days or years (30d, 10y) or "keep" (never delete)
  retention preview --org ID                  → {asOf, kinds: [{kind, period, cutoff, records, held}]}
      what the next run would delete now (records past the cutoff; held: kept by a legal hold)
  retention run --org ID | --all              → {ok, runs: [{orgId, status, deleted}]}
      runs the sweep now (resumes an unfinished one; "busy" when another process sweeps)
  hold place --org ID [--patient-id P] [--rnummer R] [--phone +49…] --reason TEXT → the hold
      a legal hold: nothing of that patient is deleted (retention, erasure) until it is released
  hold release --org ID --id HOLD_ID          → the hold
  hold list --org ID [--all]                  → {items, nextCursor, hasMore} (active ones; --all: released too)
  fhir-push show --org ID                     → {target} (the secret never; hasSecret says whether one is stored)
  fhir-push set --org ID [--base-url U] [--enabled on|off]
      [--auth none|bearer|client_credentials|smart_backend] [--secret-file FILE] [--client-id C] [--token-url U]
      [--scope S] [--patient-id-system URI] [--rnummer-system URI]   → the target
      the FHIR R4 server every completed signature request and submission is pushed to (docs/fhir.md);
      the credential is read from FILE (a bearer token, a client secret, or a PEM private key for SMART
      backend services); options not given keep their saved values
  fhir-push deliveries --org ID [--status pending|delivered|failed] → {items, nextCursor, hasMore}
`;

/** Every option of every command, as `parseArgs` reads them. */
const OPTIONS = {
  json: { type: "boolean" },
  help: { type: "boolean", short: "h" },
  name: { type: "string" },
  org: { type: "string" },
  id: { type: "string" },
  email: { type: "string" },
  password: { type: "string" },
  role: { type: "string" },
  "webhook-url": { type: "string", multiple: true },
  "webhook-secret": { type: "string" },
  otp: { type: "string" },
  "session-jwt-secret": { type: "string" },
  "session-jwks-url": { type: "string" },
  "session-introspection-url": { type: "string" },
  "require-session-verification": { type: "string" },
  "session-audience": { type: "string" },
  "session-issuer": { type: "string" },
  "require-jti": { type: "string" },
  "accept-missing-aud-iss": { type: "string" },
  from: { type: "string" },
  to: { type: "string" },
  "dry-run": { type: "boolean" },
  all: { type: "boolean" },
  "patient-id": { type: "string" },
  rnummer: { type: "string" },
  phone: { type: "string" },
  reason: { type: "string" },
  confirm: { type: "string" },
  out: { type: "string" },
  language: { type: "string" },
  enabled: { type: "string" },
  "base-url": { type: "string" },
  auth: { type: "string" },
  "secret-file": { type: "string" },
  "client-id": { type: "string" },
  "token-url": { type: "string" },
  scope: { type: "string" },
  "patient-id-system": { type: "string" },
  "rnummer-system": { type: "string" },
  status: { type: "string" },
  ...Object.fromEntries(Object.values(retentionFlags).map((flag) => [flag, { type: "string" as const }])),
} satisfies ParseArgsConfig["options"];

/** Runs the command these words name (`./commands.ts`) with the parsed options. */
async function run(io: CliIo, services: Services, command: string, values: CommandValues) {
  return commandNamed(command)(commandArgs(services, values, io.stderr));
}

/** What the CLI reads and writes: the process's own streams and environment, or a test's. */
export interface CliIo {
  /** The configuration's source; the process's environment when absent (src/env.ts). */
  env?: Record<string, string | undefined>;
  stdout: { write(text: string): unknown };
  stderr: { write(text: string): unknown };
}

/**
 * Runs one CLI command (`argv` without node and the script) and answers its exit code: 0 done,
 * 1 refused or a failed check, 2 a usage mistake. Configuration errors throw (ConfigError).
 */
export async function runCli(argv: string[], io: CliIo): Promise<number> {
  const { values, positionals } = parseArgs({ args: argv, allowPositionals: true, options: OPTIONS });
  const json = Boolean(values.json);
  const fail = (message: string, code = 1) => {
    if (json) io.stdout.write(JSON.stringify({ ok: false, error: message }) + "\n");
    else io.stderr.write(`error: ${message}\n`);
    return code;
  };
  if (values.help || positionals.length === 0) {
    io.stdout.write(USAGE);
    return values.help ? 0 : 2;
  }
  const command = positionals.slice(0, 2).join(" ");
  const config = loadConfig(io.env);
  if (!config.databaseUrl) {
    const holder = serverHoldingDataDir(config.dataDir);
    if (holder) {
      return fail(
        `the server (pid ${holder}) is running on the embedded database in ${config.dataDir}; ` +
          "stop it first, or point DATABASE_URL at PostgreSQL to manage a running service",
      );
    }
  }
  const answer = async (work: () => Promise<object>) => {
    try {
      const result = await work();
      if (json) io.stdout.write(JSON.stringify(result) + "\n");
      else
        for (const [key, value] of Object.entries(result))
          io.stdout.write(`${key}: ${typeof value === "object" && value !== null ? JSON.stringify(value) : value}\n`);
      // A failed check (audit verify) exits non-zero, so scripts and monitoring notice it.
      return "ok" in result && result.ok === false ? 1 : 0;
    } catch (error) {
      if (error instanceof UsageError) return fail(`${error.message}\n\n${USAGE}`, 2);
      if (error instanceof AppError) return fail(error.message);
      throw error;
    }
  };
  // Backup and restore open the database themselves: a restore's target must stay empty, unmigrated.
  const offline = offlineCommandNamed(positionals[0]!);
  if (offline) return answer(() => offline({ config, positionals: positionals.slice(1), stderr: io.stderr }));
  const services = await createServices(config, createLogger({ logLevel: "warn" }, io.stderr));
  try {
    return await answer(() => run(io, services, command, values));
  } finally {
    await services.database.close();
  }
}
