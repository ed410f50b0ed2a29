import { describe, expect, it } from "vitest";
import { JWKS_DEFAULT_CACHE_SECONDS, JWKS_MAX_CACHE_SECONDS, jwksCacheSeconds } from "./jwks-cache";

describe("jwksCacheSeconds", () => {
  it("follows Cache-Control: max-age capped at an hour, nothing for no-store/no-cache, a default without a header", () => {
    expect(jwksCacheSeconds("public, max-age=600")).toBe(600);
    expect(jwksCacheSeconds("Max-Age=0")).toBe(0);
    expect(jwksCacheSeconds("max-age=86400")).toBe(JWKS_MAX_CACHE_SECONDS);
    expect(jwksCacheSeconds("no-store")).toBe(0);
    expect(jwksCacheSeconds("max-age=600, no-cache")).toBe(0);
    expect(jwksCacheSeconds('no-cache="set-cookie", max-age=60')).toBe(0);
    expect(jwksCacheSeconds(undefined)).toBe(JWKS_DEFAULT_CACHE_SECONDS);
    expect(jwksCacheSeconds("public")).toBe(JWKS_DEFAULT_CACHE_SECONDS);
    expect(jwksCacheSeconds("max-age=soon")).toBe(JWKS_DEFAULT_CACHE_SECONDS);
  });
});
