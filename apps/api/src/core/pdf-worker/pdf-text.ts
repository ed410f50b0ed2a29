// The package ships no types; the declaration must reach every project that compiles this file (apps/web too).
// eslint-disable-next-line @typescript-eslint/triple-slash-reference
/// <reference path="./foliojs-fontkit.d.ts" />
/**
 * Text in the PDFs we draw, in every patient language (de, en, tr, ar, ru, uk, pl): the typed
 * signature names, the sealed PDF's audit page, the submission PDF. One module, so every signer's
 * name and every label go the same way.
 *
 * - A document whose texts are all Latin-1 is drawn with the standard PDF fonts (Helvetica, Times
 *   italic, Courier): nothing is embedded, the files stay as small as before. Once one text of a
 *   role (regular, bold, italic, mono) needs more, every text of that role is drawn in Noto Sans.
 * - Any other text is drawn with Noto Sans (Latin, Cyrillic, Greek) and Noto Sans Arabic, embedded
 *   as subsets through fontkit (SIL Open Font Licence 1.1; packages @expo-google-fonts/noto-sans and
 *   -arabic ship the TTFs). fontkit shapes Arabic (joining forms, lam-alef). The fontkit is
 *   @foliojs-fork/fontkit (pdfkit's): @pdf-lib/fontkit's subsets of Noto Sans lose most glyphs
 *   (the text extracts, but draws blank).
 * - Each line is put into visual order with the Unicode bidirectional algorithm (bidi-js); a right-to-
 *   left page right-aligns its lines (the caller measures and places them).
 * - Characters neither font has (emoji, CJK) become "?"; controls and format characters (bidi
 *   overrides that could reorder a name) are dropped or replaced, never drawn.
 *
 * Runs only in the PDF worker (seal-pdf.ts, submissions/pdf-layout.ts).
 */
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import fontkit from "@foliojs-fork/fontkit";
import type { Font } from "pdf-lib/cjs/types/fontkit";
import bidiFactory from "bidi-js";
import { StandardFonts, type PDFDocument, type PDFFont } from "pdf-lib";

export type FontRole = "regular" | "bold" | "italic" | "mono";
export type TextDirection = "ltr" | "rtl";
/** `auto`: the paragraph's first strong character decides (an answer in Arabic reads right to left). */
export type ParagraphDirection = TextDirection | "auto";

const STANDARD: Record<FontRole, StandardFonts> = {
  regular: StandardFonts.Helvetica,
  bold: StandardFonts.HelveticaBold,
  italic: StandardFonts.TimesRomanItalic,
  mono: StandardFonts.Courier,
};
const SANS: Record<FontRole, string> = {
  regular: "@expo-google-fonts/noto-sans/400Regular/NotoSans_400Regular.ttf",
  bold: "@expo-google-fonts/noto-sans/700Bold/NotoSans_700Bold.ttf",
  italic: "@expo-google-fonts/noto-sans/400Regular_Italic/NotoSans_400Regular_Italic.ttf",
  mono: "@expo-google-fonts/noto-sans/400Regular/NotoSans_400Regular.ttf",
};
const ARABIC_REGULAR = "@expo-google-fonts/noto-sans-arabic/400Regular/NotoSansArabic_400Regular.ttf";
const ARABIC: Record<FontRole, string> = {
  regular: ARABIC_REGULAR,
  bold: "@expo-google-fonts/noto-sans-arabic/700Bold/NotoSansArabic_700Bold.ttf",
  italic: ARABIC_REGULAR,
  mono: ARABIC_REGULAR,
};

const require = createRequire(import.meta.url);
/** Font files and their glyph tables, read once per process (the worker thread lives on). */
const fontFiles = new Map<string, { bytes: Uint8Array; font: Font }>();
function fontFile(specifier: string): { bytes: Uint8Array; font: Font } {
  let file = fontFiles.get(specifier);
  if (!file) {
    const bytes = readFileSync(require.resolve(specifier));
    fontFiles.set(specifier, (file = { bytes, font: fontkit.create(bytes) }));
  }
  return file;
}

const bidi = bidiFactory();

/** What the standard fonts draw: printable Latin-1 (WinAnsi is Latin-1 for these). */
const NOT_LATIN1 = /[^\x20-\x7E\xA0-\xFF]/;
export const isLatin1 = (text: string) => !NOT_LATIN1.test(text);
const SOFT_HYPHEN = "\u00AD";
const ARABIC_CHAR = /[\u0600-\u06FF\u0750-\u077F\u08A0-\u08FF\uFB50-\uFDFF\uFE70-\uFEFF]/;
const isArabic = (char: string) => ARABIC_CHAR.test(char);

/**
 * The text as we draw it: NFC; tabs and line breaks become spaces, other controls "?"; format
 * characters (bidi overrides and isolates, zero-width joiners) dropped; characters beyond the
 * Basic Multilingual Plane (emoji) "?".
 */
export function cleanText(text: string): string {
  // Most texts (labels, ids, dates, names in German or English) are printable Latin-1: that is NFC
  // already, with no control or astral character, and its one format character is the soft hyphen.
  if (isLatin1(text)) return text.includes(SOFT_HYPHEN) ? text.replaceAll(SOFT_HYPHEN, "") : text;
  return text
    .normalize("NFC")
    .replace(/[\t\n\r]/g, " ")
    .replace(/\p{Cf}/gu, "")
    .replace(/[\p{Cc}\p{Cs}]|[\u{10000}-\u{10FFFF}]/gu, "?");
}

/** One piece of a line in one font, ready for Tj: its hex string and width at size 1. */
interface Run {
  font: PDFFont;
  hex: string;
  width: number;
  /**
   * Operators showing the glyphs at a size when plain `<hex> Tj` would misplace them: Arabic marks
   * (dots, shadda, hamza) take the offsets fontkit's positioning (GPOS) gives them.
   */
  show?: (size: number) => string;
}

/** A line shaped and in visual order. */
export interface ShapedLine {
  runs: Run[];
  /** Width at size 1. */
  width: number;
}

export interface TextUse {
  role: FontRole;
  texts: Iterable<string>;
}

/**
 * The fonts of one document. Embed them first with every text each role will draw (`embed`):
 * the Unicode fonts are embedded only when some text needs them.
 */
export class PdfFonts {
  private readonly widths = new Map<PDFFont, Map<string, number>>();

  private constructor(
    private readonly standard: Map<FontRole, PDFFont>,
    private readonly sans: Map<FontRole, PDFFont>,
    private readonly arabic: Map<FontRole, PDFFont>,
  ) {}

  static async embed(doc: PDFDocument, uses: TextUse[]): Promise<PdfFonts> {
    const standard = new Map<FontRole, PDFFont>();
    const sans = new Map<FontRole, PDFFont>();
    const arabic = new Map<FontRole, PDFFont>();
    for (const { role, texts } of uses) {
      if (!standard.has(role)) standard.set(role, await doc.embedFont(STANDARD[role]));
      for (const raw of texts) {
        const text = cleanText(raw);
        if (isLatin1(text)) continue;
        doc.registerFontkit(fontkit);
        const chars = [...text];
        if (!sans.has(role) && !chars.every(isArabic))
          sans.set(role, await doc.embedFont(fontFile(SANS[role]).bytes, { subset: true }));
        if (!arabic.has(role) && chars.some(isArabic))
          arabic.set(role, await doc.embedFont(fontFile(ARABIC[role]).bytes, { subset: true }));
      }
    }
    return new PdfFonts(standard, sans, arabic);
  }

  /** The font a character of a Unicode text is drawn with. */
  private fontFor(role: FontRole, char: string): PDFFont {
    const font = isArabic(char) ? this.arabic.get(role) : this.sans.get(role);
    if (!font) throw new Error(`pdf-text: role ${role} was not embedded for this text`);
    return font;
  }

  private standardFont(role: FontRole): PDFFont {
    const font = this.standard.get(role);
    if (!font) throw new Error(`pdf-text: role ${role} was not embedded`);
    return font;
  }

  /**
   * Whether a standard font draws this text: Latin-1 only, and no text of its role needed Noto
   * Sans (then every text of the role is drawn with it, so labels and values of one page look
   * alike).
   */
  private standardDraws(role: FontRole, text: string): boolean {
    return isLatin1(text) && !this.sans.has(role);
  }

  /** Each text's drawable form per role: `wrap` cleans a paragraph, `shape` the same line again. */
  private readonly drawn = new Map<FontRole, Map<string, string>>();

  /** `drawableText`, remembered per document: cleaning is idempotent, so its result maps to itself. */
  private drawable(text: string, role: FontRole): string {
    let known = this.drawn.get(role);
    if (!known) this.drawn.set(role, (known = new Map()));
    let out = known.get(text);
    if (out === undefined) {
      out = this.drawableText(text, role);
      known.set(text, out).set(out, out);
    }
    return out;
  }

  private drawableText(text: string, role: FontRole): string {
    const clean = cleanText(text);
    if (this.standardDraws(role, clean)) return clean;
    let out = "";
    for (const char of clean) {
      const file = fontFile(isArabic(char) ? ARABIC[role] : SANS[role]);
      out += file.font.hasGlyphForCodePoint(char.codePointAt(0)!) ? char : "?";
    }
    return out;
  }

  private charWidth(font: PDFFont, char: string): number {
    let widths = this.widths.get(font);
    if (!widths) this.widths.set(font, (widths = new Map()));
    let width = widths.get(char);
    if (width === undefined) widths.set(char, (width = font.widthOfTextAtSize(char, 1)));
    return width;
  }

  /**
   * Breaks text into lines no wider than maxWidth (line breaks in the text start a new line),
   * preferring the last space in the second half of a line. Lines are in logical order: shape
   * each for drawing. The width grows character by character (measuring the whole line for every
   * character was quadratic).
   */
  wrap(text: string, role: FontRole, size: number, maxWidth: number): string[] {
    const lines: string[] = [];
    for (const paragraph of text.split(/\r\n?|\n/)) {
      const clean = this.drawable(paragraph, role);
      const latin1 = this.standardDraws(role, clean);
      const width = (char: string) =>
        this.charWidth(latin1 ? this.standardFont(role) : this.fontFor(role, char), char) * size;
      let line = "";
      let lineWidth = 0;
      for (const char of clean) {
        const advance = width(char);
        if (line && lineWidth + advance > maxWidth) {
          const cut = line.lastIndexOf(" ");
          if (cut > line.length / 2) {
            lines.push(line.slice(0, cut));
            line = line.slice(cut + 1) + char;
          } else {
            lines.push(line);
            line = char;
          }
          lineWidth = 0;
          for (const c of line) lineWidth += width(c);
        } else {
          line += char;
          lineWidth += advance;
        }
      }
      lines.push(line);
    }
    return lines;
  }

  /**
   * One line shaped and in visual order. `direction` is the paragraph's (the page's language);
   * the text's own runs of the other direction are reordered inside it.
   */
  shape(text: string, role: FontRole, direction: ParagraphDirection = "ltr"): ShapedLine {
    const line = this.drawable(text, role);
    if (this.standardDraws(role, line)) {
      const font = this.standardFont(role);
      // Measured once and only when read: pdf-lib looks up the kerning of every pair, and a
      // left-aligned line (most of the audit page) is drawn without its width.
      let width: number | undefined;
      const measure = () => (width ??= font.widthOfTextAtSize(line, 1));
      const run = {
        font,
        hex: Buffer.from(line, "latin1").toString("hex"),
        get width() {
          return measure();
        },
      };
      return {
        runs: [run],
        get width() {
          return measure();
        },
      };
    }
    const embedding = bidi.getEmbeddingLevels(line, direction === "auto" ? undefined : direction);
    const mirrored = bidi.getMirroredCharactersMap(line, embedding.levels);
    const order = Array.from(line, (_, i) => i);
    for (const [start = 0, end = 0] of bidi.getReorderSegments(line, embedding)) {
      order.splice(start, end - start + 1, ...order.slice(start, end + 1).reverse());
    }
    // Group the visual order into runs of one font and one direction.
    const runs: Run[] = [];
    let group: number[] = [];
    const flush = () => {
      if (!group.length) return;
      const first = group[0]!;
      const font = this.fontFor(role, line[first]!);
      const rtl = (embedding.levels[first]! & 1) === 1;
      if (rtl && isArabic(line[first]!)) {
        // Arabic in logical order: fontkit shapes it and lays the glyphs out right to left.
        const logical = line.slice(group[group.length - 1], first + 1);
        const hex = hexOf(font, logical);
        const placed = positioned(fontFile(ARABIC[role]).font, logical, hex);
        runs.push({
          font,
          hex,
          width: placed?.width ?? font.widthOfTextAtSize(logical, 1),
          ...(placed && { show: placed.show }),
        });
      } else {
        // Already in visual order (mirrored brackets in right-to-left runs); one character at a
        // time in the Arabic font, so fontkit does not turn Arabic digits around again.
        const chars = group.map((i) => mirrored.get(i) ?? line[i]!);
        const pieces = isArabic(line[first]!) ? chars : [chars.join("")];
        runs.push({
          font,
          hex: pieces.map((piece) => hexOf(font, piece)).join(""),
          width: pieces.reduce((sum, piece) => sum + font.widthOfTextAtSize(piece, 1), 0),
        });
      }
      group = [];
    };
    for (const index of order) {
      const previous = group[group.length - 1];
      if (previous !== undefined) {
        const sameFont = isArabic(line[previous]!) === isArabic(line[index]!);
        const sameLevel = embedding.levels[previous] === embedding.levels[index];
        const rtl = (embedding.levels[index]! & 1) === 1;
        if (!sameFont || !sameLevel || index !== previous + (rtl ? -1 : 1)) flush();
      }
      group.push(index);
    }
    flush();
    return { runs: mergeRuns(runs), width: runs.reduce((sum, run) => sum + run.width, 0) };
  }
}

const hexOf = (font: PDFFont, text: string) => {
  const encoded = font.encodeText(text).toString();
  return encoded.slice(1, -1);
};

/**
 * The glyphs of a shaped run placed as fontkit positions them: each glyph moved by its offset
 * (TJ adjustments across, text rise up and down) and the pen moved by its positioned advance
 * instead of its plain width. Null when nothing moves (a plain Tj is right), or when the glyphs
 * pdf-lib encoded are not the ones laid out here (then the plain Tj is drawn).
 */
function positioned(font: Font, text: string, hex: string): { show: (size: number) => string; width: number } | null {
  const run = font.layout(text);
  const ids = hex.match(/.{4}/g) ?? [];
  if (ids.length !== run.glyphs.length) return null;
  const scale = 1000 / font.unitsPerEm;
  const moves = run.positions.some((p, i) => p.xOffset || p.yOffset || p.xAdvance !== run.glyphs[i]!.advanceWidth);
  if (!moves) return null;
  const width = run.positions.reduce((sum, p) => sum + p.xAdvance * scale, 0) / 1000;
  const show = (size: number) => {
    const ops: string[] = [];
    let items: string[] = [];
    let rise = 0;
    const flush = () => {
      if (items.length) ops.push(`[${items.join(" ")}] TJ`);
      items = [];
    };
    run.glyphs.forEach((glyph, i) => {
      const p = run.positions[i]!;
      const offset = p.xOffset * scale;
      const glyphRise = (p.yOffset / font.unitsPerEm) * size;
      if (glyphRise !== rise) {
        flush();
        ops.push(`${pdfNumber(glyphRise)} Ts`);
        rise = glyphRise;
      }
      // TJ numbers move the next glyph left by n/1000 of the size.
      if (offset) items.push(pdfNumber(-offset));
      items.push(`<${ids[i]}>`);
      const after = offset + glyph.advanceWidth * scale - p.xAdvance * scale;
      if (after) items.push(pdfNumber(after));
    });
    flush();
    if (rise) ops.push("0 Ts");
    return ops.join(" ");
  };
  return { show, width };
}

/** Neighbouring runs of one font become one Tj. */
function mergeRuns(runs: Run[]): Run[] {
  const merged: Run[] = [];
  for (const run of runs) {
    const last = merged[merged.length - 1];
    if (last && last.font === run.font && !last.show && !run.show)
      merged[merged.length - 1] = { font: run.font, hex: last.hex + run.hex, width: last.width + run.width };
    else merged.push(run);
  }
  return merged;
}

/** A number as content streams take it: no exponent, at most three decimals. */
export const pdfNumber = (value: number) => String(Math.round(value * 1000) / 1000);
