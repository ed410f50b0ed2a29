import { contrastRatio, normalizeHex, readableOn } from "../patient/branding";

/**
 * The branding editor's contrast check against WCAG 2.x AA for normal text (4.5:1). Each brand
 * colour is checked two ways, matching how the patient pages use it: text on the colour (the
 * header band, which gets black or white text, whichever reads better) and the colour on white
 * (links, and buttons with white text). A failed check is a warning, not a refusal: the portal
 * itself only uses a primary colour for buttons and links when it passes on white.
 */

export const AA_NORMAL_TEXT = 4.5;

export interface ContrastResult {
  ratio: number;
  passes: boolean;
}

export interface ColorContrast {
  /** #rrggbb */
  color: string;
  /** The text colour the header band uses on this colour. */
  text: "#ffffff" | "#000000";
  textOnColor: ContrastResult;
  colorOnWhite: ContrastResult;
  /** Both checks pass. */
  passes: boolean;
}

const result = (ratio: number): ContrastResult => ({ ratio, passes: ratio >= AA_NORMAL_TEXT });

/** The two checks of one colour, or null when `value` is not a hex colour (#rgb or #rrggbb). */
export function checkColorContrast(value: string | null | undefined): ColorContrast | null {
  const color = normalizeHex(value);
  if (!color) return null;
  const text = readableOn(color);
  const textOnColor = result(contrastRatio(color, text));
  const colorOnWhite = result(contrastRatio(color, "#ffffff"));
  return { color, text, textOnColor, colorOnWhite, passes: textOnColor.passes && colorOnWhite.passes };
}

/**
 * A ratio as people read it ("4.48:1"), rounded down so a failing ratio never shows as the
 * threshold (4.499 must not read "4.50:1").
 */
export function formatRatio(ratio: number, locale = "en-GB"): string {
  const truncated = Math.floor(ratio * 100) / 100;
  return `${truncated.toLocaleString(locale, { minimumFractionDigits: 2, maximumFractionDigits: 2 })}:1`;
}
