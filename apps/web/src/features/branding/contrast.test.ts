import { describe, expect, it } from "vitest";
import { AA_NORMAL_TEXT, checkColorContrast, formatRatio } from "./contrast";

describe("checkColorContrast", () => {
  it("gives black the full 21:1 on white and white text on it", () => {
    const black = checkColorContrast("#000000")!;
    expect(black.colorOnWhite.ratio).toBeCloseTo(21, 5);
    expect(black.text).toBe("#ffffff");
    expect(black.textOnColor.ratio).toBeCloseTo(21, 5);
    expect(black.passes).toBe(true);
  });

  it("warns about a light colour on white while its band text (black) still reads", () => {
    const yellow = checkColorContrast("#ffff00")!;
    expect(yellow.colorOnWhite.passes).toBe(false);
    expect(yellow.colorOnWhite.ratio).toBeCloseTo(1.07, 2);
    expect(yellow.text).toBe("#000000");
    expect(yellow.textOnColor.passes).toBe(true);
    expect(yellow.passes).toBe(false);
  });

  it("draws the line at 4.5:1 (#767676 passes on white, #777777 does not)", () => {
    expect(checkColorContrast("#767676")!.colorOnWhite.ratio).toBeGreaterThanOrEqual(AA_NORMAL_TEXT);
    expect(checkColorContrast("#767676")!.colorOnWhite.passes).toBe(true);
    expect(checkColorContrast("#777777")!.colorOnWhite.ratio).toBeLessThan(AA_NORMAL_TEXT);
    expect(checkColorContrast("#777777")!.colorOnWhite.passes).toBe(false);
  });

  it("expands #rgb, ignores case, and refuses what is not a hex colour", () => {
    expect(checkColorContrast("#0A7")!.color).toBe("#00aa77");
    expect(checkColorContrast("red")).toBeNull();
    expect(checkColorContrast("#12345")).toBeNull();
    expect(checkColorContrast("")).toBeNull();
    expect(checkColorContrast(null)).toBeNull();
  });

  it("is symmetric: the ratio does not depend on which colour is lighter", () => {
    const teal = checkColorContrast("#0a7f5a")!;
    expect(teal.colorOnWhite.ratio).toBeGreaterThan(4.5);
    expect(teal.colorOnWhite.ratio).toBeLessThan(5.5);
    expect(teal.text).toBe("#ffffff");
    expect(teal.textOnColor.ratio).toBeCloseTo(teal.colorOnWhite.ratio, 10);
  });
});

describe("formatRatio", () => {
  it("rounds down so a failing ratio never reads as the threshold", () => {
    expect(formatRatio(4.499)).toBe("4.49:1");
    expect(formatRatio(21)).toBe("21.00:1");
  });

  it("uses the reader's decimal separator", () => {
    expect(formatRatio(4.5, "de-DE")).toBe("4,50:1");
  });
});
