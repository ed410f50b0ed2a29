import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
// s3rver speaks the S3 REST protocol on loopback; the real AWS SDK client talks to it.
import S3rver from "s3rver";
import type { S3Settings } from "../core/files/s3-storage";

export interface TestS3 {
  endpoint: string;
  settings(overrides?: Partial<S3Settings>): S3Settings;
  /** The CLI's environment for this server. */
  env: Record<string, string>;
  close(): Promise<void>;
}

/** Starts an S3-compatible server on 127.0.0.1 (a free port) with an empty bucket per name. */
export async function startTestS3(buckets: string[] = ["clinsign-test"]): Promise<TestS3> {
  const directory = mkdtempSync(join(tmpdir(), "clinsign-s3-"));
  const server = new S3rver({
    address: "127.0.0.1",
    port: 0,
    silent: true,
    directory,
    configureBuckets: buckets.map((name) => ({ name, configs: [] })),
  });
  const { port } = (await server.run()) as { port: number };
  const endpoint = `http://127.0.0.1:${port}`;
  const credentials = { accessKeyId: "S3RVER", secretAccessKey: "S3RVER" };
  return {
    endpoint,
    settings: (overrides = {}) => ({
      bucket: buckets[0]!,
      region: "us-east-1",
      endpoint,
      forcePathStyle: true,
      credentials,
      downloads: "proxy",
      ...overrides,
    }),
    env: {
      STORAGE: "s3",
      S3_BUCKET: buckets[0]!,
      S3_REGION: "us-east-1",
      S3_ENDPOINT: endpoint,
      S3_FORCE_PATH_STYLE: "true",
      S3_ACCESS_KEY_ID: credentials.accessKeyId,
      S3_SECRET_ACCESS_KEY: credentials.secretAccessKey,
    },
    close: async () => {
      await server.close();
      rmSync(directory, { recursive: true, force: true });
    },
  };
}
