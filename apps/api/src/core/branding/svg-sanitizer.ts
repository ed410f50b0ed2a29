import { AppError } from "../errors";

/**
 * An SVG logo rebuilt from an allow-list: the input is tokenized, and only known-harmless
 * elements and attributes are written out again, with every value re-escaped. Nothing of the
 * original text is copied through, so whatever the parser did not understand cannot survive.
 *
 * Removed: scripts, `foreignObject`, `style` elements and attributes (CSS can fetch), event
 * handlers (`on*`), links and `use`/gradient references to anything but a fragment of the same
 * document (`#id`), `url(...)` (and other fetching CSS functions) other than `url(#id)`, also
 * when CSS escapes or comments spell it (`u\rl(`), `javascript:` anywhere, namespaced editor
 * elements. A DOCTYPE (entities) is refused outright.
 */

const ELEMENTS = new Set([
  "svg",
  "g",
  "defs",
  "symbol",
  "use",
  "title",
  "desc",
  "path",
  "rect",
  "circle",
  "ellipse",
  "line",
  "polyline",
  "polygon",
  "text",
  "tspan",
  "linearGradient",
  "radialGradient",
  "stop",
  "clipPath",
  "mask",
]);

/** Elements whose text content is kept (escaped). */
const TEXT_ELEMENTS = new Set(["title", "desc", "text", "tspan"]);

const ATTRIBUTES = new Set([
  "id",
  "viewBox",
  "width",
  "height",
  "x",
  "y",
  "x1",
  "y1",
  "x2",
  "y2",
  "cx",
  "cy",
  "r",
  "rx",
  "ry",
  "fx",
  "fy",
  "dx",
  "dy",
  "d",
  "points",
  "transform",
  "preserveAspectRatio",
  "version",
  "fill",
  "fill-opacity",
  "fill-rule",
  "stroke",
  "stroke-width",
  "stroke-linecap",
  "stroke-linejoin",
  "stroke-miterlimit",
  "stroke-dasharray",
  "stroke-dashoffset",
  "stroke-opacity",
  "opacity",
  "clip-rule",
  "clip-path",
  "clipPathUnits",
  "mask",
  "maskUnits",
  "maskContentUnits",
  "offset",
  "stop-color",
  "stop-opacity",
  "gradientUnits",
  "gradientTransform",
  "spreadMethod",
  "font-family",
  "font-size",
  "font-weight",
  "font-style",
  "text-anchor",
  "dominant-baseline",
  "letter-spacing",
  "textLength",
  "lengthAdjust",
  "display",
  "visibility",
  "color",
  "href",
  "xlink:href",
]);

const MAX_DEPTH = 64;
const MAX_ELEMENTS = 20_000;

const invalid = (message: string) => new AppError("invalid_request", `file: ${message}`, { field: "file" });

const NAMED_ENTITIES: Record<string, string> = { amp: "&", lt: "<", gt: ">", quot: '"', apos: "'" };

/** XML character references and the five predefined entities; anything else is refused. */
function decodeEntities(text: string): string {
  return text.replace(/&(#x[0-9a-fA-F]{1,6}|#[0-9]{1,7}|[A-Za-z]+);|&/g, (match, ref: string | undefined) => {
    if (ref === undefined) throw invalid("the SVG has a bare & (not well-formed XML)");
    if (ref.startsWith("#")) {
      const code = ref[1] === "x" ? parseInt(ref.slice(2), 16) : parseInt(ref.slice(1), 10);
      if (!Number.isInteger(code) || code <= 0 || code > 0x10ffff)
        throw invalid("the SVG has an invalid character reference");
      return String.fromCodePoint(code);
    }
    const named = NAMED_ENTITIES[ref];
    if (named === undefined) throw invalid(`the SVG uses the entity &${ref}; (only XML's own are accepted)`);
    return named;
  });
}

const escapeText = (text: string) => text.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;");
const escapeAttribute = (text: string) => escapeText(text).replace(/"/g, "&quot;");

/**
 * A value as CSS reads it: comments removed and escapes decoded (`u\rl(` is `url(`, `\75 rl(`
 * too), because presentation attributes are CSS and browsers decode both before they fetch.
 */
export function decodeCss(value: string): string {
  return value
    .replace(/\/\*[\s\S]*?(?:\*\/|$)/g, "")
    .replace(
      /\\(?:([0-9a-f]{1,6})(?:\r\n|[ \t\r\n\f])?|(\r\n|[\n\r\f])|([\s\S]))/gi,
      (_, hex: string | undefined, newline: string | undefined, char: string | undefined) => {
        if (hex !== undefined) {
          const code = parseInt(hex, 16);
          return code === 0 || code > 0x10ffff || (code >= 0xd800 && code <= 0xdfff)
            ? "\uFFFD"
            : String.fromCodePoint(code);
        }
        return newline !== undefined ? "" : (char ?? "");
      },
    );
}

/** CSS functions that fetch; of them only `url(#id)`, a fragment of the same document, is kept. */
const FETCHING_FUNCTION = /(?:url|src|image|image-set|cross-fade|element)\s*\(/gi;
const LOCAL_URL = /^url\s*\(\s*['"]?#[A-Za-z_][\w.-]*['"]?\s*\)$/i;

/**
 * A value is kept only when nothing in it can reach outside the document or run. It is checked
 * and written out as CSS reads it (escapes decoded, comments gone), so the browser reads exactly
 * what was checked; a value that still holds a backslash after decoding (`\5c 75rl(` decodes to
 * `\75rl(`, which a second reading turns into `url(`) is dropped.
 */
function safeValue(name: string, raw: string): string | null {
  if (name === "href" || name === "xlink:href") return /^#[A-Za-z_][\w.-]*$/.test(raw.trim()) ? raw.trim() : null;
  const value = decodeCss(raw);
  if (value.includes("\\")) return null;
  // Control characters and whitespace inside a scheme ("java\tscript:") are how filters are fooled.
  // eslint-disable-next-line no-control-regex -- matching control characters is the point here
  const squashed = value.replace(/[\u0000-\u0020\u007f]+/g, "").toLowerCase();
  if (
    squashed.includes("javascript:") ||
    squashed.includes("vbscript:") ||
    squashed.includes("data:") ||
    squashed.includes("expression(")
  )
    return null;
  const functions = value.match(FETCHING_FUNCTION) ?? [];
  if (functions.length > 0) {
    const urls = value.match(/url\s*\(([^)]*)\)/gi) ?? [];
    if (urls.length !== functions.length || !urls.every((u) => LOCAL_URL.test(u))) return null;
  }
  return value;
}

const TOKEN =
  /<!--[\s\S]*?-->|<\?[\s\S]*?\?>|<!\[CDATA\[([\s\S]*?)\]\]>|<!([^>]*)>|<\/\s*([^\s>]+)\s*>|<([^\s/>!?]+)((?:\s+[^\s=/>]+\s*=\s*(?:"[^"]*"|'[^']*'))*)\s*(\/?)>|([^<]+)|</g;
const ATTRIBUTE = /\s+([^\s=/>]+)\s*=\s*(?:"([^"]*)"|'([^']*)')/g;

/** Sanitizes SVG text; 400 when it is not an SVG document this parser can read. */
export function sanitizeSvg(source: string): string {
  const out: string[] = [];
  const stack: { name: string; kept: boolean }[] = [];
  let skipping = 0;
  let sawRoot = false;
  let closedRoot = false;
  let elements = 0;
  TOKEN.lastIndex = 0;
  for (let match = TOKEN.exec(source); match !== null; match = TOKEN.exec(source)) {
    const [whole, cdata, declaration, closeName, openName, rawAttributes, selfClosing, text] = match;
    if (whole.startsWith("<!--") || whole.startsWith("<?")) continue;
    if (declaration !== undefined) throw invalid("an SVG with a DOCTYPE or declarations is not accepted");
    if (whole === "<") throw invalid("the SVG is not well-formed XML");
    if (text !== undefined || cdata !== undefined) {
      const value = cdata ?? decodeEntities(text!);
      if (stack.length === 0) {
        if (value.trim() !== "") throw invalid("the SVG has text outside its <svg> element");
        continue;
      }
      const top = stack[stack.length - 1]!;
      if (skipping === 0 && top.kept && TEXT_ELEMENTS.has(top.name)) out.push(escapeText(value));
      continue;
    }
    if (closeName !== undefined) {
      const top = stack.pop();
      if (!top || top.name !== closeName) throw invalid("the SVG is not well-formed XML (mismatched tags)");
      if (!top.kept) skipping -= 1;
      else if (skipping === 0) out.push(`</${top.name}>`);
      if (stack.length === 0) closedRoot = true;
      continue;
    }
    const name = openName!;
    if (closedRoot) throw invalid("the SVG has content after its <svg> element");
    if (!sawRoot && name !== "svg") throw invalid("the file is not an SVG image (its root element is not <svg>)");
    sawRoot = true;
    if (++elements > MAX_ELEMENTS || stack.length >= MAX_DEPTH) throw invalid("the SVG is too complex");
    const kept = skipping === 0 && ELEMENTS.has(name);
    if (kept) {
      const attributes: string[] = stack.length === 0 ? ['xmlns="http://www.w3.org/2000/svg"'] : [];
      if (stack.length === 0 && /\sxlink:href\s*=/.test(source))
        attributes.push('xmlns:xlink="http://www.w3.org/1999/xlink"');
      ATTRIBUTE.lastIndex = 0;
      for (let a = ATTRIBUTE.exec(rawAttributes ?? ""); a !== null; a = ATTRIBUTE.exec(rawAttributes ?? "")) {
        const attributeName = a[1]!;
        if (!ATTRIBUTES.has(attributeName)) continue;
        const value = safeValue(attributeName, decodeEntities(a[2] ?? a[3] ?? ""));
        if (value !== null) attributes.push(`${attributeName}="${escapeAttribute(value)}"`);
      }
      out.push(`<${name}${attributes.length ? " " + attributes.join(" ") : ""}${selfClosing ? "/>" : ">"}`);
    }
    if (selfClosing) {
      if (stack.length === 0) closedRoot = true;
      continue;
    }
    if (!kept) skipping += 1;
    stack.push({ name, kept });
  }
  if (!sawRoot) throw invalid("the file is not an SVG image");
  if (stack.length > 0 || !closedRoot) throw invalid("the SVG is not well-formed XML (unclosed tags)");
  return out.join("");
}
