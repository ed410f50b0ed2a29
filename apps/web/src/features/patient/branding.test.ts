import { describe, expect, it } from "vitest";
import { brandingProperties, contrastRatio, fontStack, normalizeHex, readableOn, safeLogoUrl } from "./branding";

describe("portal branding", () => {
  it("accepts only hex colours and expands the short form", () => {
    expect(normalizeHex("#0A7F5A")).toBe("#0a7f5a");
    expect(normalizeHex("#abc")).toBe("#aabbcc");
    for (const bad of ["red", "#12345", "#0a7f5a;background:url(x)", "rgb(0,0,0)", "", null, undefined])
      expect(normalizeHex(bad)).toBeNull();
  });

  it("computes WCAG contrast and picks a readable text colour", () => {
    expect(contrastRatio("#000000", "#ffffff")).toBeCloseTo(21, 5);
    expect(contrastRatio("#ffffff", "#ffffff")).toBeCloseTo(1, 5);
    for (const background of ["#ffcc00", "#0b6a86", "#777777", "#3a7bd5", "#ffffff", "#000000", "#e91e63"]) {
      expect(contrastRatio(background, readableOn(background)), background).toBeGreaterThanOrEqual(4.5);
    }
  });

  it("uses the primary colour for buttons and links only when it is readable on white", () => {
    expect(brandingProperties({ logoUrl: null, primaryColor: "#0a4f7a", accentColor: null, font: null })).toMatchObject(
      {
        "--portal-band": "#0a4f7a",
        "--portal-band-text": "#ffffff",
        "--cs-accent": "#0a4f7a",
        "--cs-accent-contrast": "#ffffff",
      },
    );
    // 6.1:1 on white passes AA but not the 7:1 the patient pages keep (AAA): the band only.
    const middle = brandingProperties({ logoUrl: null, primaryColor: "#0b6a86", accentColor: null, font: null });
    expect(middle["--portal-band"]).toBe("#0b6a86");
    expect(middle["--cs-accent"]).toBeUndefined();
    const light = brandingProperties({
      logoUrl: null,
      primaryColor: "#ffd60a",
      accentColor: "#00ff00",
      font: "Georgia",
    });
    expect(light).toMatchObject({
      "--portal-band": "#ffd60a",
      "--portal-band-text": "#000000",
      "--portal-accent": "#00ff00",
    });
    expect(light["--cs-accent"]).toBeUndefined();
    expect(light["--font-sans"]).toContain("Georgia");
    expect(brandingProperties(null)).toEqual({});
  });

  it("maps only listed fonts and shows only https logos", () => {
    expect(fontStack("Inter")).toMatch(/^Inter, /);
    expect(fontStack("Comic Sans; color: red")).toBeNull();
    expect(fontStack("constructor")).toBeNull();
    expect(safeLogoUrl("https://cdn.example.org/logo.png")).toBe("https://cdn.example.org/logo.png");
    expect(safeLogoUrl("http://cdn.example.org/logo.png")).toBeNull();
    expect(safeLogoUrl("javascript:alert(1)")).toBeNull();
    expect(safeLogoUrl("not a url")).toBeNull();
    // An uploaded logo is a path on this origin; other paths are not.
    const uploaded = "/branding/logos/3f1e2d4c-1a2b-4c3d-8e9f-0a1b2c3d4e5f/202611/abcdefghijklmnopqrstuvwxyzABCDEF";
    expect(safeLogoUrl(uploaded)).toBe(uploaded);
    expect(safeLogoUrl("/branding/logos/../../staff/x")).toBeNull();
    expect(safeLogoUrl("//evil.example/branding/logos/x")).toBeNull();
  });
});
