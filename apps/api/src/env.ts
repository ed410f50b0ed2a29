import { resolve } from "node:path";
import { z } from "zod";
import type { S3Settings } from "./core/files/s3-storage";
import { bool, count, hostPort, list, nameServer, port, url } from "./env-values";

const schema = z
  .object({
    NODE_ENV: z.enum(["development", "production", "test"]).optional().default("development"),
    DATABASE_URL: url(/^postgres(ql)?$/, "postgres://"),
    /** Off behind a transaction-pooling proxy that cannot keep named statements (packages/db connect.ts). */
    DATABASE_PREPARED_STATEMENTS: bool(true),
    DATA_DIR: z.string().optional().default("./.data"),
    API_HOST: z.string().min(1).optional().default("127.0.0.1"),
    API_PORT: port(4000),
    WEB_PORT: port(3000),
    PUBLIC_API_URL: url(/^https?$/, "http(s)"),
    PUBLIC_WEB_URL: url(/^https?$/, "http(s)"),
    TLS_CERT_FILE: z.string().optional(),
    TLS_KEY_FILE: z.string().optional(),
    TRUST_PROXY: bool(false),
    ALLOW_INSECURE_HTTP: bool(false),
    OUTBOUND_ALLOW_HOSTS: list.pipe(z.array(hostPort)),
    /** Name servers for the SSO domains' DNS proof (core/identity/sso/domain-proof.ts); unset: the system's. */
    DNS_RESOLVERS: list.pipe(z.array(nameServer)).transform((servers) => (servers.length > 0 ? servers : undefined)),
    SMS_PROVIDER: z.enum(["outbox", "twilio"], { message: "must be outbox or twilio" }).optional().default("outbox"),
    TWILIO_API_URL: url(/^https?$/, "http(s)"),
    TWILIO_ACCOUNT_SID: z.string().optional(),
    TWILIO_AUTH_TOKEN: z.string().optional(),
    TWILIO_FROM: z.string().optional(),
    SMTP_URL: url(/^smtps?$/, "smtp:// or smtps://"),
    MAIL_FROM: z.string().optional().default("ClinSign <no-reply@localhost>"),
    PDF_WORKER_MEMORY_MB: count(512, 64, 8192),
    PDF_WORKER_TIMEOUT_SECONDS: count(30, 1, 600),
    PDF_WORKER_CONCURRENCY: count(2, 1, 64),
    /** `/verify` (anonymous): its deadline, how many checks may wait, signatures read, bytes hashed, checks per address at once. */
    VERIFY_TIMEOUT_SECONDS: count(10, 1, 600),
    VERIFY_QUEUE_LENGTH: count(4, 0, 256),
    VERIFY_MAX_SIGNATURES: count(8, 1, 1000),
    VERIFY_MAX_HASHED_MB: count(200, 1, 100_000),
    VERIFY_CONCURRENT_PER_ADDRESS: count(1, 1, 64),
    /** An uploaded organization seal (PKCS#12): the highest MAC/PBE iteration count accepted, and the deadline to open it. */
    SEAL_P12_MAX_ITERATIONS: count(2_000_000, 1, 100_000_000),
    SEAL_P12_TIMEOUT_SECONDS: count(60, 1, 600),
    /** Draw each document version's pages as images for the signing page (off: the page loads pdf.js). */
    PAGE_IMAGES: bool(true),
    /** The audit chain's bound: chain past writers open longer; verify fails on entries unchained longer. */
    AUDIT_MAX_UNCHAINED_SECONDS: count(60, 1, 86_400),
    /** How long a signature made offline on a device opened by ticket (the desk's tablet) may wait there (issue 35). */
    KIOSK_OFFLINE_HOLD_MINUTES: count(60, 1, 60),
    /** How long one FHIR push may wait for the hospital's server to answer a transaction (issue 34). */
    FHIR_PUSH_TIMEOUT_SECONDS: count(30, 1, 600),
    SIGNING_P12_FILE: z.string().optional(),
    SIGNING_P12_PASSWORD: z.string().optional(),
    /** RFC 3161 time-stamping authority for every seal (PAdES B-T and up); unset: B-B. */
    TSA_URL: url(/^https?$/, "http(s)"),
    /** HTTP basic credentials of the TSA (https only). */
    TSA_USERNAME: z.string().optional(),
    TSA_PASSWORD: z.string().optional(),
    TSA_TIMEOUT_SECONDS: count(10, 1, 120),
    /** Sealed documents get a new document time stamp this many days before the newest one's certificate expires. */
    RETIMESTAMP_WINDOW_DAYS: count(90, 1, 3650),
    STORAGE: z.enum(["fs", "db", "s3"], { message: "must be fs, db or s3" }).optional().default("fs"),
    /** STORAGE=s3: the bucket, its region, and for S3-compatible servers their URL (docs/operations.md). */
    S3_BUCKET: z.string().optional(),
    S3_REGION: z.string().optional().default("us-east-1"),
    S3_ENDPOINT: url(/^https?$/, "http(s)"),
    S3_FORCE_PATH_STYLE: bool(false),
    /** Unset: the AWS SDK's own chain (AWS_* variables, instance or task role). */
    S3_ACCESS_KEY_ID: z.string().optional(),
    S3_SECRET_ACCESS_KEY: z.string().optional(),
    /** Server-side encryption asked for on every object, e.g. AES256 or aws:kms. */
    S3_SSE: z
      .enum(["AES256", "aws:kms", "aws:kms:dsse"], { message: "must be AES256, aws:kms or aws:kms:dsse" })
      .optional(),
    /** proxy: the API streams downloads; presigned: downloads redirect to a short-lived bucket URL. */
    S3_DOWNLOADS: z.enum(["proxy", "presigned"], { message: "must be proxy or presigned" }).optional().default("proxy"),
    S3_PRESIGN_SECONDS: count(300, 10, 3600),
    UPLOAD_MAX_MB_PER_FORM: count(100, 1, 10_240),
    UPLOAD_ORPHAN_HOURS: count(168, 1, 87_600),
    /** How long a connection whose request body was refused stays open after the answer (draining). */
    HTTP_CLOSE_LINGER_SECONDS: count(5, 1, 60),
    /**
     * Public embeds (anonymous visitors): what the visitors of one embed from one address (an IPv6
     * /64) may upload together per hour, and all visitors of one organization's public embeds.
     * Unset: 3 and 10 times UPLOAD_MAX_MB_PER_FORM.
     */
    UPLOAD_PUBLIC_MB_PER_ADDRESS_HOUR: count(undefined, 1, 1_000_000),
    UPLOAD_PUBLIC_MB_PER_ORG_HOUR: count(undefined, 1, 1_000_000),
    /** Stored objects no row references are deleted after being seen so this long (core/jobs/storage-reconciliation.ts). */
    STORAGE_ORPHAN_GRACE_HOURS: count(168, 1, 87_600),
    /**
     * Prometheus metrics (issue 36), never public by default: `/metrics` on the API's port for a
     * scraper that sends `Authorization: Bearer <METRICS_TOKEN>`, and/or on a port of their own
     * (METRICS_PORT on METRICS_HOST, loopback unless told), without a token: keep that port private.
     */
    METRICS_TOKEN: z.string().min(32, { message: "must be at least 32 characters" }).optional(),
    METRICS_PORT: port(undefined),
    METRICS_HOST: z.string().min(1).optional().default("127.0.0.1"),
    /** Traces (issue 36): the OTLP/HTTP collector's base URL (spans go to `<url>/v1/traces`); unset: no tracing. */
    OTEL_EXPORTER_OTLP_ENDPOINT: url(/^https?$/, "http(s)"),
    OTEL_SERVICE_NAME: z.string().min(1).optional().default("clinsign-api"),
    /** SIGTERM: how long in-flight requests and jobs get to finish before leased jobs are handed back and the process exits. */
    SHUTDOWN_DEADLINE_SECONDS: count(20, 1, 600),
    LOG_LEVEL: z
      .enum(["fatal", "error", "warn", "info", "debug", "trace", "silent"], { message: "must be a pino level" })
      .optional()
      .default("info"),
    /**
     * 32 bytes, base64 or hex; encrypts stored secrets. Generated under DATA_DIR when unset, which
     * only one instance with its own data folder may do (required with DATABASE_URL or production).
     */
    ENCRYPTION_KEY: z.string().optional(),
    /** Keys ENCRYPTION_KEY replaced: secrets sealed with them still open (key rotation). */
    ENCRYPTION_KEYS_PREVIOUS: list,
    SEED_ADMIN_EMAIL: z.email({ message: "must be an e-mail address" }).optional(),
    SEED_ADMIN_PASSWORD: z.string().min(8, { message: "must be at least 8 characters" }).optional(),
  })
  .superRefine((env, ctx) => {
    if (Boolean(env.TLS_CERT_FILE) !== Boolean(env.TLS_KEY_FILE))
      ctx.addIssue({
        code: "custom",
        path: ["TLS_KEY_FILE"],
        message: "TLS_CERT_FILE and TLS_KEY_FILE must be set together",
      });
    if (env.ALLOW_INSECURE_HTTP && env.NODE_ENV === "production")
      ctx.addIssue({
        code: "custom",
        path: ["ALLOW_INSECURE_HTTP"],
        message: "is for loopback development only and cannot be used with NODE_ENV=production",
      });
    if (env.ALLOW_INSECURE_HTTP && !isLoopbackHost(env.API_HOST))
      ctx.addIssue({
        code: "custom",
        path: ["ALLOW_INSECURE_HTTP"],
        message: `is for loopback development only, but API_HOST is ${env.API_HOST}`,
      });
    if (env.STORAGE === "s3" && !env.S3_BUCKET)
      ctx.addIssue({ code: "custom", path: ["S3_BUCKET"], message: "is required when STORAGE=s3" });
    if (Boolean(env.S3_ACCESS_KEY_ID) !== Boolean(env.S3_SECRET_ACCESS_KEY))
      ctx.addIssue({
        code: "custom",
        path: ["S3_SECRET_ACCESS_KEY"],
        message: "S3_ACCESS_KEY_ID and S3_SECRET_ACCESS_KEY must be set together",
      });
    if (env.SMS_PROVIDER === "twilio")
      for (const key of ["TWILIO_API_URL", "TWILIO_ACCOUNT_SID", "TWILIO_AUTH_TOKEN", "TWILIO_FROM"] as const)
        if (!env[key]) ctx.addIssue({ code: "custom", path: [key], message: "is required when SMS_PROVIDER=twilio" });
    // Each instance generating its own key would make every other instance's secrets unreadable.
    if (!env.ENCRYPTION_KEY && (env.DATABASE_URL || env.NODE_ENV === "production"))
      ctx.addIssue({
        code: "custom",
        path: ["ENCRYPTION_KEY"],
        message: "is required with DATABASE_URL or NODE_ENV=production, the same on every instance",
      });
    if (Boolean(env.TSA_USERNAME) !== Boolean(env.TSA_PASSWORD))
      ctx.addIssue({
        code: "custom",
        path: ["TSA_PASSWORD"],
        message: "TSA_USERNAME and TSA_PASSWORD must be set together",
      });
    // Basic credentials over plain http would be readable on the way.
    if (env.TSA_USERNAME && env.TSA_URL?.startsWith("http:"))
      ctx.addIssue({ code: "custom", path: ["TSA_URL"], message: "must be https when TSA_USERNAME is set" });
    if (env.TSA_USERNAME && !env.TSA_URL)
      ctx.addIssue({ code: "custom", path: ["TSA_URL"], message: "is required when TSA_USERNAME is set" });
    if (Boolean(env.SEED_ADMIN_EMAIL) !== Boolean(env.SEED_ADMIN_PASSWORD))
      ctx.addIssue({
        code: "custom",
        path: ["SEED_ADMIN_PASSWORD"],
        message: "SEED_ADMIN_EMAIL and SEED_ADMIN_PASSWORD must be set together",
      });
  });

type Environment = z.output<typeof schema>;

export function isLoopbackHost(host: string): boolean {
  return host === "localhost" || host === "::1" || host === "[::1]" || /^127\.\d+\.\d+\.\d+$/.test(host);
}

export interface Config {
  production: boolean;
  databaseUrl: string | undefined;
  /** PostgreSQL keeps the hot paths' statements prepared per connection (DATABASE_PREPARED_STATEMENTS). */
  databasePreparedStatements: boolean;
  dataDir: string;
  apiHost: string;
  apiPort: number;
  webPort: number;
  /** METRICS_TOKEN, METRICS_PORT, METRICS_HOST: where `/metrics` is served (http/metrics.ts). */
  metrics: { token: string | undefined; port: number | undefined; host: string };
  /** OTEL_EXPORTER_OTLP_ENDPOINT, OTEL_SERVICE_NAME: where traces go (core/tracing/sdk.ts); none when unset. */
  tracing: { endpoint: string | undefined; serviceName: string };
  /** SHUTDOWN_DEADLINE_SECONDS: SIGTERM's grace for in-flight work, in ms. */
  shutdownDeadlineMs: number;
  publicApiUrl: string;
  publicWebUrl: string;
  tls: { certFile: string; keyFile: string } | undefined;
  trustProxy: boolean;
  allowInsecureHttp: boolean;
  outboundAllowHosts: string[];
  /** `ip[:port]` name servers for the SSO domains' DNS proof; undefined: the system's resolvers. */
  dnsResolvers: string[] | undefined;
  sms:
    | { provider: "outbox" }
    | { provider: "twilio"; apiUrl: string; accountSid: string; authToken: string; from: string };
  smtpUrl: string | undefined;
  mailFrom: string;
  signingP12: { file: string; password: string } | undefined;
  /** The RFC 3161 time-stamping authority (core/pdf-seal/tsa.ts); undefined: seals are PAdES B-B. */
  tsa: { url: string; username: string | undefined; password: string | undefined; timeoutMs: number } | undefined;
  /** Re-time-stamp sealed documents this long before the newest time stamp's certificate expires. */
  retimestampWindowMs: number;
  /** Limits of the worker threads that read and seal customers' PDFs (core/pdf-worker). */
  pdfWorker: { memoryMb: number; timeoutMs: number; concurrency: number };
  /**
   * `/verify` (core/signatures/verify.ts): its checks run in the PDF workers' lowest-priority lane,
   * one at a time, with this deadline; at most `queueLength` wait; each file's first
   * `maxSignatures` signatures are read and at most `maxHashedBytes` hashed; each address (IPv6:
   * its /64) runs `concurrentPerAddress` checks at once.
   */
  verify: {
    timeoutMs: number;
    queueLength: number;
    maxSignatures: number;
    maxHashedBytes: number;
    concurrentPerAddress: number;
  };
  /** An uploaded organization seal (core/signatures/org-seal.ts): opened in a PDF worker, iteration counts capped. */
  sealUpload: { maxIterations: number; timeoutMs: number };
  /** Page images for the signing page (core/documents/page-images.ts); false: the page shows the PDF with pdf.js. */
  pageImages: boolean;
  storage: "fs" | "db" | "s3";
  /** The bucket of STORAGE=s3 and of `storage migrate` (core/files/s3-storage.ts); undefined without S3_BUCKET. */
  s3: S3Settings | undefined;
  /**
   * Uploads: all files one embed session or SMS-portal access may upload together, how long an
   * upload no submission references is kept (core/jobs/upload-sweeper.ts), and what public-embed
   * visitors may upload per hour from one address to one embed, and to one organization.
   */
  uploads: {
    maxBytesPerForm: number;
    orphanAfterMs: number;
    publicBytesPerAddressHour: number;
    publicBytesPerOrgHour: number;
  };
  /**
   * How long the storage reconciliation reports an object no row references before it deletes it
   * (core/jobs/storage-reconciliation.ts): the margin for an object written before its row commits.
   */
  storageOrphanGraceMs: number;
  /** The chainer chains past writing transactions open longer; verify fails on entries unchained longer. */
  auditMaxUnchainedSeconds: number;
  /** How long one FHIR push waits for the server's answer before it counts as a failed attempt. */
  fhirPushTimeoutMs: number;
  /** KIOSK_OFFLINE_HOLD_MINUTES: a signature held offline on a ticket's device is deleted unsent after this. */
  kioskOfflineHoldMs: number;
  /**
   * After answering a request whose body was refused unread (413, 401 before an upload), how long
   * the connection is drained before it is closed, so the client reads the answer (wire/io.ts).
   */
  closeLingerMs: number;
  logLevel: string;
  encryptionKey: string | undefined;
  previousEncryptionKeys: string[];
  seedAdmin: { email: string; password: string } | undefined;
}

export class ConfigError extends Error {
  constructor(readonly problems: string[]) {
    super(`Invalid configuration:\n${problems.map((p) => `  - ${p}`).join("\n")}`);
  }
}

const trimSlash = (u: string) => u.replace(/\/+$/, "");

/** The variables as the schema reads them (an empty one counts as unset); every problem at once. */
function parseEnvironment(source: Record<string, string | undefined>): Environment {
  const cleaned = Object.fromEntries(Object.entries(source).map(([k, v]) => [k, v === "" ? undefined : v]));
  const parsed = schema.safeParse(cleaned);
  if (!parsed.success) {
    throw new ConfigError(
      parsed.error.issues.map((issue) => `${issue.path.join(".") || "environment"} ${issue.message}`),
    );
  }
  return parsed.data;
}

/** STORAGE=s3's bucket, or undefined without S3_BUCKET. */
function s3SettingsOf(env: Environment): S3Settings | undefined {
  return env.S3_BUCKET
    ? {
        bucket: env.S3_BUCKET!,
        region: env.S3_REGION,
        endpoint: env.S3_ENDPOINT,
        forcePathStyle: env.S3_FORCE_PATH_STYLE,
        credentials:
          env.S3_ACCESS_KEY_ID && env.S3_SECRET_ACCESS_KEY
            ? { accessKeyId: env.S3_ACCESS_KEY_ID, secretAccessKey: env.S3_SECRET_ACCESS_KEY }
            : undefined,
        sse: env.S3_SSE,
        downloads: env.S3_DOWNLOADS,
        presignSeconds: env.S3_PRESIGN_SECONDS,
      }
    : undefined;
}

/** Validates the environment once; everything else in the service reads the returned `Config`. */
export function loadConfig(source: Record<string, string | undefined> = process.env): Config {
  const env = parseEnvironment(source);
  const scheme = env.TLS_CERT_FILE ? "https" : "http";
  const apiHostForUrl = env.API_HOST === "0.0.0.0" || env.API_HOST === "::" ? "127.0.0.1" : env.API_HOST;
  return {
    production: env.NODE_ENV === "production",
    databaseUrl: env.DATABASE_URL,
    databasePreparedStatements: env.DATABASE_PREPARED_STATEMENTS,
    dataDir: resolve(env.DATA_DIR),
    apiHost: env.API_HOST,
    apiPort: env.API_PORT,
    webPort: env.WEB_PORT,
    metrics: { token: env.METRICS_TOKEN, port: env.METRICS_PORT, host: env.METRICS_HOST },
    tracing: { endpoint: env.OTEL_EXPORTER_OTLP_ENDPOINT, serviceName: env.OTEL_SERVICE_NAME },
    shutdownDeadlineMs: env.SHUTDOWN_DEADLINE_SECONDS * 1000,
    publicApiUrl: trimSlash(env.PUBLIC_API_URL ?? `${scheme}://${apiHostForUrl}:${env.API_PORT}`),
    publicWebUrl: trimSlash(env.PUBLIC_WEB_URL ?? `http://localhost:${env.WEB_PORT}`),
    tls: env.TLS_CERT_FILE && env.TLS_KEY_FILE ? { certFile: env.TLS_CERT_FILE, keyFile: env.TLS_KEY_FILE } : undefined,
    trustProxy: env.TRUST_PROXY,
    allowInsecureHttp: env.ALLOW_INSECURE_HTTP,
    outboundAllowHosts: env.OUTBOUND_ALLOW_HOSTS,
    dnsResolvers: env.DNS_RESOLVERS,
    sms:
      env.SMS_PROVIDER === "twilio"
        ? {
            provider: "twilio",
            apiUrl: trimSlash(env.TWILIO_API_URL!),
            accountSid: env.TWILIO_ACCOUNT_SID!,
            authToken: env.TWILIO_AUTH_TOKEN!,
            from: env.TWILIO_FROM!,
          }
        : { provider: "outbox" },
    smtpUrl: env.SMTP_URL,
    mailFrom: env.MAIL_FROM,
    signingP12: env.SIGNING_P12_FILE
      ? { file: env.SIGNING_P12_FILE, password: env.SIGNING_P12_PASSWORD ?? "" }
      : undefined,
    tsa: env.TSA_URL
      ? {
          url: env.TSA_URL,
          username: env.TSA_USERNAME,
          password: env.TSA_PASSWORD,
          timeoutMs: env.TSA_TIMEOUT_SECONDS * 1000,
        }
      : undefined,
    retimestampWindowMs: env.RETIMESTAMP_WINDOW_DAYS * 24 * 3600_000,
    pdfWorker: {
      memoryMb: env.PDF_WORKER_MEMORY_MB,
      timeoutMs: env.PDF_WORKER_TIMEOUT_SECONDS * 1000,
      concurrency: env.PDF_WORKER_CONCURRENCY,
    },
    verify: {
      timeoutMs: env.VERIFY_TIMEOUT_SECONDS * 1000,
      queueLength: env.VERIFY_QUEUE_LENGTH,
      maxSignatures: env.VERIFY_MAX_SIGNATURES,
      maxHashedBytes: env.VERIFY_MAX_HASHED_MB * 1024 * 1024,
      concurrentPerAddress: env.VERIFY_CONCURRENT_PER_ADDRESS,
    },
    sealUpload: { maxIterations: env.SEAL_P12_MAX_ITERATIONS, timeoutMs: env.SEAL_P12_TIMEOUT_SECONDS * 1000 },
    pageImages: env.PAGE_IMAGES,
    storage: env.STORAGE,
    s3: s3SettingsOf(env),
    uploads: {
      maxBytesPerForm: env.UPLOAD_MAX_MB_PER_FORM * 1024 * 1024,
      orphanAfterMs: env.UPLOAD_ORPHAN_HOURS * 3600_000,
      publicBytesPerAddressHour:
        (env.UPLOAD_PUBLIC_MB_PER_ADDRESS_HOUR ?? 3 * env.UPLOAD_MAX_MB_PER_FORM) * 1024 * 1024,
      publicBytesPerOrgHour: (env.UPLOAD_PUBLIC_MB_PER_ORG_HOUR ?? 10 * env.UPLOAD_MAX_MB_PER_FORM) * 1024 * 1024,
    },
    storageOrphanGraceMs: env.STORAGE_ORPHAN_GRACE_HOURS * 3600_000,
    auditMaxUnchainedSeconds: env.AUDIT_MAX_UNCHAINED_SECONDS,
    fhirPushTimeoutMs: env.FHIR_PUSH_TIMEOUT_SECONDS * 1000,
    kioskOfflineHoldMs: env.KIOSK_OFFLINE_HOLD_MINUTES * 60_000,
    closeLingerMs: env.HTTP_CLOSE_LINGER_SECONDS * 1000,
    logLevel: env.LOG_LEVEL,
    encryptionKey: env.ENCRYPTION_KEY,
    previousEncryptionKeys: env.ENCRYPTION_KEYS_PREVIOUS,
    seedAdmin:
      env.SEED_ADMIN_EMAIL && env.SEED_ADMIN_PASSWORD
        ? { email: env.SEED_ADMIN_EMAIL, password: env.SEED_ADMIN_PASSWORD }
        : undefined,
  };
}
