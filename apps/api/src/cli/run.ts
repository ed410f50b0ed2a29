import { createWriteStream } from "node:fs";
import { rename, rm, stat } from "node:fs/promises";
import { pipeline } from "node:stream/promises";
import { parseArgs } from "node:util";
import {
  createLegalHoldInput,
  createOrganizationInput,
  legalHoldListInput,
  releaseLegalHoldInput,
  patientExportInput,
  patientErasureInput,
  retentionKinds,
  roles,
  updateOrganizationInput,
  updateRetentionPolicyInput,
  type RetentionKind,
  type RetentionPeriod,
  type UpdateOrganizationInput,
} from "@clinsign/contracts";
import { verifyOrganizationChain } from "../core/audit/audit-log";
import { systemContext, type Services } from "../core/context";
import { AppError } from "../core/errors";
import { migrateStorage } from "../core/files/migrate";
import { exportPatientData } from "../core/patients/access-export";
import { createStorage, type StorageKind } from "../core/files/storage";
import { reconcileStorage, storageOrphanReport } from "../core/jobs/storage-reconciliation";
import { erasePatient } from "../core/patients/erasure";
import { updateOrganizationSettings } from "../core/organizations/organizations";
import { createOrganization } from "../core/provisioning/organizations";
import { organizationsWithSweeps } from "../core/jobs/retention-sweeps";
import { createLegalHold, listLegalHolds, releaseLegalHold } from "../core/retention/legal-holds";
import { retentionSettingsOf, updateRetentionPolicy } from "../core/retention/policies";
import { previewRetention, runRetentionSweep } from "../core/retention/sweep";
import { createApiToken, revokeApiToken } from "../core/tokens/tokens";
import { serverHoldingDataDir } from "../data-dir-lock";
import { loadConfig } from "../env";
import { parseInput } from "../rest/validation";
import { createLogger, createServices } from "../services";
import { createStaffUser } from "../core/identity/store/accounts";

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
`;

/** The CLI flag of each retention kind. */
const retentionFlags: Record<RetentionKind, string> = {
  drafts: "drafts",
  submissions: "submissions",
  signatureRequests: "signature-requests",
  outbox: "outbox",
  webhookDeliveries: "webhook-deliveries",
  sessions: "sessions",
};

/** `30d`, `10y` or `keep` (null). */
function parsePeriod(value: string, flag: string): RetentionPeriod | null {
  if (value === "keep") return null;
  const match = /^(\d+)\s*(d|days?|y|years?)$/.exec(value.trim());
  if (!match) throw new UsageError(`--${flag} must be a number of days or years (30d, 10y) or keep`);
  return { amount: Number(match[1]), unit: match[2]!.startsWith("y") ? "years" : "days" };
}

class UsageError extends Error {}

const onOff = (value: string | undefined, flag: string): boolean | undefined => {
  if (value === undefined) return undefined;
  if (value === "on" || value === "true") return true;
  if (value === "off" || value === "false") return false;
  throw new UsageError(`${flag} must be on or off`);
};

function required(value: string | undefined, flag: string): string {
  if (!value) throw new UsageError(`${flag} is required`);
  return value;
}

async function run(
  io: CliIo,
  services: Services,
  command: string,
  values: Record<string, string | string[] | boolean | undefined>,
) {
  const str = (name: string) => values[name] as string | undefined;
  const org = () => {
    const id = required(str("org"), "--org");
    if (!/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(id))
      throw new UsageError("--org must be an organization UUID");
    return id.toLowerCase();
  };
  // The patient a command names (--patient-id, --rnummer, --phone), as the selector schema reads it.
  const patientSelector = () => ({
    ...(str("patient-id") !== undefined && { patientId: str("patient-id") }),
    ...(str("rnummer") !== undefined && { rnummer: str("rnummer") }),
    ...(str("phone") !== undefined && { phone: str("phone") }),
  });
  switch (command) {
    case "org create": {
      const { name } = parseInput(createOrganizationInput, { name: required(str("name"), "--name") });
      const created = await createOrganization(services, { name });
      const token = await createApiToken(systemContext(services, created.id), { name: "Initial token" });
      return { orgId: created.id, token: token.token };
    }
    case "org configure": {
      const webhookUrls = values["webhook-url"] as string[] | undefined;
      const input: UpdateOrganizationInput = {
        ...(webhookUrls?.length && { webhookUrls }),
        ...(str("webhook-secret") !== undefined && { webhookSecret: str("webhook-secret") }),
        ...(str("otp") !== undefined && { otpEnabled: onOff(str("otp"), "--otp") }),
        ...(str("session-jwt-secret") !== undefined && {
          sessionJwtSecret: str("session-jwt-secret"),
          sessionMethod: "hs256" as const,
        }),
        ...(str("session-jwks-url") !== undefined && {
          sessionJwksUrl: str("session-jwks-url"),
          sessionMethod: "jwks" as const,
        }),
        ...(str("session-introspection-url") !== undefined && {
          sessionIntrospectionUrl: str("session-introspection-url"),
          sessionMethod: "introspection" as const,
        }),
        ...(str("require-session-verification") !== undefined && {
          requireSessionVerification: onOff(str("require-session-verification"), "--require-session-verification"),
        }),
        ...(str("session-audience") !== undefined && { sessionAudience: str("session-audience") || null }),
        ...(str("session-issuer") !== undefined && { sessionIssuer: str("session-issuer") || null }),
        ...(str("require-jti") !== undefined && { sessionRequireJti: onOff(str("require-jti"), "--require-jti") }),
        ...(str("accept-missing-aud-iss") !== undefined && {
          sessionAcceptMissingAudIss: onOff(str("accept-missing-aud-iss"), "--accept-missing-aud-iss"),
        }),
      };
      if (Object.keys(input).length === 0) throw new UsageError("org configure needs at least one setting");
      await updateOrganizationSettings(systemContext(services, org()), parseInput(updateOrganizationInput, input));
      return { ok: true };
    }
    case "token create": {
      const token = await createApiToken(systemContext(services, org()), { name: str("name") ?? "CLI token" });
      return { id: token.id, token: token.token };
    }
    case "token revoke":
      await revokeApiToken(systemContext(services, org()), { id: required(str("id"), "--id") });
      return { ok: true };
    case "user create": {
      const role = str("role") ?? "staff";
      if (!(roles as readonly string[]).includes(role)) throw new UsageError("--role must be owner, admin or staff");
      return createStaffUser(services, {
        organizationId: org(),
        email: required(str("email"), "--email"),
        password: required(str("password"), "--password"),
        role: role as (typeof roles)[number],
      });
    }
    case "audit verify":
      return verifyOrganizationChain(systemContext(services, org()));
    case "patients erase": {
      const input = parseInput(patientErasureInput, {
        selector: patientSelector(),
        dryRun: values["dry-run"] === true,
        ...(str("confirm") !== undefined && { confirmation: str("confirm") }),
        ...(str("reason") !== undefined && { reason: str("reason") }),
      });
      return erasePatient(systemContext(services, org()), input);
    }
    case "migrate":
      return { ok: true };
    case "storage migrate": {
      const backend = (flag: string): StorageKind => {
        const kind = required(str(flag), `--${flag}`);
        if (kind !== "fs" && kind !== "db" && kind !== "s3") throw new UsageError(`--${flag} must be fs, db or s3`);
        if (kind === "s3" && !services.config.s3)
          throw new UsageError("S3_BUCKET (and the other S3_* settings) must be set");
        return kind;
      };
      const [from, to] = [backend("from"), backend("to")];
      if (from === to) throw new UsageError("--from and --to must differ");
      const open = (kind: StorageKind) =>
        createStorage({ kind, dataDir: services.config.dataDir, s3: services.config.s3 }, services.db, services.log);
      const result = await migrateStorage(open(from), open(to), (p) =>
        io.stderr.write(`[${p.done}/${p.total}] ${p.action} ${p.key}\n`),
      );
      return { ok: true, ...result };
    }
    case "storage orphans":
      return storageOrphanReport(services);
    case "storage reconcile":
      return { ok: true, ...(await reconcileStorage(services)) };
    case "hold place":
      return createLegalHold(
        systemContext(services, org()),
        parseInput(createLegalHoldInput, {
          selector: patientSelector(),
          reason: required(str("reason"), "--reason"),
        }),
      );
    case "hold release":
      return releaseLegalHold(systemContext(services, org()), parseInput(releaseLegalHoldInput, { id: str("id") }));
    case "hold list":
      return listLegalHolds(
        systemContext(services, org()),
        parseInput(legalHoldListInput, { status: values.all ? "all" : "active", limit: 200 }),
      );
    case "patients export": {
      const out = required(str("out"), "--out");
      const input = parseInput(patientExportInput, {
        selector: patientSelector(),
        ...(str("language") !== undefined && { language: str("language") }),
      });
      const exported = exportPatientData(systemContext(services, org(), "cli"), input);
      // Written beside the target and renamed at the end: a failed export leaves no partial ZIP.
      const partial = `${out}.partial`;
      try {
        await pipeline(exported.open(), createWriteStream(partial, { mode: 0o600 }));
        await rename(partial, out);
      } catch (error) {
        await rm(partial, { force: true });
        throw error;
      }
      return { ok: true, out, bytes: (await stat(out)).size };
    }
    case "retention show":
      return retentionSettingsOf(systemContext(services, org()));
    case "retention set": {
      const input: Record<string, RetentionPeriod | null> = {};
      for (const kind of retentionKinds) {
        const value = str(retentionFlags[kind]);
        if (value !== undefined) input[kind] = parsePeriod(value, retentionFlags[kind]);
      }
      if (Object.keys(input).length === 0) throw new UsageError("retention set needs at least one period");
      return updateRetentionPolicy(systemContext(services, org()), parseInput(updateRetentionPolicyInput, input));
    }
    case "retention preview":
      return previewRetention(systemContext(services, org()));
    case "retention run": {
      const orgIds = values.all ? await organizationsWithSweeps(services) : [org()];
      const runs = [];
      for (const orgId of orgIds) runs.push({ orgId, ...(await runRetentionSweep(services, orgId)) });
      return { ok: true, runs };
    }
    default:
      throw new UsageError(`unknown command "${command}"`);
  }
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
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
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
      ...Object.fromEntries(Object.values(retentionFlags).map((flag) => [flag, { type: "string" as const }])),
    },
  });
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
  const services = await createServices(config, createLogger({ logLevel: "warn" }, io.stderr));
  try {
    const result = await run(io, services, command, values);
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
  } finally {
    await services.database.close();
  }
}
