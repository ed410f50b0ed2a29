import { describe, expect, it } from "vitest";
import { clientAddress } from "./client-address.mjs";

describe("the client address the web server forwards to the API", () => {
  it("is the peer it saw, whatever X-Forwarded-For a visitor sends", () => {
    expect(clientAddress("1.2.3.4", "198.51.100.7", false)).toBe("198.51.100.7");
    expect(clientAddress(undefined, "::1", false)).toBe("::1");
  });

  it("is the entry a trusted proxy appended, when one is in front", () => {
    expect(clientAddress("1.2.3.4, 203.0.113.9", "10.0.0.2", true)).toBe("203.0.113.9");
    expect(clientAddress("1.2.3.4, not-an-address", "10.0.0.2", true)).toBe("10.0.0.2");
    expect(clientAddress(undefined, "10.0.0.2", true)).toBe("10.0.0.2");
  });
});
