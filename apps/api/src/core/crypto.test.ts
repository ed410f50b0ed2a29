import { randomBytes } from "node:crypto";
import { describe, expect, it } from "vitest";
import { SecretBox } from "./crypto";

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
