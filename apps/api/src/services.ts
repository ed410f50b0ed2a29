import { randomBytes } from "node:crypto";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import pino, { type DestinationStream, type Logger } from "pino";
import { openDb, type Database } from "@clinsign/db";
import type { Services } from "./core/context";
import { SecretBox } from "./core/crypto";
import { createStorage } from "./core/files/storage";
import { onSignatureEvent } from "./core/signatures/events";
import { fhirPushOnSignatureEvent } from "./core/fhir-push/deliveries";
import { noticeOfUnsignedEnd } from "./core/signatures/notices";
import type { Config } from "./env";
import { serializeError } from "./log-errors";
import { traceFields } from "./core/tracing/tracing";

/** Paths pino blanks out wherever they appear in a log line. */
export const redactedPaths = [
  "token",
  "password",
  "secret",
  "authorization",
  "cookie",
  "*.token",
  "*.password",
  "*.secret",
  "*.authorization",
  "*.cookie",
  "*.webhookSecret",
  "*.sessionJwtSecret",
  "headers.authorization",
  "headers.cookie",
  "req.headers.authorization",
  "req.headers.cookie",
];

export function createLogger(config: Pick<Config, "logLevel">, destination?: DestinationStream): Logger {
  const options = {
    level: config.logLevel,
    redact: { paths: redactedPaths, censor: "[redacted]" },
    serializers: { err: serializeError },
    base: { service: "clinsign-api" },
    // Every line written inside a traced request or job names its trace (nothing when tracing is off).
    mixin: traceFields,
  };
  return destination ? pino(options, destination) : pino(options);
}

function parseKey(value: string): Buffer {
  const hex = /^[0-9a-f]{64}$/i.test(value) ? Buffer.from(value, "hex") : Buffer.from(value, "base64");
  if (hex.length !== 32) throw new Error("ENCRYPTION_KEY must be 32 bytes, as 64 hex characters or base64");
  return hex;
}

/** The key that encrypts stored secrets: ENCRYPTION_KEY, else one generated once under DATA_DIR. */
export function loadEncryptionKey(config: Pick<Config, "encryptionKey" | "dataDir">): Buffer {
  if (config.encryptionKey) return parseKey(config.encryptionKey);
  const file = join(config.dataDir, "encryption.key");
  if (!existsSync(file)) {
    mkdirSync(config.dataDir, { recursive: true });
    writeFileSync(file, randomBytes(32).toString("hex"), { mode: 0o600, flag: "wx" });
  }
  return parseKey(readFileSync(file, "utf8").trim());
}

/** Opens the database, applies migrations and builds the process-wide services. */
export async function createServices(
  config: Config,
  log: Logger = createLogger(config),
  database?: Database,
): Promise<Services> {
  database ??= await openDb({
    databaseUrl: config.databaseUrl,
    dataDir: config.databaseUrl ? undefined : join(config.dataDir, "pglite"),
    preparedStatements: config.databasePreparedStatements,
  });
  await database.migrate();
  // What follows a signature event besides its audit entry and webhook (core/signatures/events.ts).
  onSignatureEvent(noticeOfUnsignedEnd);
  onSignatureEvent(fhirPushOnSignatureEvent);
  return {
    config,
    database,
    db: database.db,
    secrets: new SecretBox(loadEncryptionKey(config), config.previousEncryptionKeys.map(parseKey)),
    storage: createStorage({ kind: config.storage, dataDir: config.dataDir, s3: config.s3 }, database.db, log),
    log,
    devCertificate: !config.signingP12,
  };
}
