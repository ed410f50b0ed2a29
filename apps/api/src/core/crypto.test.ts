import { execFileSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import { describe, expect, it } from "vitest";
import { hashPassword, PASSWORD_HASHING, SecretBox, verifyPassword } from "./crypto";

describe("password hashes", () => {
  it("are scrypt at N=2^15, r=8 (32 MiB each) in the service, and verify", async () => {
    // A process of its own without the test runner's variables, as the service runs.
    const env: NodeJS.ProcessEnv = { ...process.env, NODE_ENV: "production" };
    delete env.VITEST;
    const script = `import("./crypto.ts").then(async (c) => process.stdout.write(await c.hashPassword("Pferdebatterie")))`;
    const stored = execFileSync(process.execPath, ["--import", "tsx", "-e", script], {
      cwd: import.meta.dirname,
      env,
      encoding: "utf8",
    });
    expect(stored).toMatch(/^scrypt\$32768\$8\$1\$[A-Za-z0-9+/]{22}==\$[A-Za-z0-9+/]{86}==$/);
    expect(await verifyPassword("Pferdebatterie", stored)).toBe(true);
    expect(await verifyPassword("pferdebatterie", stored)).toBe(false);
  });

  it("are the same scheme at N=2^10 under the test runner, and a production hash verifies beside them", async () => {
    const quick = await hashPassword("Pferdebatterie");
    expect(quick).toMatch(/^scrypt\$1024\$8\$1\$/);
    expect(await verifyPassword("Pferdebatterie", quick)).toBe(true);
    const full = await hashPassword("Pferdebatterie", PASSWORD_HASHING);
    expect(full).toMatch(/^scrypt\$32768\$8\$1\$/);
    expect(await verifyPassword("Pferdebatterie", full)).toBe(true);
    expect(await verifyPassword("Pferdebatterie!", full)).toBe(false);
  });
});

describe("SecretBox", () => {
  const [oldKey, newKey] = [randomBytes(32), randomBytes(32)];

  it("names the sealing key, so a rotated key still opens what it sealed while it is listed", () => {
    const sealed = new SecretBox(oldKey).seal("whsec_secret");
    expect(sealed).toMatch(/^v2\.[0-9a-f]{8}\./);
    expect(new SecretBox(newKey, [oldKey]).open(sealed)).toBe("whsec_secret");
    expect(() => new SecretBox(newKey).open(sealed)).toThrow("no longer configured");
    const resealed = new SecretBox(newKey, [oldKey]).seal("whsec_secret");
    expect(new SecretBox(newKey).open(resealed)).toBe("whsec_secret");
  });

  it("opens values sealed before key ids (v1) with the current or a previous key", () => {
    const sealedV1 = (key: Buffer) => {
      const [, , iv, tag, body] = new SecretBox(key).seal("legacy").split(".");
      return ["v1", iv, tag, body].join(".");
    };
    expect(new SecretBox(oldKey).open(sealedV1(oldKey))).toBe("legacy");
    expect(new SecretBox(newKey, [oldKey]).open(sealedV1(oldKey))).toBe("legacy");
    expect(() => new SecretBox(newKey).open(sealedV1(oldKey))).toThrow("cannot be opened");
    expect(() => new SecretBox(newKey).open("v9.x")).toThrow("unknown secret format");
  });
});
