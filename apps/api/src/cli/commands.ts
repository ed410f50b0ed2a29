/**
 * The CLI's commands, one function each, and the table that names them (`pnpm cli <command>`):
 * each reads its options, calls the service that does the work and answers what the CLI prints.
 * A usage mistake is a `UsageError` (exit code 2, with the usage text).
 */
import { createWriteStream } from "node:fs";
import { readFile, rename, rm, stat } from "node:fs/promises";
import { pipeline } from "node:stream/promises";
import {
  createLegalHoldInput,
  createOrganizationInput,
  legalHoldListInput,
  listFhirDeliveriesInput,
  releaseLegalHoldInput,
  patientExportInput,
  patientErasureInput,
  retentionKinds,
  roles,
  saveFhirPushTargetInput,
  updateOrganizationInput,
  updateRetentionPolicyInput,
  type RetentionKind,
  type RetentionPeriod,
  type UpdateOrganizationInput,
} from "@clinsign/contracts";
import { verifyOrganizationChain } from "../core/audit/audit-log";
import { systemContext, type Services } from "../core/context";
import { migrateStorage } from "../core/files/migrate";
import { exportPatientData } from "../core/patients/access-export";
import { createStorage, type StorageKind } from "../core/files/storage";
import { reconcileStorage, storageOrphanReport } from "../core/jobs/storage-reconciliation";
import { erasePatient } from "../core/patients/erasure";
import { listFhirDeliveries } from "../core/fhir-push/deliveries";
import { findFhirPushTarget, getFhirPushTarget, saveFhirPushTarget } from "../core/fhir-push/targets";
import { updateOrganizationSettings } from "../core/organizations/organizations";
import { createOrganization } from "../core/provisioning/organizations";
import { organizationsWithSweeps } from "../core/jobs/retention-sweeps";
import { createLegalHold, listLegalHolds, releaseLegalHold } from "../core/retention/legal-holds";
import { retentionSettingsOf, updateRetentionPolicy } from "../core/retention/policies";
import { previewRetention, runRetentionSweep } from "../core/retention/sweep";
import { createApiToken, revokeApiToken } from "../core/tokens/tokens";
import { parseInput } from "../rest/validation";
import { createStaffUser } from "../core/identity/store/accounts";

/** A mistake in the command line: the CLI prints it with the usage text and exits 2. */
export class UsageError extends Error {}

/** The CLI flag of each retention kind. */
export const retentionFlags: Record<RetentionKind, string> = {
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

/** The options as `parseArgs` read them. */
export type CommandValues = Record<string, string | string[] | boolean | undefined>;

/** What a command gets: the services, the options, and the readers of the options most commands share. */
export interface CommandArgs {
  services: Services;
  values: CommandValues;
  /** Where progress goes (`storage migrate`). */
  stderr: { write(text: string): unknown };
  /** A string option's value. */
  str(name: string): string | undefined;
  /** `--org`, required and an organization UUID, lower-cased. */
  org(): string;
  /** The patient a command names (--patient-id, --rnummer, --phone), as the selector schema reads it. */
  patientSelector(): { patientId?: string; rnummer?: string; phone?: string };
}

/** Builds a command's arguments from the parsed options. */
export function commandArgs(services: Services, values: CommandValues, stderr: CommandArgs["stderr"]): CommandArgs {
  const str = (name: string) => values[name] as string | undefined;
  const org = () => {
    const id = required(str("org"), "--org");
    if (!/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(id))
      throw new UsageError("--org must be an organization UUID");
    return id.toLowerCase();
  };
  const patientSelector = () => ({
    ...(str("patient-id") !== undefined && { patientId: str("patient-id") }),
    ...(str("rnummer") !== undefined && { rnummer: str("rnummer") }),
    ...(str("phone") !== undefined && { phone: str("phone") }),
  });
  return { services, values, stderr, str, org, patientSelector };
}

/** One command: what it answers is printed (or written as JSON with `--json`). */
type Command = (args: CommandArgs) => Promise<object>;

async function orgCreate({ services, str }: CommandArgs) {
  const { name } = parseInput(createOrganizationInput, { name: required(str("name"), "--name") });
  const created = await createOrganization(services, { name });
  const token = await createApiToken(systemContext(services, created.id), { name: "Initial token" });
  return { orgId: created.id, token: token.token };
}

async function orgConfigure({ services, values, str, org }: CommandArgs) {
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

async function tokenCreate({ services, str, org }: CommandArgs) {
  const token = await createApiToken(systemContext(services, org()), { name: str("name") ?? "CLI token" });
  return { id: token.id, token: token.token };
}

async function tokenRevoke({ services, str, org }: CommandArgs) {
  await revokeApiToken(systemContext(services, org()), { id: required(str("id"), "--id") });
  return { ok: true };
}

async function userCreate({ services, str, org }: CommandArgs) {
  const role = str("role") ?? "staff";
  if (!(roles as readonly string[]).includes(role)) throw new UsageError("--role must be owner, admin or staff");
  return createStaffUser(services, {
    organizationId: org(),
    email: required(str("email"), "--email"),
    password: required(str("password"), "--password"),
    role: role as (typeof roles)[number],
  });
}

async function patientsErase({ services, values, str, org, patientSelector }: CommandArgs) {
  const input = parseInput(patientErasureInput, {
    selector: patientSelector(),
    dryRun: values["dry-run"] === true,
    ...(str("confirm") !== undefined && { confirmation: str("confirm") }),
    ...(str("reason") !== undefined && { reason: str("reason") }),
  });
  return erasePatient(systemContext(services, org()), input);
}

async function patientsExport({ services, str, org, patientSelector }: CommandArgs) {
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

async function storageMigrate({ services, stderr, str }: CommandArgs) {
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
    stderr.write(`[${p.done}/${p.total}] ${p.action} ${p.key}\n`),
  );
  return { ok: true, ...result };
}

async function holdPlace({ services, str, org, patientSelector }: CommandArgs) {
  return createLegalHold(
    systemContext(services, org()),
    parseInput(createLegalHoldInput, {
      selector: patientSelector(),
      reason: required(str("reason"), "--reason"),
    }),
  );
}

async function retentionSet({ services, str, org }: CommandArgs) {
  const input: Record<string, RetentionPeriod | null> = {};
  for (const kind of retentionKinds) {
    const value = str(retentionFlags[kind]);
    if (value !== undefined) input[kind] = parsePeriod(value, retentionFlags[kind]);
  }
  if (Object.keys(input).length === 0) throw new UsageError("retention set needs at least one period");
  return updateRetentionPolicy(systemContext(services, org()), parseInput(updateRetentionPolicyInput, input));
}

async function retentionRun({ services, values, org }: CommandArgs) {
  const orgIds = values.all ? await organizationsWithSweeps(services) : [org()];
  const runs = [];
  for (const orgId of orgIds) runs.push({ orgId, ...(await runRetentionSweep(systemContext(services, orgId))) });
  return { ok: true, runs };
}

/**
 * `fhir-push set`: the organization's FHIR server. The credential comes from a file
 * (`--secret-file`: a token, a client secret or a PEM private key), never from the command line,
 * where other users of the machine could read it; unchanged options keep their saved values.
 */
async function fhirPushSet({ services, str, org }: CommandArgs) {
  const ctx = systemContext(services, org());
  const saved = await findFhirPushTarget(ctx);
  const secretFile = str("secret-file");
  const input = parseInput(saveFhirPushTargetInput, {
    enabled: onOff(str("enabled") ?? (saved?.enabled === false ? "off" : "on"), "--enabled"),
    baseUrl: required(str("base-url") ?? saved?.baseUrl ?? undefined, "--base-url"),
    auth: str("auth") ?? saved?.auth ?? "none",
    ...(secretFile && { secret: (await readFile(secretFile, "utf8")).trim() }),
    ...optional("clientId", str("client-id") ?? saved?.clientId),
    ...optional("tokenUrl", str("token-url") ?? saved?.tokenUrl),
    ...optional("scope", str("scope") ?? saved?.scope),
    ...optional("patientIdSystem", str("patient-id-system") ?? saved?.patientIdSystem),
    ...optional("rnummerSystem", str("rnummer-system") ?? saved?.rnummerSystem),
  });
  return saveFhirPushTarget(ctx, input);
}

const optional = (key: string, value: string | null | undefined) => (value ? { [key]: value } : {});

/** Every command, by the words that name it. */
const commands = new Map<string, Command>([
  ["org create", orgCreate],
  ["org configure", orgConfigure],
  ["token create", tokenCreate],
  ["token revoke", tokenRevoke],
  ["user create", userCreate],
  ["audit verify", async ({ services, org }) => verifyOrganizationChain(systemContext(services, org()))],
  ["patients erase", patientsErase],
  ["patients export", patientsExport],
  // Migrations run when the services start (createServices); the command only does that.
  ["migrate", async () => ({ ok: true })],
  ["storage migrate", storageMigrate],
  ["storage orphans", async ({ services }) => storageOrphanReport(services)],
  ["storage reconcile", async ({ services }) => ({ ok: true, ...(await reconcileStorage(services)) })],
  ["hold place", holdPlace],
  [
    "hold release",
    async ({ services, str, org }) =>
      releaseLegalHold(systemContext(services, org()), parseInput(releaseLegalHoldInput, { id: str("id") })),
  ],
  [
    "hold list",
    async ({ services, values, org }) =>
      listLegalHolds(
        systemContext(services, org()),
        parseInput(legalHoldListInput, { status: values.all ? "all" : "active", limit: 200 }),
      ),
  ],
  [
    "fhir-push show",
    async ({ services, org }) => ({ target: await getFhirPushTarget(systemContext(services, org())) }),
  ],
  ["fhir-push set", fhirPushSet],
  [
    "fhir-push deliveries",
    async ({ services, org, str }) =>
      listFhirDeliveries(
        systemContext(services, org()),
        parseInput(listFhirDeliveriesInput, { ...optional("status", str("status")), limit: 200 }),
      ),
  ],
  ["retention show", async ({ services, org }) => retentionSettingsOf(systemContext(services, org()))],
  ["retention set", retentionSet],
  ["retention preview", async ({ services, org }) => previewRetention(systemContext(services, org()))],
  ["retention run", retentionRun],
]);

/** The command these words name; an unknown one is a usage mistake. */
export function commandNamed(command: string): Command {
  const found = commands.get(command);
  if (!found) throw new UsageError(`unknown command "${command}"`);
  return found;
}
