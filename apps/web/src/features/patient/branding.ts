import { brandingFonts, type Branding } from "@clinsign/contracts";

/**
 * The institution's branding as CSS custom properties on the portal page's <body>. The API
 * accepts only hex colours and fonts from a fixed list; they are checked again here and set with
 * `style.setProperty` (a strict CSP refuses inline style attributes, and a value that is not a
 * colour can never become CSS). The font replaces the theme's `--font-sans`. Colours are only
 * used where they keep text readable: the primary
 * colour becomes the accent of buttons and links only when it has 7:1 contrast on white (WCAG
 * AAA, which the patient pages meet: axe runs every rule on them); the header band always gets a
 * text colour (black or white) with enough contrast on it.
 */

const HEX = /^#(?:[0-9a-f]{3}|[0-9a-f]{6})$/i;

/** Font stacks for the branding fonts; the named font first, then close system fallbacks. */
const FONT_STACKS: Record<(typeof brandingFonts)[number], string> = {
  "system-ui": 'system-ui, -apple-system, "Segoe UI", Roboto, "Noto Sans", "Liberation Sans", Arial, sans-serif',
  Arial: 'Arial, "Liberation Sans", Helvetica, sans-serif',
  Helvetica: 'Helvetica, Arial, "Liberation Sans", sans-serif',
  Verdana: 'Verdana, "DejaVu Sans", Geneva, sans-serif',
  Tahoma: 'Tahoma, Verdana, "DejaVu Sans", sans-serif',
  "Trebuchet MS": '"Trebuchet MS", "Lucida Grande", "DejaVu Sans", sans-serif',
  Georgia: 'Georgia, "DejaVu Serif", "Times New Roman", serif',
  "Times New Roman": '"Times New Roman", Times, "Liberation Serif", serif',
  Inter: 'Inter, system-ui, -apple-system, "Segoe UI", Roboto, Arial, sans-serif',
  Roboto: 'Roboto, system-ui, -apple-system, "Segoe UI", Arial, sans-serif',
  "Open Sans": '"Open Sans", system-ui, -apple-system, "Segoe UI", Arial, sans-serif',
  "Source Sans 3": '"Source Sans 3", "Source Sans Pro", system-ui, "Segoe UI", Arial, sans-serif',
};

export function normalizeHex(value: string | null | undefined): string | null {
  if (!value || !HEX.test(value)) return null;
  const hex = value.toLowerCase();
  return hex.length === 4 ? `#${hex[1]}${hex[1]}${hex[2]}${hex[2]}${hex[3]}${hex[3]}` : hex;
}

function luminance(hex: string): number {
  const channel = (offset: number) => {
    const c = parseInt(hex.slice(offset, offset + 2), 16) / 255;
    return c <= 0.03928 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4;
  };
  return 0.2126 * channel(1) + 0.7152 * channel(3) + 0.0722 * channel(5);
}

/** WCAG contrast ratio of two #rrggbb colours (1 to 21). */
export function contrastRatio(a: string, b: string): number {
  const [light, dark] = [luminance(a), luminance(b)].sort((x, y) => y - x) as [number, number];
  return (light + 0.05) / (dark + 0.05);
}

/** Black or white, whichever reads better on `background` (always at least 4.5:1). */
export function readableOn(background: string): "#ffffff" | "#000000" {
  return contrastRatio(background, "#ffffff") >= contrastRatio(background, "#000000") ? "#ffffff" : "#000000";
}

/** A darker shade for hover states (each channel × factor). */
function darken(hex: string, factor: number): string {
  const channel = (offset: number) =>
    Math.round(parseInt(hex.slice(offset, offset + 2), 16) * factor)
      .toString(16)
      .padStart(2, "0");
  return `#${channel(1)}${channel(3)}${channel(5)}`;
}

export function fontStack(font: string | null | undefined): string | null {
  return font && Object.hasOwn(FONT_STACKS, font) ? FONT_STACKS[font as keyof typeof FONT_STACKS] : null;
}

/** The path of a logo uploaded to the service; this app serves it from its own origin. */
const UPLOADED_LOGO_PATH = /^\/branding\/logos\/[0-9a-f-]{36}\/[0-9]{6}\/[A-Za-z0-9_-]{32,64}$/;

/**
 * Only https logo URLs and uploaded logos' paths are shown (the API accepts nothing else;
 * checked again here).
 */
export function safeLogoUrl(url: string | null | undefined): string | null {
  if (!url) return null;
  if (UPLOADED_LOGO_PATH.test(url)) return url;
  try {
    return new URL(url).protocol === "https:" ? url : null;
  } catch {
    return null;
  }
}

/** The custom properties for a branding; keys are CSS property names. */
export function brandingProperties(branding: Branding | null): Record<string, string> {
  const properties: Record<string, string> = {};
  const primary = normalizeHex(branding?.primaryColor);
  const accent = normalizeHex(branding?.accentColor);
  if (primary) {
    properties["--portal-band"] = primary;
    properties["--portal-band-text"] = readableOn(primary);
    if (contrastRatio(primary, "#ffffff") >= 7) {
      properties["--cs-accent"] = primary;
      properties["--cs-accent-hover"] = darken(primary, 0.8);
      properties["--cs-accent-contrast"] = "#ffffff";
    }
  }
  if (accent) properties["--portal-accent"] = accent;
  const font = fontStack(branding?.font);
  if (font) properties["--font-sans"] = font;
  return properties;
}

/** Sets the branding's properties on `element` and removes those a previous branding set. */
export function applyBranding(element: HTMLElement, branding: Branding | null): () => void {
  const properties = brandingProperties(branding);
  for (const [name, value] of Object.entries(properties)) element.style.setProperty(name, value);
  return () => {
    for (const name of Object.keys(properties)) element.style.removeProperty(name);
  };
}
