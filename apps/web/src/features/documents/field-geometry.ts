import { fieldBox, type PdfFieldRect } from "@clinsign/ui/pdf-geometry";
import type { PdfPageGeometry } from "@clinsign/ui/pdf-pages";

/**
 * The field editor's geometry, pure so it is tested without a browser. Fields are stored as A6
 * stores them: PDF points on the unrotated page, origin top-left, page from 1. The editor shows
 * the page as displayed (its /Rotate applied) and works in fractions of that box (0…1).
 */

export interface Box {
  left: number;
  top: number;
  width: number;
  height: number;
}

type Page = Pick<PdfPageGeometry, "width" | "height" | "rotate">;

/** Smallest field the editor creates by dragging, in points: a click is not a field. */
export const MIN_FIELD_POINTS = 12;
/** A new field placed without dragging (keyboard, "Add field"): the size A6's examples use. */
export const DEFAULT_FIELD = { width: 200, height: 60 };
/** A6 accepts at most 20 fields per document. */
export const MAX_FIELDS = 20;

const normalizedRotation = (rotate: number) => ((rotate % 360) + 360) % 360;

/** The field as fractions of the displayed page, as the page viewer draws it. */
export function toDisplay(field: PdfFieldRect, page: Page): Box {
  return fieldBox(field, page.width, page.height, page.rotate);
}

/** The inverse of toDisplay: a box on the displayed page back to points on the unrotated page. */
export function fromDisplay(box: Box, page: Page, pageNumber: number): PdfFieldRect {
  let fx: number, fy: number, fw: number, fh: number;
  switch (normalizedRotation(page.rotate)) {
    case 90:
      [fx, fy, fw, fh] = [box.top, 1 - box.left - box.width, box.height, box.width];
      break;
    case 180:
      [fx, fy, fw, fh] = [1 - box.left - box.width, 1 - box.top - box.height, box.width, box.height];
      break;
    case 270:
      [fx, fy, fw, fh] = [1 - box.top - box.height, box.left, box.height, box.width];
      break;
    default:
      [fx, fy, fw, fh] = [box.left, box.top, box.width, box.height];
  }
  return clampToPage(
    { page: pageNumber, x: fx * page.width, y: fy * page.height, width: fw * page.width, height: fh * page.height },
    page,
  );
}

/** Two decimals of a point are far below what anyone can see; stored numbers stay readable. */
const round = (value: number) => Math.round(value * 100) / 100;

/**
 * The field moved and shrunk as little as needed to lie on the page: no field can be outside it,
 * whatever is typed, dragged or nudged.
 */
export function clampToPage(field: PdfFieldRect, page: Pick<Page, "width" | "height">): PdfFieldRect {
  const width = Math.min(Math.max(finite(field.width, DEFAULT_FIELD.width), 1), page.width);
  const height = Math.min(Math.max(finite(field.height, DEFAULT_FIELD.height), 1), page.height);
  const x = Math.min(Math.max(finite(field.x, 0), 0), page.width - width);
  const y = Math.min(Math.max(finite(field.y, 0), 0), page.height - height);
  return {
    page: field.page,
    x: round(x),
    y: round(y),
    width: round(Math.min(width, page.width - round(x))),
    height: round(Math.min(height, page.height - round(y))),
  };
}

const finite = (value: number, fallback: number) => (Number.isFinite(value) ? value : fallback);

/** The box spanned by a drag from one point to another (fractions), whichever way it went. */
export function dragBox(from: { x: number; y: number }, to: { x: number; y: number }): Box {
  const clamp = (v: number) => Math.min(Math.max(v, 0), 1);
  const [x1, x2] = [clamp(from.x), clamp(to.x)].sort((a, b) => a - b) as [number, number];
  const [y1, y2] = [clamp(from.y), clamp(to.y)].sort((a, b) => a - b) as [number, number];
  return { left: x1, top: y1, width: x2 - x1, height: y2 - y1 };
}

/** A box moved by a fraction of the displayed page, kept on it. */
export function moveBox(box: Box, dx: number, dy: number): Box {
  return {
    ...box,
    left: Math.min(Math.max(box.left + dx, 0), 1 - box.width),
    top: Math.min(Math.max(box.top + dy, 0), 1 - box.height),
  };
}

/** A box resized from its bottom-right corner, at least `min` (fractions) and kept on the page. */
export function resizeBox(box: Box, dw: number, dh: number, min: { width: number; height: number }): Box {
  return {
    ...box,
    width: Math.min(Math.max(box.width + dw, min.width), 1 - box.left),
    height: Math.min(Math.max(box.height + dh, min.height), 1 - box.top),
  };
}

/**
 * Keyboard editing in points, as the numbers beside the page show them: arrows move the field,
 * with Alt they resize it; Shift makes a step of 10 points instead of 1. Directions are those of
 * the displayed page.
 */
export function nudge(
  field: PdfFieldRect,
  page: Page,
  key: "ArrowLeft" | "ArrowRight" | "ArrowUp" | "ArrowDown",
  options: { large: boolean; resize: boolean },
): PdfFieldRect {
  const step = options.large ? 10 : 1;
  const box = toDisplay(field, page);
  // One point as a fraction of the displayed width and height.
  const rotated = normalizedRotation(page.rotate) % 180 !== 0;
  const unitX = step / (rotated ? page.height : page.width);
  const unitY = step / (rotated ? page.width : page.height);
  const dx = key === "ArrowLeft" ? -unitX : key === "ArrowRight" ? unitX : 0;
  const dy = key === "ArrowUp" ? -unitY : key === "ArrowDown" ? unitY : 0;
  const next = options.resize ? resizeBox(box, dx, dy, minBox(page)) : moveBox(box, dx, dy);
  return fromDisplay(next, page, field.page);
}

/** The smallest field (MIN_FIELD_POINTS each way) as fractions of the displayed page. */
export function minBox(page: Page): { width: number; height: number } {
  const rotated = normalizedRotation(page.rotate) % 180 !== 0;
  return {
    width: MIN_FIELD_POINTS / (rotated ? page.height : page.width),
    height: MIN_FIELD_POINTS / (rotated ? page.width : page.height),
  };
}

/** A new field centred on the page (or where there is room), for "Add field" without a pointer. */
export function centredField(pageNumber: number, page: Pick<Page, "width" | "height">): PdfFieldRect {
  const width = Math.min(DEFAULT_FIELD.width, page.width);
  const height = Math.min(DEFAULT_FIELD.height, page.height);
  return clampToPage(
    { page: pageNumber, x: (page.width - width) / 2, y: (page.height - height) / 2, width, height },
    page,
  );
}

/** True when the box is big enough (in points on its page) to be a field rather than a click. */
export function isBigEnough(box: Box, page: Page): boolean {
  const rotated = normalizedRotation(page.rotate) % 180 !== 0;
  const widthPoints = box.width * (rotated ? page.height : page.width);
  const heightPoints = box.height * (rotated ? page.width : page.height);
  return widthPoints >= MIN_FIELD_POINTS && heightPoints >= MIN_FIELD_POINTS;
}
