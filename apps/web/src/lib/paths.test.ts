import { describe, expect, it } from "vitest";
import { loginPath, safeNextPath } from "./paths";

describe("safeNextPath", () => {
  it("keeps same-site paths", () => {
    expect(safeNextPath("/tokens")).toBe("/tokens");
    expect(safeNextPath("/settings?tab=1")).toBe("/settings?tab=1");
  });

  it("refuses other origins and loops", () => {
    for (const value of [
      "//evil.example",
      "/\\evil.example",
      "https://evil.example",
      "",
      null,
      "/login",
      "/trpc/auth.me",
    ]) {
      expect(safeNextPath(value)).toBe("/");
    }
  });

  it("refuses paths a browser would turn into another origin", () => {
    for (const value of [
      "/\t/evil.example",
      "/\n/evil.example",
      "/\r//evil.example",
      "/x\\..\\\\evil.example",
      "/\u0000",
      "/\u007f/x",
    ]) {
      expect(safeNextPath(value), JSON.stringify(value)).toBe("/");
    }
    // Encoded, the same characters are only text in a path.
    expect(safeNextPath("/settings%0a")).toBe("/settings%0a");
  });
});

describe("loginPath", () => {
  it("adds next and reason only when useful", () => {
    expect(loginPath("/")).toBe("/login");
    expect(loginPath("/tokens", "expired")).toBe("/login?next=%2Ftokens&reason=expired");
  });
});
