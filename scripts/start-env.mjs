// The environment `pnpm start` and `pnpm start:api` give the API and web processes.
import { join, resolve } from "node:path";

/**
 * `base` plus one data folder at the repository root and, for the local demo only (`pnpm start`
 * on loopback without a certificate, not in production), ALLOW_INSECURE_HTTP. `pnpm start:api`
 * is the door for production and scale-out, usually on 127.0.0.1 behind a TLS proxy: there plain
 * HTTP must stay refused unless the operator turns it on explicitly.
 */
export function childEnv(base, { apiOnly, root }) {
  const env = { ...base, NEXT_TELEMETRY_DISABLED: "1", DATA_DIR: resolve(base.DATA_DIR || join(root, ".data")) };
  const host = env.API_HOST || "127.0.0.1";
  const isLoopback = host === "localhost" || host === "::1" || /^127\./.test(host);
  if (
    !apiOnly &&
    env.ALLOW_INSECURE_HTTP === undefined &&
    !env.TLS_CERT_FILE &&
    isLoopback &&
    env.NODE_ENV !== "production"
  ) {
    env.ALLOW_INSECURE_HTTP = "true";
  }
  return env;
}
