import { describe, expect, it } from "vitest";
import { childEnv } from "../../../scripts/start-env.mjs";

describe("the environment of pnpm start and pnpm start:api", () => {
  const root = "/srv/clinsign";

  it("lets only the local demo (pnpm start on loopback) turn plain HTTP on", () => {
    expect(childEnv({}, { apiOnly: false, root }).ALLOW_INSECURE_HTTP).toBe("true");
    expect(childEnv({ API_HOST: "0.0.0.0" }, { apiOnly: false, root }).ALLOW_INSECURE_HTTP).toBeUndefined();
    expect(childEnv({ NODE_ENV: "production" }, { apiOnly: false, root }).ALLOW_INSECURE_HTTP).toBeUndefined();
    expect(childEnv({ TLS_CERT_FILE: "/c.pem" }, { apiOnly: false, root }).ALLOW_INSECURE_HTTP).toBeUndefined();
  });

  it("never turns plain HTTP on for pnpm start:api, the production and scale-out door", () => {
    expect(childEnv({}, { apiOnly: true, root }).ALLOW_INSECURE_HTTP).toBeUndefined();
    expect(childEnv({ API_HOST: "127.0.0.1" }, { apiOnly: true, root }).ALLOW_INSECURE_HTTP).toBeUndefined();
    // An explicit choice is the operator's.
    expect(childEnv({ ALLOW_INSECURE_HTTP: "true" }, { apiOnly: true, root }).ALLOW_INSECURE_HTTP).toBe("true");
  });

  it("keeps one data folder at the repository root", () => {
    expect(childEnv({}, { apiOnly: true, root }).DATA_DIR).toBe("/srv/clinsign/.data");
  });
});
