import { describe, expect, it } from "vitest";
import { loginPath, safeNextPath } from "./paths";

describe("safeNextPath", () => {
  it("keeps same-site paths", () => {
    expect(safeNextPath("/tokens")).toBe("/tokens");
    expect(safeNextPath("/settings?tab=1")).toBe("/settings?tab=1");
  });

  it("refuses other origins and loops", () => {
    for (const value of ["//evil.example", "/\\evil.example", "https://evil.example", "", null, "/login", "/trpc/auth.me"]) {
      expect(safeNextPath(value)).toBe("/");
    }
  });
});

describe("loginPath", () => {
  it("adds next and reason only when useful", () => {
    expect(loginPath("/")).toBe("/login");
    expect(loginPath("/tokens", "expired")).toBe("/login?next=%2Ftokens&reason=expired");
  });
});
