import { describe, expect, it } from "vitest";
import { ConfigError, loadConfig } from "./env";

const problems = (env: Record<string, string>) => {
  try {
    loadConfig(env);
    return [];
  } catch (error) {
    if (error instanceof ConfigError) return error.problems;
    throw error;
  }
};

describe("configuration", () => {
  it("has working defaults for the embedded setup", () => {
    const config = loadConfig({});
    expect(config).toMatchObject({
      databaseUrl: undefined,
      apiHost: "127.0.0.1",
      apiPort: 4000,
      webPort: 3000,
      publicApiUrl: "http://127.0.0.1:4000",
      publicWebUrl: "http://localhost:3000",
      storage: "fs",
      uploads: {
        maxBytesPerForm: 100 * 1024 * 1024,
        orphanAfterMs: 168 * 3600_000,
        publicBytesPerAddressHour: 300 * 1024 * 1024,
        publicBytesPerOrgHour: 1000 * 1024 * 1024,
      },
      storageOrphanGraceMs: 168 * 3600_000,
      sms: { provider: "outbox" },
      allowInsecureHttp: false,
      trustProxy: false,
      auditMaxUnchainedSeconds: 60,
      closeLingerMs: 5000,
      sealUpload: { maxIterations: 2_000_000, timeoutMs: 60_000 },
    });
    expect(config.dataDir).toMatch(/\.data$/);
  });

  it("parses lists and switches as documented", () => {
    const config = loadConfig({
      OUTBOUND_ALLOW_HOSTS: "127.0.0.1:8443, files.example.org",
      TRUST_PROXY: "1",
      PUBLIC_WEB_URL: "https://sign.example.org/",
    });
    expect(config.outboundAllowHosts).toEqual(["127.0.0.1:8443", "files.example.org"]);
    expect(loadConfig({ DNS_RESOLVERS: "127.0.0.1:5353, [::1]:53, 9.9.9.9" }).dnsResolvers).toEqual([
      "127.0.0.1:5353",
      "[::1]:53",
      "9.9.9.9",
    ]);
    expect(loadConfig({}).dnsResolvers).toBeUndefined();
    expect(config.trustProxy).toBe(true);
    expect(config.publicWebUrl).toBe("https://sign.example.org");
  });

  it("names each wrong value clearly", () => {
    expect(problems({ API_PORT: "eighty" })).toEqual(["API_PORT must be a port number"]);
    expect(problems({ DATABASE_URL: "mysql://x", ENCRYPTION_KEY: "11".repeat(32) })).toEqual([
      "DATABASE_URL must be a postgres:// URL",
    ]);
    expect(problems({ STORAGE: "blob" })).toEqual(["STORAGE must be fs, db or s3"]);
    expect(problems({ STORAGE: "s3" })).toEqual(["S3_BUCKET is required when STORAGE=s3"]);
    expect(problems({ STORAGE: "s3", S3_BUCKET: "b", S3_ACCESS_KEY_ID: "AKIA" })).toEqual([
      "S3_SECRET_ACCESS_KEY S3_ACCESS_KEY_ID and S3_SECRET_ACCESS_KEY must be set together",
    ]);
    expect(problems({ STORAGE: "s3", S3_BUCKET: "b", S3_DOWNLOADS: "direct" })).toEqual([
      "S3_DOWNLOADS must be proxy or presigned",
    ]);
    expect(
      loadConfig({
        STORAGE: "s3",
        S3_BUCKET: "clinsign",
        S3_ENDPOINT: "http://127.0.0.1:9000",
        S3_FORCE_PATH_STYLE: "true",
        S3_ACCESS_KEY_ID: "id",
        S3_SECRET_ACCESS_KEY: "secret",
        S3_SSE: "AES256",
      }).s3,
    ).toEqual({
      bucket: "clinsign",
      region: "us-east-1",
      endpoint: "http://127.0.0.1:9000",
      forcePathStyle: true,
      credentials: { accessKeyId: "id", secretAccessKey: "secret" },
      sse: "AES256",
      downloads: "proxy",
      presignSeconds: 300,
    });
    expect(problems({ PDF_WORKER_MEMORY_MB: "10" })).toEqual(["PDF_WORKER_MEMORY_MB must be at least 64"]);
    expect(problems({ PDF_WORKER_TIMEOUT_SECONDS: "1.5" })).toEqual([
      "PDF_WORKER_TIMEOUT_SECONDS must be a whole number",
    ]);
    expect(problems({ UPLOAD_ORPHAN_HOURS: "0" })).toEqual(["UPLOAD_ORPHAN_HOURS must be at least 1"]);
    expect(loadConfig({ UPLOAD_MAX_MB_PER_FORM: "5", UPLOAD_ORPHAN_HOURS: "2" }).uploads).toEqual({
      maxBytesPerForm: 5 * 1024 * 1024,
      orphanAfterMs: 2 * 3600_000,
      // The public-embed caps follow the per-form cap unless set.
      publicBytesPerAddressHour: 15 * 1024 * 1024,
      publicBytesPerOrgHour: 50 * 1024 * 1024,
    });
    expect(
      loadConfig({ UPLOAD_PUBLIC_MB_PER_ADDRESS_HOUR: "20", UPLOAD_PUBLIC_MB_PER_ORG_HOUR: "200" }).uploads,
    ).toMatchObject({ publicBytesPerAddressHour: 20 * 1024 * 1024, publicBytesPerOrgHour: 200 * 1024 * 1024 });
    expect(problems({ UPLOAD_PUBLIC_MB_PER_ORG_HOUR: "0" })).toEqual([
      "UPLOAD_PUBLIC_MB_PER_ORG_HOUR must be at least 1",
    ]);
    expect(problems({ STORAGE_ORPHAN_GRACE_HOURS: "0" })).toEqual(["STORAGE_ORPHAN_GRACE_HOURS must be at least 1"]);
    expect(loadConfig({ STORAGE_ORPHAN_GRACE_HOURS: "48" }).storageOrphanGraceMs).toBe(48 * 3600_000);
    expect(problems({ AUDIT_MAX_UNCHAINED_SECONDS: "0" })).toEqual(["AUDIT_MAX_UNCHAINED_SECONDS must be at least 1"]);
    expect(loadConfig({ AUDIT_MAX_UNCHAINED_SECONDS: "300" }).auditMaxUnchainedSeconds).toBe(300);
    expect(problems({ TRUST_PROXY: "yes" })).toEqual(["TRUST_PROXY must be true, false, 1 or 0"]);
    expect(problems({ TLS_CERT_FILE: "/x.pem" })).toEqual([
      "TLS_KEY_FILE TLS_CERT_FILE and TLS_KEY_FILE must be set together",
    ]);
    expect(problems({ SMS_PROVIDER: "twilio" })).toHaveLength(4);
    expect(problems({ OUTBOUND_ALLOW_HOSTS: "http://x" })[0]).toContain("OUTBOUND_ALLOW_HOSTS");
    expect(problems({ DNS_RESOLVERS: "dns.example.org:53" })[0]).toContain("DNS_RESOLVERS");
    expect(problems({ DNS_RESOLVERS: "127.0.0.1:70000" })[0]).toContain("DNS_RESOLVERS");
  });

  it("keeps the plain-HTTP switch to loopback development", () => {
    expect(problems({ ALLOW_INSECURE_HTTP: "true", NODE_ENV: "production" })[0]).toContain("loopback development only");
    expect(problems({ ALLOW_INSECURE_HTTP: "true", API_HOST: "0.0.0.0" })[0]).toContain("API_HOST is 0.0.0.0");
    expect(loadConfig({ ALLOW_INSECURE_HTTP: "true" }).allowInsecureHttp).toBe(true);
  });

  it("configures the time-stamping authority; its credentials only over https", () => {
    expect(loadConfig({}).tsa).toBeUndefined();
    expect(loadConfig({ TSA_URL: "http://timestamp.example.org/tsa" }).tsa).toEqual({
      url: "http://timestamp.example.org/tsa",
      username: undefined,
      password: undefined,
      timeoutMs: 10_000,
    });
    expect(
      loadConfig({ TSA_URL: "https://tsa.example.org", TSA_USERNAME: "u", TSA_PASSWORD: "p", TSA_TIMEOUT_SECONDS: "3" })
        .tsa,
    ).toMatchObject({ username: "u", password: "p", timeoutMs: 3000 });
    expect(problems({ TSA_URL: "http://tsa.example.org", TSA_USERNAME: "u", TSA_PASSWORD: "p" })).toEqual([
      "TSA_URL must be https when TSA_USERNAME is set",
    ]);
    expect(problems({ TSA_URL: "https://tsa.example.org", TSA_USERNAME: "u" })).toEqual([
      "TSA_PASSWORD TSA_USERNAME and TSA_PASSWORD must be set together",
    ]);
    expect(problems({ TSA_USERNAME: "u", TSA_PASSWORD: "p" })).toEqual([
      "TSA_URL is required when TSA_USERNAME is set",
    ]);
    expect(loadConfig({ RETIMESTAMP_WINDOW_DAYS: "30" }).retimestampWindowMs).toBe(30 * 24 * 3600_000);
  });

  it("requires ENCRYPTION_KEY where instances share state or run in production", () => {
    const key = "11".repeat(32);
    const missing = "ENCRYPTION_KEY is required with DATABASE_URL or NODE_ENV=production, the same on every instance";
    expect(problems({ DATABASE_URL: "postgres://db.internal/clinsign" })).toEqual([missing]);
    expect(problems({ NODE_ENV: "production" })).toEqual([missing]);
    expect(
      problems({ DATABASE_URL: "postgres://db.internal/clinsign", NODE_ENV: "production", ENCRYPTION_KEY: key }),
    ).toEqual([]);
    expect(
      loadConfig({ ENCRYPTION_KEY: key, ENCRYPTION_KEYS_PREVIOUS: `${"22".repeat(32)}, ${"33".repeat(32)}` })
        .previousEncryptionKeys,
    ).toHaveLength(2);
  });
});
