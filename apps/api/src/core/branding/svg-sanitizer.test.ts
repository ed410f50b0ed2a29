import { describe, expect, it } from "vitest";
import { decodeCss, sanitizeSvg } from "./svg-sanitizer";

const svg = (attributes: string) =>
  `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 10 10"><rect width="10" height="10" ${attributes}/></svg>`;

describe("svg sanitizer: CSS in presentation attributes", () => {
  it("decodes CSS escapes and comments as a browser does", () => {
    expect(decodeCss("u\\rl(x)")).toBe("url(x)");
    expect(decodeCss("\\75 rl(x)")).toBe("url(x)");
    expect(decodeCss("\\000075rl(x)")).toBe("url(x)");
    expect(decodeCss("u/**/rl(x)")).toBe("url(x)");
    expect(decodeCss("#0a7f5a")).toBe("#0a7f5a");
  });

  it("drops url() spelled with CSS escapes or comments, and other fetching functions", () => {
    for (const fill of [
      "u\\rl(https://evil.example/t.png)",
      "\\75 rl(https://evil.example/t.png)",
      "\\55RL(https://evil.example/t.png)",
      "u/**/rl(https://evil.example/t.png)",
      "url(#ok) u\\rl(https://evil.example/t.png)",
      "\\5c 75rl(https://evil.example/t.png)",
      "image-set(\\22https://evil.example/t.png\\22 1x)",
      "java\\73 cript:alert(1)",
    ]) {
      const out = sanitizeSvg(svg(`fill="${fill}"`));
      expect(out, fill).not.toContain("fill=");
      expect(out).toContain("<rect");
    }
  });

  it("keeps ordinary values and references to the same document", () => {
    expect(sanitizeSvg(svg('fill="url(#grad)" stroke="#0a7f5a"'))).toContain('fill="url(#grad)" stroke="#0a7f5a"');
  });
});
