import { describe, expect, it } from "vitest";
import { contentSecurityPolicy } from "./csp";

describe("contentSecurityPolicy", () => {
  it("allows only nonce'd scripts and styles in production", () => {
    const csp = contentSecurityPolicy("abc123", false);
    expect(csp).toContain("script-src 'self' 'nonce-abc123' 'strict-dynamic'");
    expect(csp).toContain("style-src 'self' 'nonce-abc123'");
    expect(csp).not.toContain("unsafe-");
    expect(csp).toContain("frame-ancestors 'none'");
    expect(csp).toContain("object-src 'none'");
  });

  it("allows https images only where asked (the portal's institution logo)", () => {
    expect(contentSecurityPolicy("abc123", false)).toContain("img-src 'self' blob: data:;");
    expect(contentSecurityPolicy("abc123", false, { httpsImages: true })).toContain(
      "img-src 'self' blob: data: https:;",
    );
  });

  it("relaxes eval and inline styles for the development server only", () => {
    const csp = contentSecurityPolicy("abc123", true);
    expect(csp).toContain("'unsafe-eval'");
    expect(csp).toContain("style-src 'self' 'unsafe-inline'");
  });
});
